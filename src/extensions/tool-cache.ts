/**
 * A cache of what each extension registered, keyed by its files' size, modification time and content hash,
 * so the first request can go out before any Lua runs (PERFORMANCE.md: a worker with Lua is ready in ~100 ms).
 *
 * The cache is only a head start: the pool loads every extension when a tool is first needed (or prewarmed), and
 * what it finds replaces the cached view and the cache file. A tool whose registration depends on something
 * outside its files (an environment variable at load time) is therefore at most one run stale.
 *
 * An entry point's content hash is taken again only when its stat (size, modification and change times, inode,
 * device) differs from the one the cache holds, or when the file changed too close to the moment its hash was
 * taken for the stat to tell a later rewrite apart ({@link SETTLED_MS}: git's "racily clean" entries): reading and
 * hashing every extension on every start cost ≈ 4 ms of a one-line reply (docs/benchmarks.md, issue 30).
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync, type Stats } from "node:fs";
import { dirname, join } from "node:path";
import { compareCodeUnits } from "../tools/registry.js";
import type { DiscoveredExtension } from "./discover.js";
import type { ExtensionLoadError, LuaToolRegistration } from "./lua/types.js";
import { userCacheDir } from "../config/paths.js";

/** Bump when the cached shape, or the meaning of a registration, changes. */
const CACHE_FORMAT = 6;

/**
 * How long before its hash was taken a file must have last changed (its ctime, which no user call sets back) for
 * an unchanged stat to vouch for its content: more than the coarsest time stamps a file system keeps (FAT's 2 s;
 * Linux's are a clock tick), so that a rewrite of the same size in the same tick as the hash, which leaves the
 * stat as it was, is never taken for the file hashed.
 */
export const SETTLED_MS = 3_000;

export interface LoadSnapshot {
  tools: LuaToolRegistration[];
  errors: ExtensionLoadError[];
  /** Tools whose `available(ctx)` said no, keyed `extension/tool`, with the reason. */
  unavailable: Record<string, string>;
}

/** One extension's key: what its files were when its registrations were cached. */
export interface CacheEntry {
  name: string;
  file: string;
  /** The entry point's size, mtime, ctime, inode and device, then each module's path (below the entry's folder) and the same. */
  stamp: string;
  /** SHA-256 of the entry point's content, hex. */
  hash: string;
  /** When `hash` was taken (ms since the epoch), and the entry point's ctime (ms) then. */
  hashed_at: number;
  changed_at: number;
}

/** The registration cache file (`extension-tools.json`): the snapshot, and the keys of the extensions it is for. */
export interface ToolCacheFile extends LoadSnapshot {
  format: number;
  extensions: CacheEntry[];
}

/** `$XDG_CACHE_HOME/awl/extension-tools.json`. */
export function defaultToolCachePath(env: NodeJS.ProcessEnv): string {
  return join(userCacheDir(env), "extension-tools.json");
}

/**
 * What keying several extensions reads once: a folder's shared modules (`modulesOf`) and each module's stamp,
 * which every single-file extension of that folder would otherwise list and stat again.
 */
interface KeyReads {
  modules: Map<string, string[]>;
  stamps: Map<string, string>;
  /** Entry points' stats taken just before (discovery's, `DiscoveryResult.stats`), by file: not stat'ed again. */
  entries?: ReadonlyMap<string, Stats> | undefined;
}

/** A file's size, modification and change times, inode and device: what any write to it, or a file put in its place, changes. */
function stampOf(stat: { size: number; mtimeMs: number; ctimeMs: number; ino: number; dev: number }): string {
  return `${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.ino}:${stat.dev}`;
}

/** Whether the file had last changed long enough before its hash was taken for its stat to vouch for that hash. */
const settled = (key: CacheEntry): boolean => key.changed_at < key.hashed_at - SETTLED_MS;

/**
 * The cache key of one extension: its entry point's stamp and content hash, plus the stamp of every Lua module it
 * may `require` from its folder. `known`: the key the cache holds for it, whose hash is taken as it is when the
 * stamps agree and the file had settled when it was hashed.
 */
export function extensionKey(extension: DiscoveredExtension, reads: KeyReads = { modules: new Map(), stamps: new Map() }, known?: CacheEntry): CacheEntry {
  const entry = reads.entries?.get(extension.file) ?? statSync(extension.file);
  const parts = [stampOf(entry)];
  // Modules it may `require` at load time: their stamps are enough to notice an edit.
  const dir = dirname(extension.file);
  for (const file of modulesOf(extension, reads.modules)) {
    let stamp = reads.stamps.get(file);
    if (stamp === undefined) reads.stamps.set(file, (stamp = stampOf(statSync(file))));
    parts.push(`${file.slice(dir.length + 1)}:${stamp}`);
  }
  const stamp = parts.join("|");
  const key = { name: extension.name, file: extension.file, stamp };
  if (known && known.name === key.name && known.file === key.file && known.stamp === stamp && settled(known)) {
    return { ...key, hash: known.hash, hashed_at: known.hashed_at, changed_at: known.changed_at };
  }
  const hashed_at = Date.now();
  return { ...key, hash: createHash("sha256").update(readFileSync(extension.file)).digest("hex"), hashed_at, changed_at: entry.ctimeMs };
}

/**
 * Keys for every extension, or undefined if any file cannot be read (then the cache is simply not used). `known`:
 * the keys a cache holds, whose hashes are reused where the files' stamps say nothing changed. `entries`: the
 * entry points' stats discovery has just taken (by file), used instead of stat'ing them again.
 */
