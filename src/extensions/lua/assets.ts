/**
 * Where the Lua runtime's files are, and the WebAssembly module compiled once per process.
 * The worker must be plain JavaScript: under the TypeScript sources (tests) the built copy in
 * dist/ is used.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { wasmApi, type WasmModule } from "./protocol.js";

const here = dirname(fileURLToPath(import.meta.url));

/** The directory of the built module that sits where this one does (dist/... for src/...). */
function builtDir(): string {
  if (existsSync(join(here, "worker", "main.js"))) return here;
  const marker = `${join("src", "extensions", "lua")}`;
  const at = here.lastIndexOf(marker);
  if (at < 0) return here;
  return join(here.slice(0, at), "dist", "extensions", "lua");
}

/** The worker script (a .js file). */
export function workerScriptPath(): string {
  return join(builtDir(), "worker", "main.js");
}

/** The runtime's Lua files (boot.lua, json.lua, ...). */
export function runtimeDir(): string {
  return join(here, "runtime");
}

let compiled: Promise<WasmModule> | undefined;

/** wasmoon's Lua 5.4 WebAssembly module, compiled once and shared by every worker. */
export function luaWasmModule(): Promise<WasmModule> {
  compiled ??= readFile(createRequire(import.meta.url).resolve("wasmoon/dist/glue.wasm")).then((bytes) =>
    wasmApi.compile(bytes),
  );
  return compiled;
}
