/**
 * Appends to one session file. Every entry is one line written with one write call; `endTurn()` fsyncs.
 * An entry that cannot be written (full disk) stays queued, in order, and is retried first on the next call,
 * so the file is always a prefix of what the caller appended and nothing already written is ever lost.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import { dirname } from "node:path";
import { messageToJSON } from "../model/json.js";
import type { ToolResultBlock } from "../model/blocks.js";
import type { Message } from "../model/message.js";
import { fail, ioFailure, ok, type SessionResult } from "./errors.js";
import type { SecretScrubber } from "../util/secrets.js";
import { encodeLine, type MessageEntry, type SessionEvent, type SessionHeader, type ToolEntry, type ToolSnapshot } from "./format.js";
import type { SessionLock } from "./lock.js";
import { rawInputsOf } from "./raw-inputs.js";
import { externalizeMessage, externalizeToolEntry, writeSideFiles, type SideFile, type WriterIO } from "./side-files.js";

export interface WriterOptions {
  scrub: SecretScrubber;
  /** Outputs larger than this many bytes go to side files. */
  sideFileThreshold: number;
  io: WriterIO;
}

/** The session's lock (lock.ts), released when the writer closes or fails to open. */
export type WriterLock = Pick<SessionLock, "release">;

interface Pending {
  bytes: Buffer;
  files: SideFile[];
}

export class SessionWriter {
  private readonly pending: Pending[] = [];
  /** A failed write may have left part of a line: cut back to `size` before the next write. */
  private needsTrim = false;
  private closed = false;
  /** A new file whose folder entry is not yet durable: the first `endTurn` syncs the folder. */
  private folderUnsynced = false;
  /** The message the next one follows (docs/sessions.md, "Branches"). */
  private leafId: string | null = null;
  /** The id given to each message appended (and to those of the branch read, for a reopened file). */
  private readonly ids = new WeakMap<Message, string>();

  private constructor(
    readonly id: string,
    /** The session file. */
    readonly path: string,
    private readonly sideDir: string,
    private readonly fd: number,
    /** Bytes of complete lines in the file. */
    private size: number,
    private readonly options: WriterOptions,
    private readonly lock: WriterLock,
  ) {}

  /**
   * Creates a new session file (never an existing one) and writes its header. The header is written to a
   * temporary file first and linked into place, so a kill never leaves a session file without a header.
   * The fsyncs (the file's, and its folder's for the new name) wait for the first `endTurn`: durability is
   * promised at turn boundaries, and keeping them off start-up lets the first request go out ~25–75 ms sooner.
   */
  static create(path: string, sideDir: string, header: SessionHeader, options: WriterOptions, lock: WriterLock): SessionResult<SessionWriter> {
    const temporary = `${path}.${process.pid}.tmp`;
    let fd: number;
    try {
      fs.mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      // O_APPEND (not just O_EXCL): after a failed write is cut back with ftruncate, the next write must go to the new end.
      fd = fs.openSync(temporary, "ax", 0o600);
    } catch (e) {
      lock.release();
      return ioFailure(e, "create the session file", temporary);
    }
    const writer = new SessionWriter(header.id, path, sideDir, fd, 0, options, lock);
    writer.pending.push({ bytes: Buffer.from(encodeLine(header, options.scrub)), files: [] });
    let written = writer.flush();
    if (written.ok) {
      try {
        fs.linkSync(temporary, path); // fails with EEXIST rather than replace a file
      } catch (e) {
        written = ioFailure(e, "create the session file", path);
      }
    }
    fs.rmSync(temporary, { force: true });
    if (!written.ok) {
      fs.closeSync(fd);
      lock.release();
      return written;
    }
    writer.folderUnsynced = true;
    return ok(writer);
  }

  /**
   * Opens an existing session for appending. `goodSize` and `fileSize` come from reading it: a torn tail
   * (bytes after the last complete line) is cut off, and a complete last line without its newline gets one.
   */
  static reopen(
    path: string,
    sideDir: string,
    id: string,
    read: { goodSize: number; fileSize: number; unterminated: boolean; leaf: string | null; ids: ReadonlyMap<Message, string> },
    options: WriterOptions,
    lock: WriterLock,
  ): SessionResult<SessionWriter> {
    let fd: number;
    try {
      fd = fs.openSync(path, "a");
    } catch (e) {
      lock.release();
      return ioFailure(e, "open for appending the session file", path);
    }
    const writer = new SessionWriter(id, path, sideDir, fd, read.goodSize, options, lock);
    writer.leafId = read.leaf;
    for (const [message, messageId] of read.ids) writer.ids.set(message, messageId);
    try {
      const now = fs.fstatSync(fd).size;
      if (now !== read.fileSize) {
        fs.closeSync(fd);
        lock.release();
        return fail("io", `${path} changed while it was being opened (is another awl using this session?); try again`, path);
      }
      if (read.goodSize < read.fileSize) options.io.ftruncateSync(fd, read.goodSize);
    } catch (e) {
      fs.closeSync(fd);
      lock.release();
      return ioFailure(e, "trim the torn last line of", path);
    }
    if (read.unterminated) writer.pending.push({ bytes: Buffer.from("\n"), files: [] });
    const flushed = writer.flush();
    if (!flushed.ok) {
      fs.closeSync(fd);
      lock.release();
      return flushed;
    }
    return ok(writer);
  }

