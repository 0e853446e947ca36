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
import { setFlagsFromString } from "node:v8";
import { packagePath } from "../../util/package-path.js";
import { wasmApi, type WasmModule } from "./protocol.js";

const here = dirname(fileURLToPath(import.meta.url));

/** The worker script: its loader (worker/loader.ts), which runs src/extensions/lua/worker/ as one CommonJS file. */
export function workerScriptPath(): string {
  return packagePath("dist", "extensions", "lua", "worker.cjs");
}

/** The runtime's Lua files (boot.lua, json.lua, ...): beside this module (the sources, tsc's dist/), else dist's copy. */
export function runtimeDir(): string {
  const beside = join(here, "runtime");
  return existsSync(beside) ? beside : packagePath("dist", "extensions", "lua", "runtime");
}

/** V8's default, which nothing but awl's own module is compiled away from. */
const DEFAULT_TIERING_BUDGET = 1_800_000;
/**
 * How much a wasm function runs (V8's "bytes executed") before V8 recompiles it with TurboFan: V8's largest, ~1 200x
 * its default, so only Lua that computes for a good while is optimized. With the default, a worker's start (awl's
 * runtime and a few extensions) already makes 29 of the Lua VM's functions hot: ~150 ms of TurboFan work on V8's
 * background threads, competing with the main thread for the cores, and an exit then waits for the compile under
 * way. Liftoff charges the Lua VM's loop its whole body (~20 KB) per Lua instruction, so this is ~100 000 Lua
 * instructions: a cold start's boot and loads stay under it up to ~140 extensions (~600 instructions each, the
 * JSON they register encoded by the host: docs/benchmarks.md, "The cold start without the wasm tier-up").
 */
const LUA_TIERING_BUDGET = 2 ** 31 - 1;

let compiled: Promise<WasmModule> | undefined;

/**
 * wasmoon's Lua 5.4 WebAssembly module, compiled once and shared by every worker. Compiled synchronously (~2 ms:
 * V8 compiles each function at its first call) so that the tiering budget, which V8 reads as the module is
 * compiled, applies to this module alone: the flag is back to its default before any other code runs (a
 * changed flag would make V8 reject its code caches, e.g. Node's for its built-in modules in a new worker).
 * A module that could not be read or compiled is tried again by the next caller (the next worker's start).
 */
export function luaWasmModule(): Promise<WasmModule> {
  compiled ??= readFile(createRequire(import.meta.url).resolve("wasmoon/dist/glue.wasm")).then((bytes) => {
    const ownBudget = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((arg) => arg.includes("tiering-budget"));
    if (ownBudget) return new wasmApi.Module(bytes); // whoever started Node chose
    setFlagsFromString(`--wasm-tiering-budget=${LUA_TIERING_BUDGET}`);
    try {
      return new wasmApi.Module(bytes);
    } finally {
      setFlagsFromString(`--wasm-tiering-budget=${DEFAULT_TIERING_BUDGET}`);
    }
  });
  const compiling = compiled;
  compiling.catch(() => {
    if (compiled === compiling) compiled = undefined;
  });
  return compiling;
}
