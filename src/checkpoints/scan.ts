/**
 * Records a workspace into the object store (docs/checkpoints.md): every file, link and folder that the ignore
 * rules (`.gitignore`, `.ignore`, `.awlignore`, `.git/info/exclude`) keep, except `.git` folders; files over the
 * size limit, unreadable files and sockets are named and skipped. A file whose size, modification and change times,
 * inode and mode match the last scan is not read again (as git's index does), and a folder whose listing did not
 * change is not hashed again, so a scan of an unchanged tree costs one `lstat` per entry.
 */
import * as fs from "node:fs";
import { dirname, join } from "node:path";
import { ancestorLayers, excludeFile, ignoredBy, repositoryRoot, type Ignore, type IgnoreLayer } from "../util/ignore-layers.js";
import { makeIgnore } from "../util/make-ignore.js";
import { hashOf, StoreWriteError, type ObjectStore } from "./objects.js";
import { encodeTree, type TreeEntry } from "./tree.js";
import type { FolderWatch } from "./folder-watch.js";

/** Ignore files read in every folder, later ones winning (`!` re-includes). */
export const IGNORE_FILES = [".gitignore", ".ignore", ".awlignore"] as const;

export interface ScanLimits {
  /** Files (not ignored) beyond which no checkpoint is taken. */
  maxFiles: number;
  /** Files larger than this many bytes are named and not recorded. */
  maxFileSize: number;
}

export const DEFAULT_LIMITS: ScanLimits = { maxFiles: 100_000, maxFileSize: 10 * 1024 * 1024 };

/** A path the checkpoint does not hold, and why. */
export interface Skipped {
  path: string;
  reason: string;
}

export interface ScanResult {
  /** The workspace folder's listing object. */
  tree: string;
  files: number;
  bytes: number;
  skipped: Skipped[];
  /** The first ignored paths (a folder once, not what it holds). */
  ignored: string[];
  ignoredCount: number;
}

/** The workspace holds more files than the limit: no checkpoint (the message says which setting raises it). */
export class TooManyFiles extends Error {}

/** What the last scan saw of a file: its content is not read again while these stay the same. */
export interface IndexEntry {
  size: number;
  mtime: number;
  ctime: number;
  ino: number;
  mode: number;
  object: string;
}

/** Ignored paths named in a checkpoint at most (the count says how many there were). */
const IGNORED_NAMED = 100;
/**
 * A file modified this close to the scan may change again within the file system's clock tick and keep its times
 * (git's "racy" files): its entry is not trusted by the next scan. File systems with whole-second times get 2 s.
 */
const RACY_MS = 100;
const RACY_COARSE_MS = 2_000;

/**
 * With a watch, everything is read again (verifyIfDue) after a checkpoint nothing waits for (the end of a turn) when
 * the last full scan is this old: what the watch cannot see (docs/checkpoints.md, "What the watch can miss") is
 * found within this time.
 */
export const VERIFY_EVERY_MS = 5 * 60_000;

/** How a scan is taken: `full` reads everything, whatever the watch says. */
export interface ScanMode {
  full?: boolean;
}

/** An index entry as the scanner holds it: `racy` is not trusted by the next scan, `seen` is the last scan that met it. */
type HeldEntry = IndexEntry & { racy?: boolean; seen?: number };

const NO_THROW = { throwIfNoEntry: false } as const;

export class Scanner {
  /** Path → what the last scan recorded; saved between runs by the store. */
  readonly index: Map<string, HeldEntry>;
  /**
   * Folder path → its last entries and object, so an unchanged folder is neither encoded, hashed nor written again,
   * and what its subtree counted (a partial scan takes it as it was).
   */
  private readonly listings = new Map<string, { entries: TreeEntry[]; object: string; counted: Counted; ino: number }>();
  /** The watch of the workspace's folders (a long-lived worker's): a scan reads only the folders it names. */
  private watch: FolderWatch | undefined;
  /** Files with more than one link (path → its folder): a write through a link outside the workspace raises no event in it. */
  private readonly linked = new Map<string, string>();
  /** When the last full scan ended (ms), and the ignore files above the workspace as it saw them. */
  private lastFull = 0;
  private ancestorsKey = "";
  /** A scan stopped halfway (too many files, a full disk): the next one reads everything. */
  private unfinished = false;
  /** Why the last scan read everything (undefined: it read only what the watch named). */
  lastScanFull: string | undefined;
  /** The number of the scan under way (index entries it meets are stamped with it). */
  private scans = 0;
  /** Ignore file → its rules, while its size and times stay the same. */
  private readonly rules = new Map<string, { key: string; rules: Ignore }>();
  /** The index changed since it was saved. */
  changed = false;

