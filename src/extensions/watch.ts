/**
 * Watching extension folders for saves (hot reload, SPEC §4), with chokidar (loaded only when watching starts:
 * the interactive mode does so once its prompt is drawn). Only `.lua` files and folders count: an extension
 * that writes a cache or a log into its own folder never triggers a reload. Saves that come in a burst (an
 * editor's temp file and rename, a formatter, `git checkout`) give one notice, after QUIET_MS without events.
 */
import { existsSync } from "node:fs";
import type { FSWatcher } from "chokidar";

/** The quiet time that ends a burst of file events: short enough to feel immediate, long enough for a rename dance. */
export const QUIET_MS = 60;

export interface FolderWatcher {
  close(): Promise<void>;
}

export interface WatchOptions {
  /** Called once per burst of changes under the folders. */
  onChange(): void;
  /** The watch could not be set up or broke (e.g. the system's limit of inotify watches): what and why. */
  onProblem(message: string): void;
  quietMs?: number;
}

/**
 * Watches `folders` recursively; resolves once the watch is in place. A folder that does not exist yet is watched
 * for its creation, but only once the others are watched: chokidar, given a missing path beside existing ones,
 * reports itself ready before the existing ones are watched, and a save made right then was lost.
 */
export async function watchFolders(folders: readonly string[], options: WatchOptions): Promise<FolderWatcher> {
  const { watch } = await import("chokidar");
  const quietMs = options.quietMs ?? QUIET_MS;
  let timer: NodeJS.Timeout | undefined;
  let reported = false;
  // The folders themselves may be hidden (`.awl`); what is hidden below them is not watched.
  const watched = new Set(folders);
  const existing = folders.filter((folder) => existsSync(folder));
  const missing = folders.filter((folder) => !existing.includes(folder));
  const watcher: FSWatcher = watch(existing.length > 0 ? existing : missing, {
    ignoreInitial: true,
    persistent: false,
    depth: 16,
    // Hidden entries are never extensions (discover.ts); other files than Lua are the extensions' own data.
    // config.json: extensions switched on and off (enablement.ts).
    ignored: (path, stats) =>
      (!watched.has(path) && /(^|\/)\.[^/]*$/.test(path)) || (stats?.isFile() === true && !path.endsWith(".lua") && !path.endsWith("/config.json")),
  });
  watcher.on("all", () => {
    clearTimeout(timer);
    timer = setTimeout(options.onChange, quietMs);
  });
  watcher.on("error", (error) => {
    if (reported) return;
    reported = true;
    options.onProblem(describeWatchError(error as NodeJS.ErrnoException));
  });
  await new Promise<void>((resolve) => watcher.once("ready", resolve));
  if (existing.length > 0 && missing.length > 0) watcher.add(missing);
  return {
    close: async () => {
      clearTimeout(timer);
      await watcher.close();
    },
  };
}

function describeWatchError(error: NodeJS.ErrnoException): string {
  const tail = "saved extensions are not picked up by themselves; /reload reloads them";
  if (error.code === "ENOSPC" || error.code === "EMFILE") {
    return `cannot watch the extension folders: the system's limit of file watches is reached (${error.code}; on Linux raise fs.inotify.max_user_watches); ${tail}`;
  }
  return `cannot watch the extension folders (${error.code ?? error.message}); ${tail}`;
}
