/**
 * Watching extension folders for saves (hot reload, SPEC §4), with chokidar (loaded only when watching starts:
 * the interactive mode does so once its prompt is drawn). Only `.lua` files and folders count: an extension
 * that writes a cache or a log into its own folder never triggers a reload. Saves that come in a burst (an
 * editor's temp file and rename, a formatter, `git checkout`) give one notice, after QUIET_MS without events.
 * Other folders can ride on the same watcher ({@link WatchGroup}: the skills, prompt commands and sub-agent
 * definitions, docs/skills.md), each group with its own files and its own notice: awl keeps one watcher.
 */
import { existsSync } from "node:fs";
import { basename, dirname, sep } from "node:path";
import type { FSWatcher } from "chokidar";

/** The quiet time that ends a burst of file events: short enough to feel immediate, long enough for a rename dance. */
export const QUIET_MS = 60;

export interface FolderWatcher {
  close(): Promise<void>;
}

/** More folders for the same watcher: which of their files count, and whom a burst of changes is told. */
export interface WatchGroup {
  folders: readonly string[];
  /** Whether a file below the folders counts (hidden entries never do). */
  accept(path: string): boolean;
  onChange(): void;
}

export interface WatchOptions {
  /** Called once per burst of changes under the folders. */
  onChange(): void;
  /** Other folders watched by the same watcher, each with its own files and notice. */
  groups?: readonly WatchGroup[];
  /** The watch could not be set up or broke (e.g. the system's limit of inotify watches): what and why. */
  onProblem(message: string): void;
  quietMs?: number;
}

/**
 * Watches `folders` recursively; resolves once the watch is in place. A folder that does not exist yet (a new
 * user's `~/.config/awl`) is watched through its nearest existing parent, along the path to it only, so it is seen
 * when it appears, with whatever is written into it (chokidar does not watch a path that does not exist).
 */
export async function watchFolders(folders: readonly string[], options: WatchOptions): Promise<FolderWatcher> {
  const { watch } = await import("chokidar");
  const quietMs = options.quietMs ?? QUIET_MS;
  let reported = false;
  // Hidden entries are never extensions (discover.ts); other files than Lua are the extensions' own data.
  // config.json: extensions switched on and off (enablement.ts).
  const extensions: WatchGroup = { folders, accept: (path) => path.endsWith(".lua") || path.endsWith("/config.json"), onChange: options.onChange };
  const groups = [extensions, ...(options.groups ?? [])];
  const timers = new Map<WatchGroup, NodeJS.Timeout>();
  const all = groups.flatMap((g) => g.folders);
  const roots = [...new Set(all.map(nearestExisting))];
  const owners = (path: string): WatchGroup[] => groups.filter((g) => g.folders.some((f) => path === f || path.startsWith(f + sep)));
  const watcher: FSWatcher = watch(roots, {
    ignoreInitial: true,
    persistent: false,
    depth: 16,
    ignored: (path, stats) => {
      // Above every folder: only the way down to them (a parent of a folder yet to be made).
      if (!all.some((f) => path === f || path.startsWith(f + sep))) return !all.some((f) => f.startsWith(path + sep));
      // The folders themselves may be hidden (`.awl`); what is hidden below them is not watched.
      if (all.includes(path)) return false;
      if (basename(path).startsWith(".")) return true;
      return stats?.isFile() === true && !owners(path).some((g) => g.accept(path));
    },
  });
  watcher.on("all", (event, path) => {
    const folderEvent = event === "addDir" || event === "unlinkDir";
    for (const group of groups) {
      // A folder made or removed above a group's folders is news for it, as is one of its own files or folders.
      const above = group.folders.some((f) => f.startsWith(path + sep));
      const below = group.folders.some((f) => path === f || path.startsWith(f + sep));
      if (!above && !(below && (folderEvent || group.accept(path)))) continue;
      clearTimeout(timers.get(group));
      timers.set(group, setTimeout(group.onChange, quietMs));
    }
  });
  watcher.on("error", (error) => {
    if (reported) return;
    reported = true;
    options.onProblem(describeWatchError(error as NodeJS.ErrnoException));
  });
  await new Promise<void>((resolve) => watcher.once("ready", resolve));
  return {
    close: async () => {
      for (const timer of timers.values()) clearTimeout(timer);
      await watcher.close();
    },
  };
}

/** `path` if it exists, else its nearest parent that does. */
function nearestExisting(path: string): string {
  let at = path;
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  return at;
}

function describeWatchError(error: NodeJS.ErrnoException): string {
  const tail = "saved extensions are not picked up by themselves; /reload reloads them";
  if (error.code === "ENOSPC" || error.code === "EMFILE") {
    return `cannot watch the extension folders: the system's limit of file watches is reached (${error.code}; on Linux raise fs.inotify.max_user_watches); ${tail}`;
  }
  return `cannot watch the extension folders (${error.code ?? error.message}); ${tail}`;
}
