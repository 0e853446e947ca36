/**
 * The checkpoint store (docs/checkpoints.md), under awl's data folder, never in the user's git: the shared objects,
 * each workspace's scan index, and each session's checkpoints, one JSON line per checkpoint in
 * `sessions/<session id>.jsonl`. Library API, synchronous (the CLI runs it in a worker: checkpoint-worker.ts).
 */
import { createHash, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import { join, resolve } from "node:path";
import { awlDataDir } from "../config/paths.js";
import { ObjectStore, StoreWriteError } from "./objects.js";
import { DEFAULT_LIMITS, IGNORE_FILES, Scanner, TooManyFiles, type IndexEntry, type ScanLimits, type Skipped } from "./scan.js";
import { FolderWatch } from "./folder-watch.js";

/** What a checkpoint was taken before: a turn, a batch of tools that can write or run commands, a rewind; or after a turn's tools (`end`). */
export type CheckpointWhen = "turn" | "tools" | "end" | "rewind";

/** One checkpoint: a line of `sessions/<session>.jsonl`. */
export interface CheckpointRecord {
  id: string;
  session: string;
  /** The user prompt (1-based, in the session's conversation) whose turn it belongs to. */
  prompt: number;
  /** The id of that prompt's message, in sessions that give messages ids. */
  message?: string;
  when: CheckpointWhen;
  created: string;
  /** The workspace folder recorded. */
  root: string;
  /** Whether every file was recorded; an incomplete checkpoint is never used for a restore. */
  complete: boolean;
  /** The workspace folder's listing object (absent when incomplete). */
  tree?: string;
  files?: number;
  bytes?: number;
  /** Paths not recorded and why (too large, unreadable, sockets). */
  skipped?: Skipped[];
  /** The first paths the ignore rules left out, and how many there were. */
  ignored?: string[];
  ignored_count?: number;
  /** Why the checkpoint is incomplete. */
  error?: string;
  /**
   * Not taken, as not needed: the turn ran no tool that could change files (a single-turn run, print mode). The next
   * complete checkpoint of the session stands for it (nothing of awl's changed the files in between).
   */
  no_changes?: true;
}

export interface TakeCheckpoint {
  session: string;
  root: string;
  prompt: number;
  message?: string;
  when: CheckpointWhen;
  limits?: Partial<ScanLimits>;
  /**
   * Paths (from the root) that are all awl changed since this store last recorded the workspace (a restore's): only
   * the folders holding them are read again, the others are taken as last recorded. Files others changed elsewhere
   * meanwhile are not seen, so use it only for a record that later rewinds compare against (`end`), never for one
   * to restore.
   */
  changed?: readonly string[];
  /** Read every folder, whatever the watch says (a restore's present when the watch's view of it is in doubt). */
  full?: boolean;
  /** Nothing waits for this checkpoint (a turn's end): the periodic full scan of a watched workspace may follow it. */
  idle?: boolean;
}

/** `$XDG_DATA_HOME/awl/checkpoints` (`~/.local/share/awl/checkpoints`). */
export function defaultCheckpointDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(awlDataDir(env), "checkpoints");
}

const SESSION_ID = /^[A-Za-z0-9._-]+$/;
const INDEX_VERSION = 1;
/** A scan that read this many files saves the index at once (a later run then reads none of them again). */
const SAVE_INDEX_AFTER = 1_000;

export class CheckpointStore {
  readonly objects: ObjectStore;
  private readonly scanners = new Map<string, Scanner>();

  constructor(
    readonly dir: string = defaultCheckpointDir(),
    /** Absolute folders never recorded (awl's own data, when a workspace holds it). */
    private readonly excluded: readonly string[] = [dir],
    /**
     * Watch the folders of the workspaces recorded (a long-lived process, on Linux: docs/checkpoints.md, "The
     * watch"): a checkpoint then reads only what changed. Call `settle` before each `take`, `close` at the end.
     */
    private readonly watchFolders = false,
  ) {
    this.objects = new ObjectStore(dir);
  }

  /** Waits until the watches of `root` have reported every change made before this call (before a `take`). */
  async settle(root: string): Promise<void> {
    const dir = resolve(root);
    for (const scanner of this.scanners.values()) if (scanner.root === dir) await scanner.settle();
  }

  /** What went wrong with a watch since last asked (each said once), for the run's log. */
  notices(): string[] {
    return [...this.scanners.values()].flatMap((scanner) => scanner.watchNotice() ?? []);
  }

