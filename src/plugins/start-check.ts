/**
 * The installed plugins a run loads (docs/plugins.md, "Loading"): the enabled entries of the start index
 * (start-index.ts) whose files still match the recorded digest. A plugin whose files changed (edited by hand, a
 * file added or removed) is refused with the reason until it is reinstalled: nothing edits an installed plugin
 * silently. A plugin whose folders, files and links all have the stamp (size, mtime, ctime, inode) the index
 * recorded when its digest last matched is unchanged (a file added, removed or renamed changes its folder's mtime
 * and ctime; a write changes the file's ctime, which no user can set): that costs one `lstat` per entry and reads no
 * file. Otherwise every file of the package is hashed again, and the index records the new stamps if the digest
 * still matches. An index that is damaged or older than the lock file is rebuilt from the lock file, said once.
 *
 * Nothing here reads a manifest or runs a schema check: those ran at install, and the digest pins what they read.
 */
import { mkdirSync } from "node:fs";
import { relative, resolve, sep } from "node:path";
import { PackageFilesError, packageContent } from "./package-files.js";
import { partsOf, type PluginLayout, type PluginParts } from "./package-format.js";
import type { PluginPlaces } from "./plugin-mcp.js";
import { indexPath, lockPath, packageDir, pluginDataDir, readLock } from "./store.js";
import { indexFromLock, readIndex, sameStamp, stampOf, writeIndex, type CheckedPackage, type IndexEntry, type PluginIndex, type Stamp } from "./start-index.js";

/** A plugin whose parts this run loads. */
export interface StartPlugin {
  name: string;
  source: string;
  layout: PluginLayout;
  /** Installed for these project folders only. */
  projects?: string[];
  places: PluginPlaces;
  /** Absolute paths of its parts. */
  parts: PluginParts;
}

/** The run's plugins and what it says about the others. */
export interface StartPlugins {
  plugins: StartPlugin[];
  /** Why an installed plugin is not loaded, one line each: `plugin "x": ...`. */
  problems: string[];
  /** Names of plugins switched off. */
  disabled: string[];
  /** Other things said once: the start index was rebuilt, and why. */
  notices: string[];
}

const loaded = new Map<string, StartPlugins>();

/**
 * The plugins of this environment for work in `cwd` (checked once per process, data folder, folder and trust). A
 * plugin installed for a project loads only while that folder is `trusted`, like the folder's own extensions:
 * its review was of the package, the trust is of the folder that asks for it.
 */
export function installedPlugins(env: NodeJS.ProcessEnv, cwd: string, trusted: boolean): StartPlugins {
  const key = `${packageDir(env, "")}\0${cwd}`;
  let found = loaded.get(key);
  if (!found) {
    found = startPlugins(env, cwd);
    loaded.set(key, found);
  }
  return trusted ? found : withoutProjectPlugins(found);
}

/** `found` without the plugins installed for a project (its folder is not trusted), each said. */
function withoutProjectPlugins(found: StartPlugins): StartPlugins {
  const project = found.plugins.filter((p) => p.projects);
  if (project.length === 0) return found;
  return {
    ...found,
    plugins: found.plugins.filter((p) => !p.projects),
    problems: [...found.problems, ...project.map((p) => untrustedProblem(p.name))],
  };
}

function untrustedProblem(name: string): string {
  return `plugin "${name}": installed for this project, which is not trusted; not loaded (awl permissions trust)`;
}

/** Whether `entry` is for work in `cwd`: installed for the user, or for a project folder holding `cwd`. */
export function pluginAppliesTo(entry: { projects?: string[] }, cwd: string | undefined): boolean {
  if (!entry.projects || cwd === undefined) return true;
  const here = resolve(cwd);
  return entry.projects.some((folder) => here === folder || here.startsWith(folder.endsWith(sep) ? folder : folder + sep));
}

/**
 * Reads the start index and checks each enabled plugin's files against its digest (for work in `cwd`: a project's
 * plugins only in that folder, and only when it is `trusted`; without `cwd`, every plugin). Never throws.
 */
