/**
 * Which folders of a workspace changed since the last scan, as the file system reports them (docs/checkpoints.md,
 * "The watch"): one `fs.watch` per folder the scan records (never the recursive option, so an ignored folder such as
 * `node_modules` is never watched), held by the long-lived checkpoint worker, the way git's fsmonitor works. A
 * folder with an event is read again by the next scan; the others are taken as last recorded.
 *
 * It says when the next scan must read everything instead: when a watch failed (the system's limit of watches, an
 * error), when an ignore file changed, and when so many events came that inotify's queue could have overflowed
 * (Node drops the overflow event, but every event queued before it is delivered: counting them is enough).
 */
import * as fs from "node:fs";
import { join } from "node:path";

/** What the next scan reads: everything (and why), or the folders with events. */
export type WatchedChanges = { all: string } | { all?: undefined; folders: ReadonlySet<string> };

/** Events since the last full scan from which the queue could have overflowed: half of inotify's queue. */
export function overflowMargin(): number {
  return Math.floor((inotifySetting("max_queued_events") ?? 16_384) / 2);
}

/**
 * Folders awl watches at most: half of the system's watches per user (`fs.inotify.max_user_watches`), so the editors
 * and tools that watch the same user's files keep the other half.
 */
export function watchCap(): number {
  return Math.floor((inotifySetting("max_user_watches") ?? 8_192) / 2);
}