  /** Why the last scan of `root` read every folder (undefined: only what the watch named). */
  lastScanFull(root: string): string | undefined {
    const dir = resolve(root);
    return [...this.scanners.values()].find((scanner) => scanner.root === dir)?.lastScanFull;
  }

  /** Whether `paths` are, by their metadata, what the last scan of `root` recorded (`absent` ones: not there). */
  unchangedSinceScan(root: string, limits: Partial<ScanLimits> | undefined, present: readonly string[], absent: readonly string[]): boolean {
    return this.scanner(resolve(root), { ...DEFAULT_LIMITS, ...limits }).unchangedSinceScan(present, absent);
  }

  /**
   * The periodic full scan of `root` when it is due (after a checkpoint nothing waits for: docs/checkpoints.md, "The
   * watch"). Never throws (the next checkpoint says what is wrong).
   */
  verifyIfDue(request: TakeCheckpoint): void {
    try {
      const scanner = this.scanner(resolve(request.root), { ...DEFAULT_LIMITS, ...request.limits });
      if (scanner.verifyIfDue() && scanner.changed) this.saveIndex(scanner);
    } catch {
      // a later checkpoint reads everything again, and reports
    }
  }

  /** Stops the watches. */
  close(): void {
    for (const scanner of this.scanners.values()) scanner.stopWatching();
  }

  /** Records `root` now and appends the checkpoint to the session's list. Never throws: a failure is an incomplete checkpoint. */
  take(request: TakeCheckpoint): CheckpointRecord {
    const record = newRecord(request);
    const root = record.root;
    try {
      const scanner = this.scanner(root, { ...DEFAULT_LIMITS, ...request.limits });
      const before = scanner.index.size;
      const scan = scanner.scan(request.changed && foldersOf(request.changed), request.full ? { full: true } : {});
      Object.assign(record, { complete: true, tree: scan.tree, files: scan.files, bytes: scan.bytes });
      if (scan.skipped.length > 0) record.skipped = scan.skipped;
      if (scan.ignoredCount > 0) Object.assign(record, { ignored: scan.ignored, ignored_count: scan.ignoredCount });
      if (Math.abs(scanner.index.size - before) >= SAVE_INDEX_AFTER || before === 0) this.saveIndex(scanner);
    } catch (e) {
      record.error = e instanceof TooManyFiles || e instanceof StoreWriteError ? e.message : `could not record ${root}: ${String(e)}`;
    }
    try {
      this.append(record);
    } catch (e) {
      record.complete = false;
      record.error ??= `could not save the checkpoint in ${this.sessionFile(record.session)} (${(e as { code?: string }).code ?? String(e)})`;
    }
    return record;
  }

  /**
   * Notes in the session's list that the checkpoint asked for was not needed (`no_changes`): a line without a tree,
   * which readers that do not know the field take as an incomplete checkpoint. Not synced: losing it loses nothing
   * a restore could use.
   */
  noteNoChanges(request: TakeCheckpoint): void {
    const record: CheckpointRecord = {
      ...newRecord(request),
      error: "not taken: the turn ran no tool that could change files (the session's next checkpoint stands for it)",
      no_changes: true,
    };
    try {
      this.append(record, false);
    } catch {
      // a rewind to that prompt then says there is no checkpoint
    }
  }

  /** The session's checkpoints, oldest first (damaged lines skipped). */
  records(session: string): CheckpointRecord[] {
    let text: string;
    try {
      text = fs.readFileSync(this.sessionFile(session), "utf8");
    } catch {
      return [];
    }
    const out: CheckpointRecord[] = [];
    for (const line of text.split("\n")) {
      if (line === "") continue;
      try {
        const value = JSON.parse(line) as CheckpointRecord;
        if (typeof value.id === "string" && typeof value.prompt === "number" && typeof value.complete === "boolean") out.push(value);
      } catch {
        // a torn last line (killed mid-write): that checkpoint is lost, the others stand
      }
    }
    return out;
  }

  /** Saves every workspace's scan index (at exit), so the next run reads only the files changed meanwhile. */
  flush(): void {
    for (const scanner of this.scanners.values()) if (scanner.changed) this.saveIndex(scanner);
  }

  /** The sessions that have checkpoints. */
  sessions(): string[] {
    try {
      return fs.readdirSync(join(this.dir, "sessions")).flatMap((n) => (n.endsWith(".jsonl") ? [n.slice(0, -6)] : []));
    } catch {
      return [];
    }
  }

  /** Forgets a session's checkpoints (its objects go at the next prune). */
  removeSession(session: string): void {
    fs.rmSync(this.sessionFile(session), { force: true });
  }