  /** Appends one complete message. On failure the message stays queued and is written by the next successful call. */
  appendMessage(message: Message): SessionResult<void> {
    const plain = messageToJSON(message);
    const { json, files } = externalizeMessage(plain, this.options.sideFileThreshold, this.options.scrub);
    const id = randomBytes(6).toString("hex");
    const entry: MessageEntry = { type: "message", time: new Date().toISOString(), id, parent: this.leafId, message: json };
    this.leafId = id;
    this.ids.set(message, id);
    const raw = rawInputsOf(message, plain);
    if (raw) entry.raw_inputs = raw;
    return this.enqueue(entry, files);
  }

  /**
   * Saves what a tool left for the UI (its last snapshot and title, details, summary) and, when given, its result,
   * keyed by its tool_use id.
   */
  appendToolEvent(toolUseId: string, snapshot: ToolSnapshot, result?: ToolResultBlock): SessionResult<void> {
    const entry: ToolEntry = { type: "tool", time: new Date().toISOString(), tool_use_id: toolUseId };
    if (snapshot.snapshot !== undefined) entry.snapshot = snapshot.snapshot;
    if (snapshot.title !== undefined) entry.title = snapshot.title;
    if (snapshot.details !== undefined) entry.details = snapshot.details;
    if (snapshot.summary !== undefined) entry.summary = snapshot.summary;
    const out = externalizeToolEntry(entry, this.options.sideFileThreshold, this.options.scrub);
    const files = [...out.files];
    if (result !== undefined) {
      // The block goes through the message path, so a large output goes to a side file the same way.
      const block = externalizeMessage(messageToJSON({ role: "user", content: [result] }), this.options.sideFileThreshold, this.options.scrub);
      out.entry.result = (block.json.content as Record<string, unknown>[])[0];
      files.push(...block.files);
    }
    return this.enqueue(out.entry, files);
  }

  /** Appends a usage, model-change or compaction event (a compaction names the message it was made at). */
  appendEvent(event: SessionEvent): SessionResult<void> {
    const { type, ...fields } = event;
    return this.enqueue({ type, time: new Date().toISOString(), ...(type === "compaction" && { leaf: this.leafId }), ...fields }, []);
  }

  /** Switches the branch in use: the next message follows message `leaf` (null: starts from the beginning). */
  appendBranch(leaf: string | null, reason: string): SessionResult<void> {
    this.leafId = leaf;
    return this.enqueue({ type: "branch", time: new Date().toISOString(), leaf, reason }, []);
  }

  /** The id of the last message of the branch in use. */
  get leaf(): string | null {
    return this.leafId;
  }

  /** The id a message of the branch in use was saved with. */
  idOf(message: Message): string | undefined {
    return this.ids.get(message);
  }

  /** The turn ended: write anything queued and fsync, so everything appended so far survives a power loss. */
  endTurn(): SessionResult<void> {
    const flushed = this.flush();
    if (!flushed.ok) return flushed;
    try {
      this.options.io.fsyncSync(this.fd);
    } catch (e) {
      return ioFailure(e, "sync the session file", this.path);
    }
    if (this.folderUnsynced) {
      syncFolder(dirname(this.path));
      this.folderUnsynced = false;
    }
    return ok(undefined);
  }

  /** Entries appended but not yet in the file (after a failed write). */
  get unsaved(): number {
    return this.pending.length;
  }

  /** Writes and syncs what is queued, then closes the file and releases the lock. Entries that still cannot be written are reported, and lost. */
  close(): SessionResult<void> {
    if (this.closed) return ok(undefined);
    const synced = this.endTurn();
    this.closed = true;
    fs.closeSync(this.fd);
    this.lock.release();
    if (!synced.ok && this.pending.length > 0) {
      return fail("io", `${synced.error.message}; ${this.pending.length} entries could not be saved`, this.path, synced.error.code);
    }
    return synced;
  }

  private enqueue(entry: object, files: SideFile[]): SessionResult<void> {
    if (this.closed) return fail("io", `the session ${this.path} is closed; nothing more can be appended`, this.path);
    this.pending.push({ bytes: Buffer.from(encodeLine(entry, this.options.scrub)), files });
    return this.flush();
  }

  private flush(): SessionResult<void> {
    const io = this.options.io;
    while (this.pending.length > 0) {
      const next = this.pending[0]!;
      if (this.needsTrim) {
        try {
          io.ftruncateSync(this.fd, this.size);
          this.needsTrim = false;
        } catch (e) {
          return ioFailure(e, "trim a partly written line of", this.path);
        }
      }
      const files = writeSideFiles(this.sideDir, next.files, io);
      if (!files.ok) return files;
      try {
        // One write call for the whole line; only a short write (rare, e.g. the disk filling up) loops.
        let written = 0;
        while (written < next.bytes.length) {
          const n = io.writeSync(this.fd, next.bytes.subarray(written));
          if (n <= 0) throw Object.assign(new Error("the system wrote nothing"), { code: "EIO" });
          written += n;
        }
      } catch (e) {
        this.needsTrim = true;
        try {
          io.ftruncateSync(this.fd, this.size);
          this.needsTrim = false;
        } catch {
          /* retried before the next write */
        }
        return ioFailure(e, "append to the session file", this.path);
      }
      this.size += next.bytes.length;
      this.pending.shift();
    }
    return ok(undefined);
  }
}

/** Makes a new file's name durable too (best effort: not every platform can fsync a folder). */
function syncFolder(dir: string): void {
  try {
    const fd = fs.openSync(dir, "r");
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    /* best effort */
  }
}