/** A positive number of `/proc/sys/fs/inotify/` (undefined where there is none: not Linux). */
function inotifySetting(name: string): number | undefined {
  try {
    const value = Number(fs.readFileSync(`/proc/sys/fs/inotify/${name}`, "utf8").trim());
    return Number.isInteger(value) && value > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

/** How long `settle` waits for its own event before taking the watch as not working (this checkpoint reads everything). */
const SETTLE_MS = 2_000;

export class FolderWatch {
  /** Folder (from the root, `""` the root) → its watcher. */
  private readonly watchers = new Map<string, fs.FSWatcher>();
  private dirty = new Set<string>();
  private events = 0;
  private rulesChanged = false;
  /** A `settle` whose event did not come: the next scan reads everything. */
  private unsettled = false;
  /** Why the watch cannot be trusted; set once, from then on every scan reads everything. */
  private failure: string | undefined;
  /** Said once to whoever reports it (the worker's notices). */
  private failureTold = false;
  private readonly sentinel: { dir: string; watcher: fs.FSWatcher } | undefined;
  private token = 0;
  private waiting: { name: string; done: () => void } | undefined;

  constructor(
    /** A private folder of this process's for `settle`'s own file (outside every workspace). */
    sentinelDir: string,
    /** Whether a change of this entry name changes the ignore rules (every folder below is read again). */
    private readonly isRuleFile: (name: string) => boolean,
    /** Events since the last full scan from which it is taken as overflowed (overflowMargin). */
    private readonly margin: number = overflowMargin(),
    /** Folders watched at most (watchCap); past it every scan reads everything. */
    private readonly cap: number = watchCap(),
  ) {
    let sentinel: FolderWatch["sentinel"];
    try {
      fs.mkdirSync(sentinelDir, { recursive: true, mode: 0o700 });
      const watcher = fs.watch(sentinelDir, { persistent: false }, (_type, name) => {
        if (name !== null && name === this.waiting?.name) this.waiting.done();
      });
      watcher.on("error", (e) => this.fail(`the watch's own folder failed (${codeOf(e)})`));
      sentinel = { dir: sentinelDir, watcher };
    } catch (e) {
      this.fail(`no file-system watch (${codeOf(e)})`);
    }
    this.sentinel = sentinel;
  }

  /** Watches folder `rel` (before it is read, so nothing changed after its reading is missed); `renew` replaces a watcher it has. */
  add(rel: string, abs: string, renew: boolean): void {
    if (this.failure !== undefined) return;
    const had = this.watchers.get(rel);
    if (had && !renew) return;
    had?.close();
    if (!had && this.watchers.size >= this.cap) {
      this.fail(`the workspace has more than ${this.cap} folders to watch (half of fs.inotify.max_user_watches, the rest left to other programs)`);
      return;
    }
    try {
      const watcher = fs.watch(abs, { persistent: false }, (_type, name) => {
        this.events++;
        this.dirty.add(rel);
        // The next scan reads everything anyway: a settle under way need not wait for its own event (an overflow lost it).
        if (this.events >= this.margin) this.waiting?.done();
        if (name !== null && this.isRuleFile(name)) this.rulesChanged = true;
      });
      watcher.on("error", (e) => this.fail(`the watch of ${rel === "" ? "the workspace" : rel} failed (${codeOf(e)})`));
      this.watchers.set(rel, watcher);
    } catch (e) {
      this.watchers.delete(rel);
      const code = codeOf(e);
      // Gone, or not readable: the scan finds the same and records it so (the folder above is watched).
      if (code === "ENOENT" || code === "ENOTDIR" || code === "EACCES" || code === "EPERM") return;
      this.fail(code === "ENOSPC" ? "the system's limit of watches is reached (fs.inotify.max_user_watches)" : `could not watch ${rel === "" ? "the workspace" : rel} (${code})`);
    }
  }

  /** Stops watching folder `rel` and every folder below it (gone, or now ignored). */
  drop(rel: string): void {
    const below = `${rel}/`;
    for (const [at, watcher] of this.watchers) {
      if (at === rel || rel === "" || at.startsWith(below)) {
        watcher.close();
        this.watchers.delete(at);
      }
    }
  }

  /** After a full scan: drops the watchers of folders it did not meet, and starts counting events again. */
  fullScanDone(met: ReadonlySet<string>): void {
    for (const [at, watcher] of this.watchers) {
      if (met.has(at)) continue;
      watcher.close();
      this.watchers.delete(at);
    }
    this.events = 0;
    this.rulesChanged = false;
  }

  /**
   * Waits until every event of a change made before this call has been seen: a file is created in the watch's own
   * folder, and inotify delivers one instance's events in order, so when its event comes the earlier ones have come.
   * False when it did not come (the next scan then reads everything).
   */
  settle(): Promise<boolean> {
    const sentinel = this.sentinel;
    if (this.failure !== undefined || !sentinel) return Promise.resolve(false);
    const name = `s${++this.token}`;
    return new Promise((resolve) => {
      const finish = (seen: boolean): void => {
        clearTimeout(timer);
        if (!seen) this.unsettled = true;
        this.waiting = undefined;
        fs.rmSync(join(sentinel.dir, name), { force: true });
        resolve(seen);
      };
      const timer = setTimeout(() => finish(false), SETTLE_MS);
      this.waiting = { name, done: () => finish(true) };
      try {
        fs.writeFileSync(join(sentinel.dir, name), "");
      } catch (e) {
        this.fail(`the watch's own folder cannot be written (${codeOf(e)})`);
        finish(false);
      }
    });
  }

  /** What the next scan must read (the folders with events are forgotten: a later event names them again). */
  take(): WatchedChanges {
    const folders = this.dirty;
    this.dirty = new Set();
    const unsettled = this.unsettled;
    this.unsettled = false;
    if (this.failure !== undefined) return { all: this.failure };
    if (this.rulesChanged) return { all: "an ignore file changed" };
    if (this.events >= this.margin) return { all: `${this.events} events since the last full scan (inotify's queue may have overflowed)` };
    if (unsettled) return { all: "the watch did not answer in time" };
    return { folders };
  }

  /** Why the watch stopped, the first time it is asked after it did. */
  newFailure(): string | undefined {
    if (this.failure === undefined || this.failureTold) return undefined;
    this.failureTold = true;
    return this.failure;
  }

  close(): void {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
    if (this.sentinel) {
      this.sentinel.watcher.close();
      fs.rmSync(this.sentinel.dir, { recursive: true, force: true });
    }
  }

  private fail(why: string): void {
    if (this.failure !== undefined) return;
    this.failure = why;
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }
}

function codeOf(e: unknown): string {
  return (e as { code?: string }).code ?? String(e);
}
