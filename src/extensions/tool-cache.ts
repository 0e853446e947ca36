/**
 * A cache of what each extension registered, keyed by its files' size, modification time and content hash,
 * so the first request can go out before any Lua runs (PERFORMANCE.md: a worker with Lua is ready in ~100 ms).
 *
 * The cache is only a head start: the pool loads every extension when a tool is first needed (or prewarmed), and
 * what it finds replaces the cached view and the cache file. A tool whose registration depends on something
 * outside its files (an environment variable at load time) is therefore at most one run stale.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { compareCodeUnits } from "../tools/registry.js";
import type { DiscoveredExtension } from "./discover.js";
import type { ExtensionLoadError, LuaToolRegistration } from "./lua/types.js";
import { userCacheDir } from "../config/paths.js";

/** Bump when the cached shape, or the meaning of a registration, changes. */
const CACHE_FORMAT = 5;

export interface LoadSnapshot {
  tools: LuaToolRegistration[];
  errors: ExtensionLoadError[];
  /** Tools whose `available(ctx)` said no, keyed `extension/tool`, with the reason. */
  unavailable: Record<string, string>;
}

interface CacheEntry {
  name: string;
  file: string;
  key: string;
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
 * What keying several extensions reads once: a folder's shared modules (`modulesOf`) and each module's size and
 * mtime, which every single-file extension of that folder would otherwise list and stat again.
 */
interface KeyReads {
  modules: Map<string, string[]>;
  stamps: Map<string, string>;
}

/** The cache key of one extension: its entry point's size, mtime and hash, plus every other Lua file of a directory extension. */
export function extensionKey(extension: DiscoveredExtension, reads: KeyReads = { modules: new Map(), stamps: new Map() }): string {
  const hash = createHash("sha256");
  hash.update(readFileSync(extension.file));
  const parts = [`${extension.size}:${extension.mtime_ms}`];
  // Modules it may `require` at load time: their size and mtime are enough to notice an edit.
  const dir = dirname(extension.file);
  for (const file of modulesOf(extension, reads.modules)) {
    let stamp = reads.stamps.get(file);
    if (stamp === undefined) {
      const stat = statSync(file);
      reads.stamps.set(file, (stamp = `${stat.size}:${stat.mtimeMs}`));
    }
    parts.push(`${relative(dir, file)}:${stamp}`);
  }
  return `${parts.join("|")}|${hash.digest("hex")}`;
}

/** Keys for every extension, or undefined if any file cannot be read (then the cache is simply not used). */
export function extensionKeys(extensions: readonly DiscoveredExtension[]): CacheEntry[] | undefined {
  const reads: KeyReads = { modules: new Map(), stamps: new Map() };
  try {
    return extensions.map((e) => ({ name: e.name, file: e.file, key: extensionKey(e, reads) }));
  } catch {
    return undefined;
  }
}

/**
 * The cache file when it is whole and of this format, not yet matched against the extensions: a file that is
 * missing, cut short or of another version is known to miss before any extension is keyed (its files read and
 * hashed), so the load can start at once.
 */
export function readToolCache(path: string): ToolCacheFile | undefined {
  let cache: ToolCacheFile;
  try {
    cache = JSON.parse(readFileSync(path, "utf8")) as ToolCacheFile;
  } catch {
    return undefined;
  }
  return cache?.format === CACHE_FORMAT && Array.isArray(cache.extensions) && wellFormed(cache) ? cache : undefined;
}

/** The cached registrations when every extension (and nothing else) matches `keys`; otherwise undefined. */
export function cachedSnapshot(cache: ToolCacheFile, keys: readonly CacheEntry[]): LoadSnapshot | undefined {
  if (cache.extensions.length !== keys.length) return undefined;
  for (let i = 0; i < keys.length; i++) {
    const a = cache.extensions[i]!;
    const b = keys[i]!;
    if (a.name !== b.name || a.file !== b.file || a.key !== b.key) return undefined;
  }
  return { tools: cache.tools, errors: cache.errors, unavailable: cache.unavailable ?? {} };
}

/**
 * Whether the cached lists have the shape awl reads (a file damaged in the middle may still parse, and match every
 * key): such a cache is not used, and the real load rewrites it.
 */
function wellFormed(cache: ToolCacheFile): boolean {
  const object = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  const strings = (v: Record<string, unknown>, keys: string[]) => keys.every((k) => typeof v[k] === "string");
  return (
    cache.extensions.every((e: unknown) => object(e) && strings(e, ["name", "file", "key"])) &&
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