  constructor(
    readonly root: string,
    private readonly objects: ObjectStore,
    private readonly limits: ScanLimits,
    /** Absolute folders never recorded (awl's own data inside the workspace). */
    private readonly excluded: readonly string[] = [],
    index: Map<string, IndexEntry> = new Map(),
  ) {
    this.index = index;
  }

  /**
   * Records the workspace as it is now; throws TooManyFiles, or StoreWriteError when the store cannot be written
   * (ENOSPC). With `only` (folder paths from the root, `""` the root), a partial scan: a folder not named there is
   * taken as this scanner last recorded it, unread (for what awl itself just changed, e.g. a restore's files).
   */
  scan(only?: ReadonlySet<string>, mode: ScanMode = {}): ScanResult {
    let read = only ?? this.watched(mode);
    const ino = fs.statSync(this.root).ino;
    // Another folder where the workspace was: everything is read.
    if (read && this.listings.get("")?.ino !== ino) read = undefined;
    const state: ScanState = { files: 0, bytes: 0, skipped: [], ignored: [], ignoredCount: 0, started: Date.now(), scan: ++this.scans, met: new Set(), ...(read && { only: read }) };
    // The rules above the workspace are read only when its own folder is.
    const layers = read && !read.has("") ? [] : ancestorLayers(this.root, makeIgnore);
    let root: string;
    try {
      root = this.folder(this.root, "", layers, state, ino, false);
    } catch (e) {
      // The events taken for this scan are gone with it: the next one reads everything.
      this.unfinished = true;
      throw e;
    }
    // A partial scan did not meet the files of the folders it did not read: the next full scan forgets what is gone.
    if (!read) {
      this.unfinished = false;
      this.forgetUnseen(state.scan);
      this.watch?.fullScanDone(state.met);
      this.lastFull = Date.now();
    }
    return { tree: root, files: state.files, bytes: state.bytes, skipped: state.skipped, ignored: state.ignored, ignoredCount: state.ignoredCount };
  }

  /**
   * The periodic full scan of a watched workspace, when the last one is VERIFY_EVERY_MS old: run after a checkpoint
   * nothing waits for has been answered, so no one waits for it; what it finds the watch missed, the next checkpoint
   * records. True when it ran.
   */
  verifyIfDue(): boolean {
    if (!this.watch || Date.now() - this.lastFull < VERIFY_EVERY_MS) return false;
    this.scan(undefined, { full: true });
    this.lastScanFull = "the periodic full scan";
    return true;
  }

  /** From now on, scans read only the folders `watch` names (and the files with several links), with its safety nets. */
  watchWith(watch: FolderWatch): void {
    this.watch = watch;
  }

  /** Waits for the watch to have reported every change made before this call. */
  async settle(): Promise<void> {
    await this.watch?.settle();
  }

  /** Why the watch stopped working, the first time it is asked after it did. */
  watchNotice(): string | undefined {
    const why = this.watch?.newFailure();
    return why === undefined ? undefined : `the file-system watch of ${this.root} stopped (${why}): every checkpoint reads the whole workspace`;
  }

  stopWatching(): void {
    this.watch?.close();
    this.watch = undefined;
  }

  /**
   * Whether files are as the last scan recorded them by their metadata (`present`: files it recorded; `absent`:
   * paths it did not find): what a restore planned from a watched scan checks before it writes over them.
   */
  unchangedSinceScan(present: readonly string[], absent: readonly string[]): boolean {
    for (const path of absent) if (fs.lstatSync(`${this.root}/${path}`, NO_THROW)) return false;
    for (const path of present) {
      const known = this.index.get(path);
      const stat = fs.lstatSync(`${this.root}/${path}`, NO_THROW);
      if (!known || !stat || !stat.isFile() || !sameFile(known, stat)) return false;
    }
    return true;
  }

