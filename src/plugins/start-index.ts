/**
 * The start index of the installed plugins (docs/plugins.md, "Start index"): `plugins/index.json`, beside the lock
 * file, is all a run reads to know which plugins it loads and where their parts are. Every change of the lock file
 * writes it (store.ts); a run adds what it checked. For each plugin it holds the lock entry's name, source, layout,
 * digest and state and, once the package's files were last found to match the digest, `checked`: the package's
 * parts (paths below its folder) and every folder's, file's and link's `[path, size, mtimeMs, ctimeMs, inode]`.
 *
 * Never trusted blindly: the file carries a sha256 of its own body (a hand-edit or a torn write is "damaged") and
 * the lock file's `[size, mtimeMs, ctimeMs, inode]` it was made from (a lock file changed since, by hand or by an
 * install killed between the two writes, makes it "stale"); either way the run rebuilds it from the lock file.
 * Written as `{"check":"sha256:…","index":{…}}` on one line.
 */
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { PluginLayout, PluginParts } from "./package-format.js";

export const INDEX_VERSION = 1;

/** `[size, mtimeMs, ctimeMs, inode]` of a file: a write changes its ctime, which no user can set. */
export type Stamp = [number, number, number, number];

/** One folder, file or link of a package: its path below the package's folder (`""`: the folder itself) and stamp. */
export type TreeStamp = [string, ...Stamp];

/** What a run found when the package's files last matched the digest. */
export interface CheckedPackage {
  /** Each part's path below the package's folder (`""`: the folder itself). */
  parts: { [K in keyof PluginParts]?: string };
  tree: TreeStamp[];
}

/** One installed plugin, as a run needs it. */
export interface IndexEntry {
  name: string;
  /** The SOURCE it was installed from (named in the messages). */
  source: string;
  layout: PluginLayout;
  digest: string;
  /** How many files the digest covers. */
  files: number;
  enabled: boolean;
  projects?: string[];
  checked?: CheckedPackage;
}

export interface PluginIndex {
  version: number;
  /** The lock file's stamp when this index was made from it. */
  lock: Stamp;
  /** By name. */
  plugins: IndexEntry[];
}

/** What reading the index found. */
export type IndexRead = { index: PluginIndex } | { absent: true } | { damaged: string };

/** The stamp of `file`; undefined when it does not exist (other faults throw). */
export function stampOf(file: string): Stamp | undefined {
  const stat = lstatSync(file, { throwIfNoEntry: false });
  return stat && [stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino];
}

export function sameStamp(a: readonly number[], b: readonly number[]): boolean {
  return a[0] === b[0] && a[1] === b[1] && a[2] === b[2] && a[3] === b[3];
}

const PREFIX = '{"check":"sha256:';
const HEX = 64;
const INFIX = '","index":';

const digestOf = (body: string): string => createHash("sha256").update(body).digest("hex");

/** Reads the index at `file`, checking its sum and its shape. Never throws. */
export function readIndex(file: string): IndexRead {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { absent: true };
    return { damaged: `cannot be read (${(error as NodeJS.ErrnoException).code})` };
  }
  const start = PREFIX.length + HEX + INFIX.length;
  if (!text.startsWith(PREFIX) || text.slice(PREFIX.length + HEX, start) !== INFIX || !text.endsWith("}\n")) return { damaged: "not an awl plugin index" };
  const body = text.slice(start, -2);
  if (digestOf(body) !== text.slice(PREFIX.length, PREFIX.length + HEX)) return { damaged: "its content does not match its check sum (edited by hand, or cut short)" };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { damaged: "not valid JSON" };
  }
  return isIndex(value) ? { index: value } : { damaged: `not an awl plugin index of version ${INDEX_VERSION}` };
}

/** Writes `index` to `file` (a temporary file renamed into place: a reader sees the old or the new one). */
export function writeIndex(file: string, index: PluginIndex): void {
  const body = JSON.stringify(index);
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${PREFIX}${digestOf(body)}${INFIX}${body}}\n`);
  renameSync(temporary, file);
}

/** The fields of a lock entry the index copies. */
export type IndexedLockEntry = Omit<IndexEntry, "checked">;

/**
 * The index of `plugins` (the lock file's entries, the lock file stamped `lock`). An entry of `previous` with the
 * same name and digest keeps what was checked of it: those stamps were taken of files that matched that digest.
 */
export function indexFromLock(plugins: Record<string, IndexedLockEntry>, lock: Stamp, previous?: PluginIndex): PluginIndex {
  const before = new Map((previous?.plugins ?? []).map((e) => [e.name, e]));
  const entries = Object.values(plugins)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(({ name, source, layout, digest, files, enabled, projects }): IndexEntry => {
      const old = before.get(name);
      return { name, source, layout, digest, files, enabled, ...(projects && { projects }), ...(old?.digest === digest && old.checked && { checked: old.checked }) };
    });
  return { version: INDEX_VERSION, lock, plugins: entries };
}

const LAYOUTS = new Set<string>(["agent-plugins", "claude-code", "lua-folder", "lua-rock"]);
const PARTS = new Set<string>(["extensionsDir", "skillsDir", "commandsDir", "agentsDir", "luaDir", "mcpFile", "hooksFile"]);
/** A name is one path segment; a part's path stays below the package's folder. */
const NAME = /^(?!\.\.?$)[^/\\\0]+$/;
const isRelative = (path: unknown): boolean => typeof path === "string" && !path.startsWith("/") && !path.split("/").includes("..");
const isStamp = (value: unknown, from = 0): boolean =>
  Array.isArray(value) && value.length === from + 4 && value.slice(from).every((n) => typeof n === "number" && Number.isFinite(n));

function isIndex(value: unknown): value is PluginIndex {
  const index = value as PluginIndex;
  return typeof index === "object" && index !== null && index.version === INDEX_VERSION && isStamp(index.lock) && Array.isArray(index.plugins) && index.plugins.every(isEntry);
}

function isEntry(entry: IndexEntry): boolean {
  if (typeof entry !== "object" || entry === null) return false;
  if (typeof entry.name !== "string" || !NAME.test(entry.name) || typeof entry.source !== "string" || !LAYOUTS.has(entry.layout)) return false;
  if (typeof entry.digest !== "string" || typeof entry.files !== "number" || typeof entry.enabled !== "boolean") return false;
  if (entry.projects !== undefined && !(Array.isArray(entry.projects) && entry.projects.every((p) => typeof p === "string"))) return false;
  if (entry.checked === undefined) return true;
  const { parts, tree } = entry.checked;
  if (typeof parts !== "object" || parts === null || !Object.entries(parts).every(([k, v]) => PARTS.has(k) && isRelative(v))) return false;
  return Array.isArray(tree) && tree.every((t) => isRelative(t[0]) && isStamp(t, 1));
}
