/**
 * V8's compiled code of the CLI's own modules, kept between runs in `$XDG_CACHE_HOME/awl/compile-cache`, so that a
 * run does not compile again the half MB of JavaScript the main command loads (a fifth of what `awl -p` executes
 * over `node -e 0` on Node 20: docs/benchmarks.md). Where the running Node has `module.enableCompileCache` (22.1
 * and newer) Node keeps it. Elsewhere awl keeps it for the CommonJS chunks of its bundle (scripts/bundle-cli.mjs),
 * loaded through `require.extensions[".cjs"]`: each is compiled by `vm.Script` with the code cache of its last
 * compile, `<folder>/awl/<chunk>.v8` (the chunk's name holds a hash of its text), and the
 * caches of the files compiled without one are written as the process exits (they then hold every function the
 * run used), the other builds' dropped. A cache that is missing, damaged, unreadable or made by another Node or
 * for other V8 flags is passed over (V8 rejects what does not fit its version, flags or source) and rewritten. A
 * cache taken as it was holds only what the run that wrote it used (`awl -p` uses less of a chunk than the
 * interactive mode): a long-running mode asks for the caches it took to be written again at exit when it compiled
 * more of their chunks ({@link refreshCompileCachesAtExit}).
 */
import nodeModule from "node:module";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { constants as vmConstants, Script } from "node:vm";
import { userCacheDir } from "../config/paths.js";
import { readCodeCache, writeCodeCache } from "../util/code-cache-file.js";
import { SHA256_CHECK } from "../util/sha256-check.js";

/** A CommonJS loader (`require.extensions`, what Node calls for each file of an extension it requires). */
type FileLoader = (module: NodeJS.Module, filename: string) => void;
interface Loaders {
  enableCompileCache?: (directory: string) => unknown;
  _extensions: Record<string, FileLoader>;
  /** Node's loaded modules by file (`require.cache`). */
  _cache: Record<string, NodeJS.Module | undefined>;
  new (id: string, parent: NodeJS.Module): NodeJS.Module;
}

const EXTENSION = ".cjs";

/**
 * How much more V8's data of a chunk must hold than its cache did for a refresh to write it again: a share and a
 * size, so that which functions a run happened to call (a small chunk's other branch) does not rewrite caches run
 * after run.
 */
const REFRESH_GROWTH = { ratio: 1.05, bytes: 16_384 };

let refreshAtExit = false;

/**
 * At exit, writes again the caches this run took whose chunks it compiled more of than they held (the interactive
 * mode, which also runs what a one-line reply never does). Costs a serialisation of each chunk at exit, so a short
 * run does not ask for it.
 */
export function refreshCompileCachesAtExit(): void {
  refreshAtExit = true;
}

/** What the cache covers: the bundle's chunks (dist/cli/chunks/), the folder this module is built into. */
const chunksDir = dirname(fileURLToPath(import.meta.url));

/** Whether a chunk's `require(id)` names another chunk: `./name.cjs`, beside it. */
const isChunk = (id: string): boolean => id.startsWith("./") && id.endsWith(EXTENSION) && !id.includes("/", 2);

/**
 * Keeps the compiled code of the CLI's modules that load from here on, where it can. Without Node's own compile
 * cache and `vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER` (Node 20.12; a module compiled by `vm.Script` could
 * not `import()` without it), or with Node's `NODE_DISABLE_COMPILE_CACHE` set, it does nothing.
 */
export function useCompileCache(env: NodeJS.ProcessEnv): void {
  const folder = join(userCacheDir(env), "compile-cache");
  const loaders = nodeModule as unknown as Loaders;
  if (loaders.enableCompileCache) {
    loaders.enableCompileCache(folder);
    return;
  }
  const importModuleDynamically = (vmConstants as Partial<typeof vmConstants> | undefined)?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
  if (importModuleDynamically === undefined || env.NODE_DISABLE_COMPILE_CACHE) return;
  const cacheDir = join(folder, "awl");
  const compiled: { file: string; script: Script }[] = [];
  const taken: { file: string; script: Script; bytes: number }[] = [];
  const plain = loaders._extensions[EXTENSION] ?? loaders._extensions[".js"]!;
  let shared: NodeJS.Require | undefined;
  loaders._extensions[EXTENSION] = (module, filename) => {
    if (dirname(filename) !== chunksDir) return plain(module, filename);
    const file = join(cacheDir, `${basename(filename)}.v8`);
    const cachedData = readCodeCache(file, SHA256_CHECK);
    const script = new Script(nodeModule.wrap(readFileSync(filename, "utf8")), {
      filename,
      importModuleDynamically,
      ...(cachedData && { cachedData }),
    });
    if (!cachedData || script.cachedDataRejected) compiled.push({ file, script });
    else taken.push({ file, script, bytes: cachedData.length });
    // `require.resolve`, `.cache`…: the same for every chunk (one folder), made once rather than per chunk.
    shared ??= nodeModule.createRequire(join(chunksDir, "chunk.cjs"));
    const require = Object.assign((id: string) => (isChunk(id) ? requireChunk(id, module) : module.require(id)), shared);
    (script.runInThisContext() as (...args: unknown[]) => void).call(module.exports, module.exports, require, module, filename, dirname(filename));
  };
  // A chunk's `require("./other-chunk.cjs")` is the file beside it: Node's lookup (the package scope walked up for
  // a self-reference, a stat, a realpath, for each chunk) has nothing to find, so the chunk is loaded as Node would
  // once it has the file. The folder is a real path already (Node resolved this module's own).
  const requireChunk = (id: string, parent: NodeJS.Module): unknown => {
    const filename = join(chunksDir, id.slice(2));
    const loaded = loaders._cache[filename];
    if (loaded) return loaded.exports; // a chunk still loading (a cycle) gives what it exported so far, as in Node
    const module = new loaders(filename, parent);
    module.filename = filename;
    module.paths = parent.paths;
    loaders._cache[filename] = module;
    try {
      loaders._extensions[EXTENSION]!(module, filename);
    } catch (error) {
      delete loaders._cache[filename];
      throw error;
    }
    module.loaded = true;
    return module.exports;
  };
  process.once("exit", () => {
    const grown = refreshAtExit ? taken.flatMap(({ file, script, bytes }) => {
      const data = script.createCachedData();
      return data.length > Math.max(bytes * REFRESH_GROWTH.ratio, bytes + REFRESH_GROWTH.bytes) ? [{ file, data }] : [];
    }) : [];
    const caches = [...compiled.map(({ file, script }) => ({ file, data: script.createCachedData() })), ...grown];
    if (caches.length) writeCaches(cacheDir, caches);
  });
}

/** Writes the new caches, and drops those of files no longer in the bundle (an earlier build's). */
function writeCaches(cacheDir: string, caches: readonly { file: string; data: Buffer }[]): void {
  try {
    mkdirSync(cacheDir, { recursive: true });
    for (const { file, data } of caches) writeCodeCache(file, data, SHA256_CHECK);
    const current = new Set(readdirSync(chunksDir).map((name) => `${name}.v8`));
    for (const name of readdirSync(cacheDir)) {
      if (name.endsWith(".v8") && !current.has(name)) rmSync(join(cacheDir, name), { force: true });
    }
  } catch {
    // a cache folder that cannot be written only costs the next run its compile
  }
}