  /** Every object the saved scan indexes of all workspaces name (pruning keeps them). */
  *indexedObjects(): Generator<string> {
    const dir = join(this.dir, "workspaces");
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      try {
        const saved = JSON.parse(fs.readFileSync(join(dir, name, "index.json"), "utf8")) as { entries: unknown[][] };
        for (const entry of saved.entries) if (typeof entry[6] === "string") yield entry[6];
      } catch {
        // no index, or damaged: nothing of it to keep
      }
    }
  }

  /** The folder of a workspace's own files (scan index, rewind journal). */
  workspaceDir(root: string): string {
    return join(this.dir, "workspaces", createHash("sha256").update(resolve(root)).digest("hex").slice(0, 24));
  }

  sessionFile(session: string): string {
    if (!SESSION_ID.test(session)) throw new Error(`not a session id: ${JSON.stringify(session)}`);
    return join(this.dir, "sessions", `${session}.jsonl`);
  }

  /** One line, one write (a kill leaves it whole or absent, or torn at the file's end, which readers skip). */
  private append(record: CheckpointRecord, sync = true): void {
    const file = this.sessionFile(record.session);
    fs.mkdirSync(join(this.dir, "sessions"), { recursive: true, mode: 0o700 });
    const fd = fs.openSync(file, "a", 0o600);
    try {
      fs.writeSync(fd, JSON.stringify(record) + "\n");
      if (sync) fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  private scanner(root: string, limits: ScanLimits): Scanner {
    const key = `${root}\0${limits.maxFiles}\0${limits.maxFileSize}`;
    let scanner = this.scanners.get(key);
    if (!scanner) {
      scanner = new Scanner(root, this.objects, limits, this.excluded, this.loadIndex(root));
      if (this.watchFolders) {
        const sentinel = join(this.dir, "tmp", `watch-${process.pid}-${randomBytes(4).toString("hex")}`);
        scanner.watchWith(new FolderWatch(sentinel, (name) => (IGNORE_FILES as readonly string[]).includes(name)));
      }
      this.scanners.set(key, scanner);
    }
    return scanner;
  }

  private loadIndex(root: string): Map<string, IndexEntry> {
    const index = new Map<string, IndexEntry>();
    try {
      const saved = JSON.parse(fs.readFileSync(join(this.workspaceDir(root), "index.json"), "utf8")) as { version: number; root: string; entries: [string, number, number, number, number, number, string][] };
      if (saved.version !== INDEX_VERSION || saved.root !== root) return index;
      for (const [path, size, mtime, ctime, ino, mode, object] of saved.entries) {
        // An entry whose object is gone (pruned) is read again.
        if (this.objects.has(object)) index.set(path, { size, mtime, ctime, ino, mode, object });
      }
    } catch {
      // none yet, or damaged: every file is read once
    }
    return index;
  }

  /** Written whole to a temporary file, then renamed: a kill leaves the old index or the new one. */
  private saveIndex(scanner: Scanner): void {
    const dir = this.workspaceDir(scanner.root);
    const entries = [...scanner.index].flatMap(([path, e]) => (e.racy ? [] : [[path, e.size, e.mtime, e.ctime, e.ino, e.mode, e.object]]));
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      const tmp = join(dir, `index.json.${process.pid}.tmp`);
      fs.writeFileSync(tmp, JSON.stringify({ version: INDEX_VERSION, root: scanner.root, entries }), { mode: 0o600 });
      fs.renameSync(tmp, join(dir, "index.json"));
      scanner.changed = false;
    } catch {
      // only a cache: the next run reads the files again
    }
  }
}

/** A checkpoint's line for `request`, incomplete until a scan fills it in. */
function newRecord(request: TakeCheckpoint): CheckpointRecord {
  return {
    id: `ck_${randomBytes(6).toString("hex")}`,
    session: request.session,
    prompt: request.prompt,
    ...(request.message !== undefined && { message: request.message }),
    when: request.when,
    created: new Date().toISOString(),
    root: resolve(request.root),
    complete: false,
  };
}

/** The folders a partial scan reads for `paths`: each one's folders from the root down, and the path itself. */
function foldersOf(paths: readonly string[]): Set<string> {
  const folders = new Set<string>([""]);
  for (const path of paths) {
    folders.add(path);
    for (let at = path.indexOf("/"); at !== -1; at = path.indexOf("/", at + 1)) folders.add(path.slice(0, at));
  }
  return folders;
}
