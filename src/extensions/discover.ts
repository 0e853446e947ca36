/**
 * Extension discovery (SPEC §4, seed phase 3): which Lua entry points exist, under which dotted names,
 * and which one wins when two folders hold the same name. Reads directory listings and file metadata only;
 * it never runs or reads Lua code.
 *
 * Synchronous on purpose: it runs once on the start-up path over a handful of small folders, where a few
 * `statSync` calls cost less than scheduling promises.
 */
import { readdirSync, realpathSync, statSync, type Dirent, type Stats } from "node:fs";
import { join } from "node:path";
import { compareCodeUnits } from "../tools/registry.js";
import type { ExtensionRoot, ExtensionSource } from "./extension-root.js";

export type { ExtensionRoot, ExtensionSource } from "./extension-root.js";

/** One extension entry point. */
export interface DiscoveredExtension {
  /** Dotted name: `utils/json.lua` → `utils.json`, `coding/edit/init.lua` → `coding.edit`. */
  name: string;
  /** Absolute path of the entry point (`x.lua` or `x/init.lua`). */
  file: string;
  /** The extensions folder it was found in. */
  folder: string;
  source: ExtensionSource;
}

/** An extension hidden by another of the same name found earlier in precedence order. */
export interface ShadowedExtension extends DiscoveredExtension {
  /** The entry point that won. */
  shadowed_by: string;
}

/** Something discovery skipped, with a message saying what, where and what to do. Discovery always continues. */
export interface DiscoveryProblem {
  path: string;
  message: string;
}

export interface DiscoveryResult {
  /** Winning extensions, sorted by name (code-unit order, so the same folders always give the same order). */
  extensions: DiscoveredExtension[];
  shadowed: ShadowedExtension[];
  problems: DiscoveryProblem[];
  /**
   * Each winning entry point's stat as discovery took it (by `file`): the registration cache keys the extensions
   * with it right after (tool-cache.ts `extensionKeys`) instead of a second stat of each file.
   */
  stats: ReadonlyMap<string, Stats>;
}

export interface DiscoveryOptions {
  /** Entry points larger than this are refused (a 50 MB "extension" is a mistake, and every pool slot would parse it). */
  maxFileBytes?: number;
}

/** 4 MiB: far above any hand-written extension, small enough that loading it in every slot stays cheap. */
export const DEFAULT_MAX_EXTENSION_FILE_BYTES = 4 * 1024 * 1024;

/** Scans every root and resolves name clashes by precedence. Never throws. */
export function discoverExtensions(roots: readonly ExtensionRoot[], options: DiscoveryOptions = {}): DiscoveryResult {
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_EXTENSION_FILE_BYTES;
  const problems: DiscoveryProblem[] = [];
  const winners = new Map<string, DiscoveredExtension>();
  const shadowed: ShadowedExtension[] = [];
  const seenRoots = new Set<string>();
  const entryStats = new Map<DiscoveredExtension, Stats>();
  for (const root of roots) {
    let real: string;
    try {
      real = realpathSync(root.dir);
    } catch (error) {
      // An absent project or user folder is normal; an absent --extensions-dir is a mistake worth a word.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" || root.source === "flag") {
        problems.push({ path: root.dir, message: `cannot open extension folder ${root.dir}: ${describeFsError(error)} (skipped)` });
      }
      continue;
    }
    if (seenRoots.has(real)) continue; // the same folder named twice
    seenRoots.add(real);
    for (const found of scanRoot(root, real, maxFileBytes, problems, entryStats)) {
      const winner = winners.get(found.name);
      if (winner) shadowed.push({ ...found, shadowed_by: winner.file });
      else winners.set(found.name, found);
    }
  }
  const extensions = [...winners.values()].sort((a, b) => compareCodeUnits(a.name, b.name));
  const stats = new Map(extensions.map((e) => [e.file, entryStats.get(e)!]));
  return { extensions, shadowed, problems, stats };
}

