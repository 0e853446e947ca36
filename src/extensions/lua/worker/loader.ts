/**
 * A Lua worker's first script (built as dist/extensions/lua/worker.cjs): runs the worker's bundle, worker-main.cjs,
 * through V8's code cache, so a worker does not compile its ~230 KB of JavaScript (wasmoon's glue, awl's runtime
 * bridge) again on every start (~14 ms of its start). The cache is `$XDG_CACHE_HOME/awl/lua-worker-*.v8`, written
 * once per build of the bundle by the first worker that gets its extensions loaded (it then holds the functions
 * the start ran, compiled). It is only ever a head start: a cache that is missing, unreadable, damaged or made by
 * another Node is passed over (V8 rejects what does not fit its version, flags or source), and rewritten.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createRequire, wrap } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";
import { workerData } from "node:worker_threads";
import { readCodeCache, WORD_CHECK, writeCodeCache } from "../../../util/code-cache-file.js";
import { SAVE_CODE_CACHE, type WorkerInit } from "../protocol.js";

const PREFIX = "lua-worker-";

const bundle = join(dirname(fileURLToPath(import.meta.url)), "worker-main.cjs");
const cacheDir = (workerData as WorkerInit).codeCacheDir;

/** Writes the cache, and drops those of other builds. */
function writeCache(dir: string, file: string, data: Buffer): void {
  try {
    mkdirSync(dir, { recursive: true });
    writeCodeCache(file, data, WORD_CHECK);
    const name = file.slice(dir.length + 1);
    for (const other of readdirSync(dir)) {
      if (other.startsWith(PREFIX) && other.endsWith(".v8") && other !== name) rmSync(join(dir, other), { force: true });
    }
  } catch {
    // a cache folder that cannot be written only costs the next worker its compile
  }
}

const source = readFileSync(bundle, "utf8");
// The bundle's size and time name its cache: V8 checks a cache against the source's length only.
const stat = statSync(bundle);
const cacheFile = cacheDir && join(cacheDir, `${PREFIX}${stat.size}-${Math.trunc(stat.mtimeMs)}.v8`);
const cachedData = cacheFile ? readCodeCache(cacheFile, WORD_CHECK) : undefined;
const script = new Script(wrap(source), { filename: bundle, ...(cachedData && { cachedData }) });
if (cacheDir && cacheFile && (!cachedData || script.cachedDataRejected)) {
  (globalThis as Record<symbol, unknown>)[SAVE_CODE_CACHE] = () => writeCache(cacheDir, cacheFile, script.createCachedData());
}
const module = { exports: {} };
(script.runInThisContext() as (...args: unknown[]) => void).call(module.exports, module.exports, createRequire(bundle), module, bundle, dirname(bundle));