  /**
   * The folders a scan reads when the watch is trusted (each one's folders up to the root with it), else undefined: a
   * full scan, at the first scan, when the watch says so, when the ignore files above the workspace changed, when
   * asked, and periodically for a scan nothing waits for.
   */
  private watched(mode: ScanMode): ReadonlySet<string> | undefined {
    if (!this.watch) {
      this.lastScanFull = "no watch";
      return undefined;
    }
    const changes = this.watch.take();
    const key = ancestorRulesKey(this.root);
    const before = this.ancestorsKey;
    this.ancestorsKey = key;
    const why =
      this.lastFull === 0 ? "the first scan" :
      this.unfinished ? "the last scan did not finish" :
      changes.all !== undefined ? changes.all :
      mode.full ? "asked for" :
      key !== before ? "an ignore file above the workspace changed" : undefined;
    this.lastScanFull = why;
    if (why !== undefined || changes.all !== undefined) return undefined;
    const folders = new Set<string>();
    const add = (rel: string): void => {
      for (let at = rel; !folders.has(at); at = parentOf(at)) {
        folders.add(at);
        if (at === "") break;
      }
    };
    for (const rel of changes.folders) add(rel);
    for (const [path, folder] of this.linked) {
      const known = this.index.get(path);
      const stat = fs.lstatSync(`${this.root}/${path}`, NO_THROW);
      if (!stat) this.linked.delete(path);
      if (!known || !stat || known.racy || !sameFile(known, stat)) add(folder);
    }
    return folders;
  }

  /** Forgets what the scans knew of folder `rel` and below (gone, ignored, or no longer a folder). */
  private forget(rel: string): void {
    const below = `${rel}/`;
    for (const at of this.listings.keys()) if (at === rel || at.startsWith(below)) this.listings.delete(at);
    this.watch?.drop(rel);
  }

  private forgetUnseen(scan: number): void {
    for (const [path, entry] of this.index) {
      if (entry.seen !== scan) {
        this.index.delete(path);
        this.changed = true;
      }
    }
  }

  /**
   * Records folder `abs` (`rel` from the root, `ino` its inode) and returns its listing's object. A `fresh` folder's
   * earlier listings are not used (a new folder where one was: inode numbers are reused).
   */
  private folder(abs: string, rel: string, inherited: readonly IgnoreLayer[], state: ScanState, ino: number, fresh: boolean): string {
    const last = fresh ? undefined : this.listings.get(rel);
    const same = last !== undefined && last.ino === ino;
    if (same && state.only && !state.only.has(rel)) {
      this.add(state, last.counted);
      return last.object;
    }
    // Watched before it is read: a change after the reading raises an event.
    this.watch?.add(rel, abs, !same);
    state.met.add(rel);
    const from = { files: state.files, bytes: state.bytes, skipped: state.skipped.length, ignored: state.ignored.length, ignoredCount: state.ignoredCount };
    // Plain names (no Dirent objects): each entry is lstat-ed anyway, for its times and mode.
    const names = fs.readdirSync(abs).sort(byteOrder);
    const layers = this.layersOf(abs, names, inherited);
    const prefix = abs.endsWith("/") ? abs : `${abs}/`;
    const entries: TreeEntry[] = [];
    for (const name of names) {
      if (name === ".git") continue;
      const path = rel === "" ? name : `${rel}/${name}`;
      const full = prefix + name;
      if (this.excluded.length > 0 && this.excluded.includes(full)) continue;
      const stat = fs.lstatSync(full, NO_THROW);
      if (!stat) continue; // deleted meanwhile
      const isDir = stat.isDirectory();
      if (layers.length > 0 && ignoredBy(layers, full, isDir)) {
        state.ignoredCount++;
        if (state.ignored.length < IGNORED_NAMED) state.ignored.push(isDir ? `${path}/` : path);
        continue;
      }
      if (isDir) {
        try {
          entries.push([name, "d", this.folder(full, path, layers, state, stat.ino, !same), stat.mode & 0o7777]);
        } catch (e) {
          if (!isReadError(e)) throw e;
          entries.push([name, "s", null, 0]);
          state.skipped.push({ path: `${path}/`, reason: `the folder could not be read (${codeOf(e)})` });
        }
        continue;
      }
      if (++state.files > this.limits.maxFiles) throw this.tooMany();
      const entry = this.file(full, path, stat, state);
      if (stat.nlink > 1) this.linked.set(path, rel);
      else if (this.linked.size > 0) this.linked.delete(path);
      entries.push([name, entry.kind, entry.object, entry.mode]);
    }
    const counted: Counted = {
      files: state.files - from.files,
      bytes: state.bytes - from.bytes,
      skipped: state.skipped.slice(from.skipped),
      ignored: state.ignored.slice(from.ignored),
      ignoredCount: state.ignoredCount - from.ignoredCount,
    };
    if (last) {
      // Folders it no longer holds (gone, ignored now, or not folders any more) are forgotten, with their watches.
      const now = new Set(entries.flatMap((e) => (e[1] === "d" ? [e[0]] : [])));
      for (const [name, kind] of last.entries) if (kind === "d" && !now.has(name)) this.forget(rel === "" ? name : `${rel}/${name}`);
    }
    if (last && sameEntries(last.entries, entries)) {
      Object.assign(last, { counted, ino });
      return last.object;
    }
    const text = encodeTree(entries);
    const object = this.objects.put(text, hashOf(text));
    this.listings.set(rel, { entries, object, counted, ino });
    return object;
  }