function tryRealpath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** Every entry point under one root. Within a root, `x.lua` beats `x/init.lua` (Lua's own `require` order). */
function scanRoot(
  root: ExtensionRoot,
  realRoot: string,
  maxFileBytes: number,
  problems: DiscoveryProblem[],
  entryStats: Map<DiscoveredExtension, Stats>,
): DiscoveredExtension[] {
  const rootStat = tryStat(root.dir);
  if (!rootStat) return [];
  if (!rootStat.isDirectory()) {
    problems.push({ path: root.dir, message: `${root.dir} is not a folder; extensions go in a folder (skipped)` });
    return [];
  }
  const found = new Map<string, DiscoveredExtension>();
  const add = (ext: DiscoveredExtension): void => {
    const other = found.get(ext.name);
    if (!other) {
      found.set(ext.name, ext);
      return;
    }
    const [keep, drop] = other.file.endsWith("/init.lua") && !ext.file.endsWith("/init.lua") ? [ext, other] : [other, ext];
    found.set(ext.name, keep);
    problems.push({
      path: drop.file,
      message: `two files define extension "${ext.name}": ${keep.file} and ${drop.file}; using the first, rename or remove one`,
    });
  };
  const walked = { maxFileBytes, add, problems, entryStats };
  walk(root, root.dir, root.prefix === undefined ? [] : [root.prefix], new Set([realRoot]), walked);
  return [...found.values()];
}

/** What a walk of one root reports to: the size limit, where entry points go (with their stat), what was skipped. */
interface Walked {
  maxFileBytes: number;
  add: (ext: DiscoveredExtension) => void;
  problems: DiscoveryProblem[];
  entryStats: Map<DiscoveredExtension, Stats>;
}

function walk(root: ExtensionRoot, dir: string, parts: string[], ancestors: Set<string>, walked: Walked): void {
  const { maxFileBytes, add, problems } = walked;
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => compareCodeUnits(a.name, b.name));
  } catch (error) {
    problems.push({ path: dir, message: `cannot read extension folder ${dir}: ${describeFsError(error)} (skipped)` });
    return;
  }
  for (const entry of entries) {
    const name = entry.name;
    if (name.startsWith(".")) continue; // hidden files and folders (.git, editor state) are never extensions
    if (name.startsWith("_")) continue; // shared modules that the extensions beside them `require` (tool-cache.ts modulesOf)
    const path = join(dir, name);
    const isLua = name.endsWith(".lua");
    // A plain file not named .lua (the build's `.luac` beside each bundled one, a README) is no extension: not stat'ed.
    if (entry.isFile() && !isLua) continue;
    let stat: Stats | undefined;
    try {
      stat = statSync(path);
    } catch (error) {
      // A dangling or looping symlink, or a file that vanished: worth a word only if it looked like an extension.
      if (isLua || isLoop(error)) {
        const why = (error as NodeJS.ErrnoException).code === "ENOENT" ? "it is a symlink to a missing file" : describeFsError(error);
        problems.push({ path, message: `cannot open ${path}: ${why} (skipped)` });
      }
      continue;
    }
    if (stat.isDirectory()) {
      const real = tryRealpath(path) ?? path;
      if (ancestors.has(real)) {
        problems.push({ path, message: `symlink loop: ${path} leads back to ${real}, which is being scanned already (skipped)` });
        continue;
      }
      const childParts = [...parts, name];
      const init = join(path, "init.lua");
      const initStat = tryStat(init);
      if (initStat) {
        // A directory extension: its other files are its own modules, never extensions.
        const ext = entryPoint(root, childParts, init, initStat, maxFileBytes, problems);
        if (ext) {
          walked.entryStats.set(ext, initStat);
          add(ext);
        }
        continue;
      }
      walk(root, path, childParts, new Set([...ancestors, real]), walked);
    } else if (isLua && name.length > ".lua".length) {
      const ext = entryPoint(root, [...parts, name.slice(0, -".lua".length)], path, stat, maxFileBytes, problems);
      if (ext) {
        walked.entryStats.set(ext, stat);
        add(ext);
      }
    }
  }
}

function entryPoint(
  root: ExtensionRoot,
  parts: string[],
  file: string,
  stat: Stats,
  maxFileBytes: number,
  problems: DiscoveryProblem[],
): DiscoveredExtension | undefined {
  const name = parts.join(".");
  if (!stat.isFile()) {
    problems.push({ path: file, message: `extension "${name}": ${file} is not a regular file (skipped)` });
    return undefined;
  }
  if (stat.size > maxFileBytes) {
    problems.push({
      path: file,
      message: `extension "${name}": ${file} is ${formatBytes(stat.size)}, over the ${formatBytes(maxFileBytes)} limit for an extension file (skipped); an extension this large is almost certainly not Lua source`,
    });
    return undefined;
  }
  return { name, file, folder: root.dir, source: root.source };
}

function tryStat(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function isLoop(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === "ELOOP";
}

function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "ELOOP":
      return "symlink loop";
    case "ENOENT":
      return "it does not exist";
    case "ENOTDIR":
      return "not a folder";
    default:
      return code ? `${code} ${(error as Error).message}` : String(error);
  }
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} bytes`;
}
