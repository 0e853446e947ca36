/**
 * Where the Lua runtime's files are, and the WebAssembly module compiled once per process.
 * The worker must be plain JavaScript: under the TypeScript sources (tests) the built copy in
 * dist/ is used, and so it is from the CLI's bundle.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { packagePath } from "../../util/package-path.js";
import { wasmApi, type WasmModule } from "./protocol.js";

const here = dirname(fileURLToPath(import.meta.url));

/** The worker script: src/extensions/lua/worker/ as one CommonJS file (scripts/bundle-lua-worker.mjs). */
export function workerScriptPath(): string {
  return packagePath("dist", "extensions", "lua", "worker.cjs");
}

/** The runtime's Lua files (boot.lua, json.lua, ...): beside this module (the sources, tsc's dist/), else dist's copy. */
export function runtimeDir(): string {
  const beside = join(here, "runtime");
  return existsSync(beside) ? beside : packagePath("dist", "extensions", "lua", "runtime");
}

let compiled: Promise<WasmModule> | undefined;

/** wasmoon's Lua 5.4 WebAssembly module, compiled once and shared by every worker. */
export function luaWasmModule(): Promise<WasmModule> {
  compiled ??= readFile(createRequire(import.meta.url).resolve("wasmoon/dist/glue.wasm")).then((bytes) =>
    wasmApi.compile(bytes),
  );
  return compiled;
}
