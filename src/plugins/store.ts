/**
 * Where installed plugins live and the lock file that records them (docs/plugins.md, "Lock file"), under
 * awl's data folder (`~/.local/share/awl/plugins/`):
 *
 *     lock.json            { "version": 1, "plugins": { NAME: LockEntry } }
 *     index.json           what a run reads instead (start-index.ts), rewritten with every change of lock.json
 *     packages/NAME/       the files the package shipped (replaced whole by an update)
 *     data/NAME/           ${PLUGIN_DATA}: the plugin's own files (kept across updates, removed with it)
 *     .staging-XXXX/       an install being unpacked (never read; removed by the next install)
 *
 * An install unpacks and checks the package in a staging folder, moves it into `packages/` with one rename and
 * only then records it in the lock file (written to a temporary file and renamed). A process killed at any point
 * leaves either the old state or a folder the lock file does not name, which is never loaded.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { awlDataDir } from "../config/paths.js";
import { isRunning, withFileLockSync } from "../util/file-lock.js";
import type { PluginLayout } from "./package-format.js";
import { indexFromLock, readIndex, stampOf, writeIndex } from "./start-index.js";
import type { PluginSummary } from "./summary.js";
import { testPause } from "./test-pause.js";

export const LOCK_VERSION = 1;

/** How a plugin was installed. */
export type SourceKind = "path" | "tarball" | "git" | "npm" | "luarocks";

/** One installed plugin, as the lock file records it. */
export interface LockEntry {
  name: string;
  /** The SOURCE as given to `awl install` (a path made absolute), for `awl update`. */
  source: string;
  kind: SourceKind;
  /** The exact commit (git) or version (npm, luarocks) installed. */
  resolved?: string;
  /** The manifest's version. */
  version?: string;
  layout: PluginLayout;
  /** `sha256:...` of the package's files (package-files.ts); a load of different files is refused. */
  digest: string;
  files: number;
  bytes: number;
  enabled: boolean;
  /** Installed for these project folders only (`awl install --project`); absent: for the user, everywhere. */
  projects?: string[];
  installed_at: string;
  /** What the user reviewed and accepted. */
  summary: PluginSummary;
}

export interface LockFile {
  version: number;
  plugins: Record<string, LockEntry>;
}

/** `~/.local/share/awl/plugins`. */
export function pluginsHome(env: NodeJS.ProcessEnv): string {
  return join(awlDataDir(env), "plugins");
}

/** The installed files of `name`. */
export function packageDir(env: NodeJS.ProcessEnv, name: string): string {
  return join(pluginsHome(env), "packages", name);
}

/** `${PLUGIN_DATA}` of `name`. */
export function pluginDataDir(env: NodeJS.ProcessEnv, name: string): string {
  return join(pluginsHome(env), "data", name);
}

export function lockPath(env: NodeJS.ProcessEnv): string {
  return join(pluginsHome(env), "lock.json");
}

/** The start index (start-index.ts). */
export function indexPath(env: NodeJS.ProcessEnv): string {
  return join(pluginsHome(env), "index.json");
}

/** The lock file; an absent one is empty. Throws an Error naming the file when it cannot be read. */
export function readLock(env: NodeJS.ProcessEnv): LockFile {
  const file = lockPath(env);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { version: LOCK_VERSION, plugins: {} };
    throw new Error(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file}: not valid JSON (${(error as Error).message}); fix or remove it (awl reinstalls nothing by itself)`);
  }
  const lock = value as Partial<LockFile>;
  if (typeof lock !== "object" || lock === null || lock.version !== LOCK_VERSION || typeof lock.plugins !== "object" || lock.plugins === null) {
    throw new Error(`${file}: not an awl plugin lock file of version ${LOCK_VERSION}`);
  }
  return lock as LockFile;
}

/**
 * Changes the lock file under a lock (another awl may be installing too), writing it atomically, then the start
 * index made from it (keeping what runs checked of the plugins whose digest did not change).
 */
export function changeLock<T>(env: NodeJS.ProcessEnv, change: (lock: LockFile) => T): T {
  const file = lockPath(env);
  mkdirSync(pluginsHome(env), { recursive: true });
  return withFileLockSync(file, () => {
    const lock = readLock(env);
    const result = change(lock);
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(lock, null, 2)}\n`);
    renameSync(temporary, file);
    testPause("lock-written", env);
    const previous = readIndex(indexPath(env));
    writeIndex(indexPath(env), indexFromLock(lock.plugins, stampOf(file)!, "index" in previous ? previous.index : undefined));
    return result;
  });
}

/**
 * A fresh staging folder for an install (`.staging-PID-XXXXXX`); leftovers of installs whose process is gone (a
 * killed install) are removed first, never those of another install still running.
 */
export function newStaging(env: NodeJS.ProcessEnv): string {
  const home = pluginsHome(env);
  mkdirSync(home, { recursive: true });
  for (const name of readdirSync(home)) {
    const owner = /^\.(?:staging|replaced)-(\d+)-/.exec(name)?.[1];
    if (owner !== undefined && !isRunning(Number(owner))) rmSync(join(home, name), { recursive: true, force: true });
  }
  return mkdtempSync(join(home, `.staging-${process.pid}-`));
}

/**
 * Puts the checked package at `root` (inside a staging folder) in place of `name`'s files and records `entry`;
 * the data folder is created if missing and never touched otherwise.
 */
export function commitInstall(env: NodeJS.ProcessEnv, root: string, entry: LockEntry): void {
  const target = packageDir(env, entry.name);
  mkdirSync(join(pluginsHome(env), "packages"), { recursive: true });
  mkdirSync(pluginDataDir(env, entry.name), { recursive: true });
  let replaced: string | undefined;
  if (existsSync(target)) {
    replaced = mkdtempSync(join(pluginsHome(env), `.replaced-${process.pid}-`));
    renameSync(target, join(replaced, "old"));
    testPause("old-moved-aside", env);
  }
  renameSync(root, target);
  testPause("new-in-place", env);
  changeLock(env, (lock) => {
    lock.plugins[entry.name] = entry;
  });
  if (replaced) rmSync(replaced, { recursive: true, force: true });
}

/** Removes `name`'s files, its data folder and its lock entry. False when it is not installed. */
export function removeInstalled(env: NodeJS.ProcessEnv, name: string): boolean {
  const known = changeLock(env, (lock) => {
    const had = Object.hasOwn(lock.plugins, name);
    delete lock.plugins[name];
    return had;
  });
  rmSync(packageDir(env, name), { recursive: true, force: true });
  rmSync(pluginDataDir(env, name), { recursive: true, force: true });
  return known;
}

/** Makes `name` apply to every folder (`"user"`) or to one more project folder; the entry, or undefined. */
export function widenScope(env: NodeJS.ProcessEnv, name: string, scope: "user" | { project: string }): LockEntry | undefined {
  return changeLock(env, (lock) => {
    const entry = lock.plugins[name];
    if (!entry?.projects) return entry;
    if (scope === "user") delete entry.projects;
    else if (!entry.projects.includes(scope.project)) entry.projects.push(scope.project);
    return entry;
  });
}

/** Switches `name` on or off; false when it is not installed. */
export function setEnabled(env: NodeJS.ProcessEnv, name: string, enabled: boolean): boolean {
  return changeLock(env, (lock) => {
    const entry = lock.plugins[name];
    if (!entry) return false;
    entry.enabled = enabled;
    return true;
  });
}
