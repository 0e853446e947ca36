/**
 * Watching extension folders for saves (hot reload, SPEC §4), with chokidar (loaded only when watching starts:
 * the interactive mode does so once its prompt is drawn). Only `.lua` files and folders count: an extension
 * that writes a cache or a log into its own folder never triggers a reload. Saves that come in a burst (an
 * editor's temp file and rename, a formatter, `git checkout`) give one notice, after QUIET_MS without events.
 */
import { existsSync } from "node:fs";
import { basename, dirname, sep } from "node:path";
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
 * Watches `folders` recursively; resolves once the watch is in place. A folder that does not exist yet (a new
 * user's `~/.config/awl`) is watched through its nearest existing parent, along the path to it only, so it is seen
 * when it appears, with whatever is written into it (chokidar does not watch a path that does not exist).
 */
export async function watchFolders(folders: readonly string[], options: WatchOptions): Promise<FolderWatcher> {
  const { watch } = await import("chokidar");
  const quietMs = options.quietMs ?? QUIET_MS;
  let timer: NodeJS.Timeout | undefined;
  let reported = false;
  const roots = [...new Set(folders.map(nearestExisting))];
  const watcher: FSWatcher = watch(roots, {
    ignoreInitial: true,
    persistent: false,
    depth: 16,
    ignored: (path, stats) => {
      const folder = folders.find((f) => path === f || path.startsWith(f + sep));
      // Above a folder: only the way down to it (a parent of a folder yet to be made).
      if (folder === undefined) return !folders.some((f) => f.startsWith(path + sep));
      // The folders themselves may be hidden (`.awl`); what is hidden below them is not watched. Hidden entries are
      // never extensions (discover.ts); other files than Lua are the extensions' own data. config.json: extensions
      // switched on and off (enablement.ts).
      if (path === folder) return false;
      return basename(path).startsWith(".") || (stats?.isFile() === true && !path.endsWith(".lua") && !path.endsWith("/config.json"));
    },
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
  return {
    close: async () => {
      clearTimeout(timer);
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