  /** What an unread folder's subtree counted when it was last recorded. */
  private add(state: ScanState, counted: Counted): void {
    state.files += counted.files;
    if (state.files > this.limits.maxFiles) throw this.tooMany();
    state.bytes += counted.bytes;
    state.skipped.push(...counted.skipped);
    for (const path of counted.ignored) if (state.ignored.length < IGNORED_NAMED) state.ignored.push(path);
    state.ignoredCount += counted.ignoredCount;
  }

  private tooMany(): TooManyFiles {
    return new TooManyFiles(
      `${this.root} holds more than ${this.limits.maxFiles} files that are not ignored, so no checkpoint was taken (rewind cannot restore this turn's files); raise checkpoints.max_files in awl's config, or ignore more in .awlignore`,
    );
  }

  /** One non-folder entry: recorded, or skipped with the reason named. */
  private file(abs: string, path: string, stat: fs.Stats, state: ScanState): { kind: TreeEntry[1]; object: string | null; mode: number } {
    const skip = (reason: string): { kind: "s"; object: null; mode: number } => {
      state.skipped.push({ path, reason });
      return { kind: "s", object: null, mode: 0 };
    };
    if (stat.isSymbolicLink()) {
      let target: string;
      try {
        target = fs.readlinkSync(abs);
      } catch (e) {
        if (isReadError(e)) return skip(`the link could not be read (${codeOf(e)})`);
        throw e;
      }
      return { kind: "l", object: this.objects.put(target), mode: 0 };
    }
    if (!stat.isFile()) return skip(`not a regular file (${specialKind(stat)})`);
    if (stat.size > this.limits.maxFileSize) return skip(`larger than the ${formatSize(this.limits.maxFileSize)} limit (${formatSize(stat.size)}; checkpoints.max_file_size)`);
    const mode = stat.mode & 0o7777;
    const known = this.index.get(path);
    if (known && !known.racy && sameFile(known, stat)) {
      known.seen = state.scan;
      state.bytes += stat.size;
      return { kind: "f", object: known.object, mode };
    }
    const read = readSteady(abs);
    if (read === "vanished") return skip("deleted while it was recorded");
    if (read === "changing") return skip("it kept changing while it was recorded");
    if (typeof read === "string") return skip(`the file could not be read (${read})`);
    const object = this.objects.put(read.data);
    const st = read.stat;
    const racyMs = st.mtimeMs % 1000 === 0 ? RACY_COARSE_MS : RACY_MS;
    const entry = { size: st.size, mtime: st.mtimeMs, ctime: st.ctimeMs, ino: st.ino, mode: st.mode & 0o7777, object, racy: st.mtimeMs > state.started - racyMs, seen: state.scan };
    this.index.set(path, entry);
    this.changed = true;
    state.bytes += st.size;
    return { kind: "f", object, mode: entry.mode };
  }

  /** The layers that apply inside folder `abs`: the inherited ones, then its own ignore files. */
  private layersOf(abs: string, names: readonly string[], inherited: readonly IgnoreLayer[]): readonly IgnoreLayer[] {
    let layers = inherited;
    for (const file of IGNORE_FILES) {
      if (!names.includes(file)) continue;
      const path = `${abs}/${file}`;
      const stat = fs.statSync(path, NO_THROW);
      if (!stat?.isFile()) continue;
      const key = `${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.ino}`;
      let cached = this.rules.get(path);
      if (cached?.key !== key) {
        let text: string;
        try {
          text = fs.readFileSync(path, "utf8");
        } catch {
          continue;
        }
        cached = { key, rules: makeIgnore().add(text) };
        this.rules.set(path, cached);
      }
      layers = [...layers, { base: abs, rules: cached.rules }];
    }
    return layers;
  }
}