export function extensionKeys(
  extensions: readonly DiscoveredExtension[],
  known: readonly CacheEntry[] = [],
  entries?: ReadonlyMap<string, Stats>,
): CacheEntry[] | undefined {
  const reads: KeyReads = { modules: new Map(), stamps: new Map(), entries };
  try {
    return extensions.map((e, i) => extensionKey(e, reads, known[i]));
  } catch {
    return undefined;
  }
}

/**
 * The cache file when it is whole, of this format and for as many extensions as were found, not yet matched
 * against them: a file that is missing, cut short or of another version misses before any extension is keyed
 * (stat'ed, and hashed where that says nothing), so the load can start at once.
 */
export function readToolCache(path: string, extensions: readonly DiscoveredExtension[]): ToolCacheFile | undefined {
  let cache: ToolCacheFile;
  try {
    cache = JSON.parse(readFileSync(path, "utf8")) as ToolCacheFile;
  } catch {
    return undefined;
  }
  const usable = cache?.format === CACHE_FORMAT && Array.isArray(cache.extensions) && cache.extensions.length === extensions.length && wellFormed(cache);
  return usable ? cache : undefined;
}

/**
 * The extensions' keys, and the cached registrations of `cache` (read from `path`) when every extension (and
 * nothing else) matches. The cache's keys lend their hashes to the files that did not change (`extensionKeys`);
 * `entries`: the entry points' stats as discovery just took them.
 */
export function cachedSnapshot(
  path: string,
  cache: ToolCacheFile,
  extensions: readonly DiscoveredExtension[],
  entries?: ReadonlyMap<string, Stats>,
): { keys: CacheEntry[] | undefined; cached: LoadSnapshot | undefined } {
  const keys = extensionKeys(extensions, cache.extensions, entries);
  if (!keys) return { keys, cached: undefined };
  for (let i = 0; i < keys.length; i++) {
    const a = cache.extensions[i]!;
    const b = keys[i]!;
    if (a.name !== b.name || a.file !== b.file || a.stamp !== b.stamp || a.hash !== b.hash) return { keys, cached: undefined };
  }
  const cached = { tools: cache.tools, errors: cache.errors, unavailable: cache.unavailable ?? {} };
  // A file hashed again because it had changed just before its last hash (awl run right after an install or an
  // edit) and settled since: written down, so the next starts take its stat instead of hashing it on every run.
  if (keys.some((key, i) => key.hashed_at !== cache.extensions[i]!.hashed_at && settled(key))) writeToolCache(path, keys, cached);
  return { keys, cached };
}

/**
 * Whether the cached lists have the shape awl reads (a file damaged in the middle may still parse, and match every
 * key): such a cache is not used, and the real load rewrites it.
 */
function wellFormed(cache: ToolCacheFile): boolean {
  const object = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  const strings = (v: Record<string, unknown>, keys: string[]) => keys.every((k) => typeof v[k] === "string");
  return (
    cache.extensions.every((e: unknown) => object(e) && strings(e, ["name", "file", "stamp", "hash"]) && typeof e.hashed_at === "number" && typeof e.changed_at === "number") &&
    Array.isArray(cache.tools) &&
    cache.tools.every((t: unknown) => object(t) && strings(t, ["extension", "name"])) &&
    Array.isArray(cache.errors) &&
    cache.errors.every((e: unknown) => object(e) && strings(e, ["extension", "message"])) &&
    (cache.unavailable === undefined || (object(cache.unavailable) && Object.values(cache.unavailable).every((r) => typeof r === "string")))
  );
}

/** Writes the cache atomically (temp file, then rename); a failure only costs the next start-up its head start. */
export function writeToolCache(path: string, keys: readonly CacheEntry[], snapshot: LoadSnapshot): void {
  const cache: ToolCacheFile = { format: CACHE_FORMAT, extensions: [...keys], ...snapshot };
  try {
    mkdirSync(dirname(path), { recursive: true });
    const temp = `${path}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(cache));
    renameSync(temp, path);
  } catch {
    // Read-only home, full disk: awl works the same, only slower to start.
  }
}

/**
 * The Lua modules an extension may `require` from its own folder, in a stable order: for a directory extension
 * every other `.lua` file below its folder; for a single-file one the shared modules beside it, the `_`-named
 * files and folders that discovery leaves out (`_text.lua`, `_lib/…`), which several extensions of a folder share.
 * `shared`: the shared modules of the folders listed already (by folder), read and filled in.
 */
export function modulesOf(extension: Pick<DiscoveredExtension, "file">, shared?: Map<string, string[]>): string[] {
  const dir = dirname(extension.file);
  if (extension.file.endsWith("/init.lua")) return luaFilesBelow(dir, extension.file);
  const listed = shared?.get(dir);
  if (listed) return listed;
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => compareCodeUnits(a.name, b.name))) {
    if (!entry.name.startsWith("_")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...luaFilesBelow(path, ""));
    else if (entry.name.endsWith(".lua")) out.push(path);
  }
  shared?.set(dir, out);
  return out;
}

/** Every `.lua` file below `dir` except `entry`, in a stable order. */
function luaFilesBelow(dir: string, entryPoint: string): string[] {
  const out: string[] = [];
  const visit = (current: string, depth: number): void => {
    if (depth > 8) return; // deep enough for any real extension; bounds a symlink loop
    for (const entry of readdirSync(current, { withFileTypes: true }).sort((a, b) => compareCodeUnits(a.name, b.name))) {
      if (entry.name.startsWith(".")) continue;
      const path = join(current, entry.name);
      if (entry.isDirectory()) visit(path, depth + 1);
      else if (entry.name.endsWith(".lua") && path !== entryPoint) out.push(path);
    }
  };
  visit(dir, 0);
  return out;
}
