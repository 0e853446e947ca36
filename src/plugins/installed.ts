/**
 * The installed plugins a run loads (docs/plugins.md, "Loading"): the enabled entries of the lock file whose
 * files still match the recorded digest. A plugin whose files changed (edited by hand, a file added or removed)
 * is refused with the reason until it is reinstalled: nothing edits an installed plugin silently. A plugin whose
 * folders, files and links all have the size, mtime, ctime and inode recorded when its digest last matched is
 * unchanged (a file added, removed or renamed changes its folder's mtime and ctime; a write changes the file's
 * ctime, which no user can set): that costs one `lstat` per entry. Otherwise the package is walked and hashed again,
 * re-reading only files whose stamp changed. Stamps are kept in `~/.cache/awl/plugin-files.json`. Read once per
 * process.
 */
import { lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { userCacheDir } from "../config/paths.js";
import { FileDigests, type FileStamp } from "../trust/file-digests.js";
import { PluginFormatError, readPluginPackage, type PluginPackage } from "./manifest.js";
import { PackageFilesError, packageContent } from "./package-files.js";
import type { PluginPlaces } from "./plugin-mcp.js";
import { packageDir, pluginDataDir, readLock, type LockEntry } from "./store.js";

/** A plugin whose parts this run loads. */
export interface LoadedPlugin {
  entry: LockEntry;
  pkg: PluginPackage;
  places: PluginPlaces;
}

/** The run's plugins and why the others are not loaded. */
export interface InstalledPlugins {
  plugins: LoadedPlugin[];
  /** One line each: `plugin "x": ...`. */
  problems: string[];
  /** Names of plugins switched off. */
  disabled: string[];
}

const loaded = new Map<string, InstalledPlugins>();

/**
 * The plugins of this environment for work in `cwd` (read once per process, data folder, folder and trust). A
 * plugin installed for a project loads only while that folder is `trusted`, like the folder's own extensions:
 * its review was of the package, the trust is of the folder that asks for it.
 */
export function installedPlugins(env: NodeJS.ProcessEnv, cwd: string, trusted: boolean): InstalledPlugins {
  const key = `${packageDir(env, "")}\0${cwd}`;
  let found = loaded.get(key);
  if (!found) {
    found = checkInstalled(env, cwd);
    loaded.set(key, found);
  }
  return trusted ? found : withoutProjectPlugins(found);
}

/** `found` without the plugins installed for a project (its folder is not trusted), each said. */
function withoutProjectPlugins(found: InstalledPlugins): InstalledPlugins {
  const project = found.plugins.filter((p) => p.entry.projects);
  if (project.length === 0) return found;
  return {
    ...found,
    plugins: found.plugins.filter((p) => !p.entry.projects),
    problems: [...found.problems, ...project.map((p) => untrustedProblem(p.entry.name))],
  };
}

function untrustedProblem(name: string): string {
  return `plugin "${name}": installed for this project, which is not trusted; not loaded (awl permissions trust)`;
}

/** Whether `entry` is for work in `cwd`: installed for the user, or for a project folder holding `cwd`. */
export function pluginAppliesTo(entry: LockEntry, cwd: string | undefined): boolean {
  if (!entry.projects || cwd === undefined) return true;
  const here = resolve(cwd);
  return entry.projects.some((folder) => here === folder || here.startsWith(folder.endsWith(sep) ? folder : folder + sep));
}

/**
 * Reads the lock file and checks each enabled plugin's files against its digest (for work in `cwd`: a project's
 * plugins only in that folder, and only when it is `trusted`; without `cwd`, every plugin). Never throws.
 */
export function checkInstalled(env: NodeJS.ProcessEnv, cwd?: string, trusted = true): InstalledPlugins {
  const out: InstalledPlugins = { plugins: [], problems: [], disabled: [] };
  let entries: LockEntry[];
  try {
    entries = Object.values(readLock(env).plugins).filter((e) => pluginAppliesTo(e, cwd)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (error) {
    out.problems.push(`plugins: ${(error as Error).message}; no plugin is loaded`);
    return out;
  }
  if (entries.length === 0) return out;
  const stampsFile = join(userCacheDir(env), "plugin-files.json");
  const known = readStamps(stampsFile);
  const files = new FileDigests(known.files);
  const trees: Record<string, TreeStamp> = {};
  for (const entry of entries) {
    if (!entry.enabled) {
      out.disabled.push(entry.name);
      continue;
    }
    if (entry.projects && !trusted) {
      out.problems.push(untrustedProblem(entry.name));
      continue;
    }
    const root = packageDir(env, entry.name);
    const problem = verify(root, entry, files, known.trees[root], (tree) => (trees[root] = tree));
    if (problem) {
      out.problems.push(`plugin "${entry.name}": ${problem}; not loaded (awl install ${entry.source} reinstalls it, awl remove ${entry.name} removes it)`);
      continue;
    }
    let pkg: PluginPackage;
    try {
      pkg = readPluginPackage(root);
    } catch (error) {
      out.problems.push(`plugin "${entry.name}": ${(error as Error).message}; not loaded`);
      continue;
    }
    const data = pluginDataDir(env, entry.name);
    mkdirSync(data, { recursive: true });
    out.plugins.push({ entry, pkg, places: { name: entry.name, layout: pkg.layout, root, data } });
  }
  // Written only when a stamp changed: an unchanged start writes nothing.
  const next: Stamps = { version: STAMPS_VERSION, trees, files: files.stamps() };
  if (JSON.stringify(next) !== JSON.stringify(known)) writeStamps(stampsFile, next);
  return out;
}

/** What a plugin's folder looked like when its digest last matched: each entry's `[path, size, mtimeMs, ctimeMs, ino]`. */
interface TreeStamp {
  digest: string;
  entries: Array<[string, number, number, number, number]>;
}

interface Stamps {
  version: number;
  trees: Record<string, TreeStamp>;
  files: Record<string, FileStamp>;
}

const STAMPS_VERSION = 1;

function unchanged(tree: TreeStamp | undefined, digest: string): boolean {
  if (!tree || tree.digest !== digest) return false;
  return tree.entries.every(([path, size, mtime, ctime, ino]) => {
    const stat = lstatSync(path, { throwIfNoEntry: false });
    return stat !== undefined && stat.size === size && stat.mtimeMs === mtime && stat.ctimeMs === ctime && stat.ino === ino;
  });
}

function verify(root: string, entry: LockEntry, files: FileDigests, tree: TreeStamp | undefined, keep: (tree: TreeStamp) => void): string | undefined {
  if (unchanged(tree, entry.digest)) {
    keep(tree!);
    return undefined;
  }
  try {
    const entries: TreeStamp["entries"] = [];
    const content = packageContent(root, files, (path, stat) => entries.push([path, stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino]));
    if (content.digest === entry.digest) keep({ digest: entry.digest, entries });
    if (content.digest !== entry.digest) return `its files changed since it was installed (${content.files} files now, ${entry.files} installed; digest ${content.digest.slice(0, 19)}… is not the reviewed ${entry.digest.slice(0, 19)}…)`;
    return undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return `its files are missing (${root})`;
    if (error instanceof PackageFilesError || error instanceof PluginFormatError) return error.message;
    return `its files cannot be read: ${(error as Error).message}`;
  }
}

function readStamps(file: string): Stamps {
  try {
    const value = JSON.parse(readFileSync(file, "utf8")) as Stamps;
    if (value.version === STAMPS_VERSION && typeof value.trees === "object" && typeof value.files === "object") return value;
  } catch {
    // none yet, or unreadable: everything is checked again
  }
  return { version: STAMPS_VERSION, trees: {}, files: {} };
}

function writeStamps(file: string, stamps: Stamps): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(stamps));
    renameSync(temporary, file);
  } catch {
    // a cache: the next start hashes again
  }
}