interface ScanState {
  files: number;
  bytes: number;
  skipped: Skipped[];
  ignored: string[];
  ignoredCount: number;
  started: number;
  /** The scan's number (index entries met are stamped with it; the others are gone from the workspace). */
  scan: number;
  /** The folders read. */
  met: Set<string>;
  /** A partial scan's folders to read (the others are taken as last recorded). */
  only?: ReadonlySet<string>;
}

/** What a folder's subtree held besides its listing: counted files and bytes, skipped and ignored paths. */
interface Counted {
  files: number;
  bytes: number;
  skipped: Skipped[];
  ignored: string[];
  ignoredCount: number;
}

/** Whether two listings hold the same entries (an unchanged folder keeps its object without being encoded again). */
function sameEntries(a: readonly TreeEntry[], b: readonly TreeEntry[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x[0] !== y[0] || x[1] !== y[1] || x[2] !== y[2] || x[3] !== y[3]) return false;
  }
  return true;
}

function sameFile(known: IndexEntry, stat: fs.Stats): boolean {
  return known.size === stat.size && known.mtime === stat.mtimeMs && known.ctime === stat.ctimeMs && known.ino === stat.ino && known.mode === (stat.mode & 0o7777);
}

/**
 * A file's bytes, read so that they are one version of it: its size and times are the same before and after the
 * read (tried three times), else "changing". A string is the error code of a file that cannot be read.
 */
function readSteady(abs: string): { data: Buffer; stat: fs.Stats } | "vanished" | "changing" | string {
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = fs.openSync(abs, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    } catch (e) {
      if (codeOf(e) === "ENOENT") return "vanished";
      if (isReadError(e)) return codeOf(e);
      throw e;
    }
    try {
      const before = fs.fstatSync(fd);
      if (!before.isFile()) return `replaced by a ${specialKind(before)}`;
      const data = fs.readFileSync(fd);
      const after = fs.fstatSync(fd);
      if (before.size === after.size && before.mtimeMs === after.mtimeMs && before.ctimeMs === after.ctimeMs && data.length === after.size) return { data, stat: after };
    } catch (e) {
      if (isReadError(e)) return codeOf(e);
      throw e;
    } finally {
      fs.closeSync(fd);
    }
  }
  return "changing";
}

/** Errors of the workspace's files (skipped, named), as opposed to the store's (which make the checkpoint incomplete). */
function isReadError(e: unknown): boolean {
  if (e instanceof StoreWriteError) return false;
  return ["EACCES", "EPERM", "ELOOP", "EIO", "ENXIO", "EISDIR", "ENOTDIR", "EINVAL", "ENOENT"].includes(codeOf(e));
}

function codeOf(e: unknown): string {
  return (e as { code?: string }).code ?? String(e);
}

function specialKind(stat: fs.Stats): string {
  if (stat.isSocket()) return "a socket";
  if (stat.isFIFO()) return "a named pipe";
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return "a device";
  return "not a file";
}

export function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${+(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} B`;
}

/** The folder above `rel` (`""` the root's). */
function parentOf(rel: string): string {
  const at = rel.lastIndexOf("/");
  return at === -1 ? "" : rel.slice(0, at);
}

/** The ignore files above the workspace that apply to it (ancestorLayers reads them), as their metadata: a key that changes with them. */
function ancestorRulesKey(root: string): string {
  const repository = repositoryRoot(root);
  if (!repository) return "";
  const files = [excludeFile(repository)];
  for (let at = dirname(root); at.startsWith(repository) && at !== dirname(at); at = dirname(at)) {
    files.push(join(at, ".gitignore"));
    if (at === repository) break;
  }
  return files
    .map((file) => {
      let stat: fs.Stats | undefined;
      try {
        stat = fs.statSync(file, NO_THROW);
      } catch {
        // ENOTDIR and the like: no such file either.
      }
      return stat ? `${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.ino}` : "-";
    })
    .join(",");
}

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