export function startPlugins(env: NodeJS.ProcessEnv, cwd?: string, trusted = true): StartPlugins {
  const out: StartPlugins = { plugins: [], problems: [], disabled: [], notices: [] };
  let opened: { index: PluginIndex; lock: Stamp; changed: boolean } | undefined;
  try {
    opened = openIndex(env, out.notices);
  } catch (error) {
    out.problems.push(`plugins: ${(error as Error).message}; no plugin is loaded`);
    return out;
  }
  if (!opened) return out;
  let { changed } = opened;
  for (const entry of opened.index.plugins) {
    if (!pluginAppliesTo(entry, cwd)) continue;
    if (!entry.enabled) {
      out.disabled.push(entry.name);
      continue;
    }
    if (entry.projects && !trusted) {
      out.problems.push(untrustedProblem(entry.name));
      continue;
    }
    const root = packageDir(env, entry.name);
    let checked = entry.checked;
    if (!checked || !treeUnchanged(root, checked.tree)) {
      const found = checkFiles(root, entry);
      if (typeof found === "string") {
        out.problems.push(`plugin "${entry.name}": ${found}; not loaded (awl install ${entry.source} reinstalls it, awl remove ${entry.name} removes it)`);
        continue;
      }
      entry.checked = checked = found;
      changed = true;
    }
    const parts: PluginParts = {};
    for (const [key, rel] of Object.entries(checked.parts) as Array<[keyof PluginParts, string]>) parts[key] = rel === "" ? root : `${root}/${rel}`;
    const data = pluginDataDir(env, entry.name);
    mkdirSync(data, { recursive: true });
    out.plugins.push({
      name: entry.name,
      source: entry.source,
      layout: entry.layout,
      ...(entry.projects && { projects: entry.projects }),
      places: { name: entry.name, layout: entry.layout, root, data },
      parts,
    });
  }
  if (changed) saveIndex(env, opened.index, opened.lock);
  return out;
}

/**
 * The start index, rebuilt from the lock file when it is missing, damaged or older (`changed`: it is to be
 * written); undefined when no plugin was ever installed. Throws an Error naming the file the lock file cannot be
 * read.
 */
function openIndex(env: NodeJS.ProcessEnv, notices: string[]): { index: PluginIndex; lock: Stamp; changed: boolean } | undefined {
  const lock = stampOf(lockPath(env));
  if (!lock) return undefined;
  const file = indexPath(env);
  const read = readIndex(file);
  if ("index" in read && sameStamp(read.index.lock, lock)) return { index: read.index, lock, changed: false };
  const entries = readLock(env).plugins;
  if ("damaged" in read) notices.push(`plugins: ${file}: ${read.damaged}; rebuilt from lock.json, every plugin's files checked again`);
  if ("index" in read) notices.push(`plugins: ${file} was older than lock.json (changed by hand, or an install was interrupted); rebuilt from it`);
  // A stale index still says rightly what was checked of a digest that did not change; a damaged one says nothing.
  return { index: indexFromLock(entries, lock, "index" in read ? read.index : undefined), lock, changed: true };
}

function treeUnchanged(root: string, tree: CheckedPackage["tree"]): boolean {
  for (const [rel, size, mtime, ctime, ino] of tree) {
    const stat = stampOf(rel === "" ? root : `${root}/${rel}`);
    if (!stat || !sameStamp(stat, [size, mtime, ctime, ino])) return false;
  }
  return true;
}

/** Hashes every file of the package at `root`: what was checked if it matches `entry`'s digest, else why not. */
function checkFiles(root: string, entry: IndexEntry): CheckedPackage | string {
  try {
    const tree: CheckedPackage["tree"] = [];
    const below = (path: string): string => relative(root, path).split(sep).join("/");
    const content = packageContent(root, undefined, (path, stat) => tree.push([below(path), stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino]));
    if (content.digest !== entry.digest) {
      return `its files changed since it was installed (${content.files} files now, ${entry.files} installed; digest ${content.digest.slice(0, 19)}… is not the reviewed ${entry.digest.slice(0, 19)}…)`;
    }
    const parts: CheckedPackage["parts"] = {};
    for (const [key, path] of Object.entries(partsOf(entry.layout, root)) as Array<[keyof PluginParts, string]>) parts[key] = below(path);
    return { parts, tree };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return `its files are missing (${root})`;
    if (error instanceof PackageFilesError) return error.message;
    return `its files cannot be read: ${(error as Error).message}`;
  }
}

/**
 * Records what this run checked, unless the lock file changed meanwhile (an install in another awl: its own index
 * is newer). A failure to write costs the next run a check again.
 */
function saveIndex(env: NodeJS.ProcessEnv, index: PluginIndex, lock: Stamp): void {
  try {
    const now = stampOf(lockPath(env));
    if (now && sameStamp(now, lock)) writeIndex(indexPath(env), index);
  } catch {
    // the next run checks again
  }
}
