/**
 * The folder of sessions: create, list, find and open them. Library API (no terminal, no CLI).
 */
import * as fs from "node:fs";
import { resolve as resolvePath } from "node:path";
import { fail, ioFailure, ok, type SessionResult, type SessionWarning } from "./errors.js";
import { isObject, parseHeader, SESSION_FORMAT_VERSION, type SessionHeader } from "./format.js";
import { SecretScrubber } from "../util/secrets.js";
import { acquireSessionLock } from "./lock.js";
import { isSessionId, lockFile, newSessionId, randomPart, SESSION_EXTENSION, sessionFile, sideDir, defaultSessionDir, summaryCacheFile } from "./paths.js";
import { readSessionFile, type LoadedSession } from "./reader.js";
import { SESSION_ENDED_RESULT } from "./resume.js";
import { answerUnansweredToolUses } from "../agent/invariant.js";
import type { ToolResultBlock } from "../model/blocks.js";
import { toolResult, type Conversation } from "../model/conversation.js";
import type { Message } from "../model/message.js";
import { DEFAULT_SIDE_FILE_THRESHOLD, nodeIO, type WriterIO } from "./side-files.js";
import { SummaryCache } from "./summary-cache.js";
import { fileKey, modifiedTime, readHeaderLine, summarizeFile, summaryAt, type SessionSummary } from "./summary.js";
import { SessionWriter, type WriterOptions } from "./writer.js";
import { awlVersion } from "../version.js";

export interface SessionStoreOptions {
  /** Secrets the caller knows (the API key): every occurrence is replaced by `[REDACTED]` before anything is written. */
  secrets?: readonly (string | undefined)[];
  /** Outputs larger than this many UTF-8 bytes go to side files (default 64 KiB). */
  sideFileThreshold?: number;
  /** The file-system calls the writer makes (tests inject a full disk). */
  io?: WriterIO;
}

export interface NewSession {
  cwd: string;
  provider: string;
  model: string;
  /** Defaults to this package's version. */
  awl_version?: string;
  /** The id to give it (`newSessionId()`), when the caller had to name the session before its file exists (ACP); default a new one. */
  id?: string;
  /** A sub-agent's side session: what started it (the header's `parent`). */
  parent?: SessionHeader["parent"];
}

export class SessionStore {
  private readonly writerOptions: WriterOptions;

  /** `dir` defaults to `$XDG_DATA_HOME/awl/sessions` (`~/.local/share/awl/sessions`). */
  constructor(
    readonly dir: string = defaultSessionDir(),
    options: SessionStoreOptions = {},
  ) {
    this.writerOptions = {
      scrub: new SecretScrubber(options.secrets),
      sideFileThreshold: options.sideFileThreshold ?? DEFAULT_SIDE_FILE_THRESHOLD,
      io: options.io ?? nodeIO,
    };
  }

  /** Scrubs these secrets too, from the next line written on (in every writer of this store). */
  addSecrets(secrets: readonly (string | undefined)[]): void {
    this.writerOptions.scrub.add(secrets);
  }

  /** Starts a new session file; the writer appends to it. */
  create(session: NewSession): SessionResult<SessionWriter> {
    for (let attempt = 0; ; attempt++) {
      const header: SessionHeader = {
        type: "session",
        version: SESSION_FORMAT_VERSION,
        id: session.id ?? newSessionId(),
        created: new Date().toISOString(),
        cwd: session.cwd,
        provider: session.provider,
        model: session.model,
        awl_version: session.awl_version ?? awlVersion(),
        ...(session.parent && { parent: session.parent }),
      };
      try {
        fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      } catch (e) {
        return ioFailure(e, "create the sessions folder", this.dir);
      }
      const lock = acquireSessionLock(lockFile(this.dir, header.id), header.id);
      if (!lock.ok) return lock;
      const created = SessionWriter.create(this.path(header.id), sideDir(this.dir, header.id), header, this.writerOptions, lock.value);
      // The random part makes a clash all but impossible; if one happens, take another id rather than overwrite.
      if (created.ok || created.error.code !== "EEXIST" || attempt >= 4 || session.id !== undefined) return created;
    }
  }

  /** Session ids in this folder, oldest first. */
  ids(): SessionResult<string[]> {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch (e) {
      if ((e as { code?: string }).code === "ENOENT") return ok([]);
      return ioFailure(e, "list the sessions folder", this.dir);
    }
    const ids = names.filter((n) => n.endsWith(SESSION_EXTENSION)).map((n) => n.slice(0, -SESSION_EXTENSION.length));
    return ok(ids.filter(isSessionId).sort());
  }

  /**
   * Sessions, most recently updated first; only those started in `cwd` when it is given. Unreadable files become
   * warnings. The figures of a file unchanged since the last listing come from the summary cache (summary-cache.ts);
   * only new or changed files are read.
   */
  list(filter: { cwd?: string } = {}): SessionResult<{ sessions: SessionSummary[]; warnings: SessionWarning[] }> {
    const ids = this.ids();
    if (!ids.ok) return ids;
    const sessions: SessionSummary[] = [];
    const warnings: SessionWarning[] = [];
    const cwd = filter.cwd === undefined ? undefined : resolvePath(filter.cwd);
    const wanted = (dir: string): boolean => cwd === undefined || resolvePath(dir) === cwd;
    const cache = SummaryCache.read(summaryCacheFile(this.dir));
    for (const id of ids.value) {
      const path = this.path(id);
      const summary = summaryOf(id, path, cache, wanted);
      if (!summary.ok) warnings.push({ kind: "unreadable", message: summary.error.message, path });
      else if (summary.value) sessions.push(summary.value);
    }
    cache.keepOnly(new Set(ids.value));
    cache.save();
    sessions.sort((a, b) => (a.updated === b.updated ? b.id.localeCompare(a.id) : b.updated.localeCompare(a.updated)));
    return ok({ sessions, warnings });
  }

  /**
   * The id of the session of `cwd` that was updated last (what `awl -c` continues). When the newest file
   * that may be this directory's cannot be read (a newer format, no permission, no header), that file's
   * error is returned rather than an older session: "continue" means the latest one.
   */
  latest(cwd: string): SessionResult<string> {
    const ids = this.ids();
    if (!ids.ok) return ids;
    const want = resolvePath(cwd);
    let best: { result: SessionResult<string>; mtime: number; id: string } | undefined;
    for (const id of ids.value) {
      const path = this.path(id);
      const line = readHeaderLine(path);
      // A sub-agent's side session is continued from its parent, never as "the latest here".
      if (line.ok && isObject(line.value) && line.value.parent !== undefined) continue;
      const claimed = line.ok && isObject(line.value) && typeof line.value.cwd === "string" ? line.value.cwd : undefined;
      if (claimed !== undefined && resolvePath(claimed) !== want) continue;
      const header = line.ok ? parseHeader(line.value, path) : line;
      let mtime: number;
      try {
        mtime = fs.statSync(path).mtimeMs;
      } catch {
        continue; // removed meanwhile
      }
      if (best && (mtime < best.mtime || (mtime === best.mtime && id < best.id))) continue;
      best = { mtime, id, result: header.ok ? ok(id) : header };
    }
    if (!best) return fail("not_found", `no saved session was started in ${want} (sessions are in ${this.dir})`, this.dir);
    return best.result;
  }

  /** A full id, or a unique prefix of the id or of its random part (`20250314-15`, `7f3a`). */
  resolve(idOrPrefix: string): SessionResult<string> {
    const query = idOrPrefix.trim();
    if (query === "") return fail("not_found", "no session id given", this.dir);
    const ids = this.ids();
    if (!ids.ok) return ids;
    if (ids.value.includes(query)) return ok(query);
    const matches = ids.value.filter((id) => id.startsWith(query) || randomPart(id).startsWith(query));
    if (matches.length === 1) return ok(matches[0]!);
    if (matches.length === 0)
      return fail("not_found", `no session matches "${query}" in ${this.dir}; \`awl sessions\` lists them`, this.dir);
    const shown = matches.slice(-5).join(", ");
    return fail("ambiguous", `"${query}" matches ${matches.length} sessions (${shown}${matches.length > 5 ? ", ..." : ""}); give more of the id`, this.dir);
  }

  /** Reads a session without changing its file. */
  load(idOrPrefix: string): SessionResult<LoadedSession> {
    const id = this.resolve(idOrPrefix);
    if (!id.ok) return id;
    const read = readSessionFile(this.path(id.value), sideDir(this.dir, id.value));
    return read.ok ? ok(read.value.session) : read;
  }

  /**
   * Opens a session to continue it: loads it, trims a torn last line, and answers the calls of a last
   * assistant message left without results (the session stopped mid-turn) with one message, appended to both
   * the conversation and the file: each call's result as saved when its tool ended, or a synthetic `is_error`
   * result for a call that has none (SPEC §5). Otherwise the conversation is exactly the saved one.
   * `session.unanswered` still lists the calls that had no results message.
   */
  open(idOrPrefix: string): SessionResult<{ session: LoadedSession; writer: SessionWriter }> {
    const id = this.resolve(idOrPrefix);
    if (!id.ok) return id;
    const path = this.path(id.value);
    const side = sideDir(this.dir, id.value);
    // Locked before reading: what is read must be what this writer appends to (and trims).
    const lock = acquireSessionLock(lockFile(this.dir, id.value), id.value);
    if (!lock.ok) return lock;
    const read = readSessionFile(path, side);
    if (!read.ok) {
      lock.value.release();
      return read;
    }
    const { session, tail, goodSize, fileSize } = read.value;
    const writer = SessionWriter.reopen(path, side, id.value, { goodSize, fileSize, unterminated: tail.kind === "unterminated", leaf: session.leaf, ids: session.ids }, this.writerOptions, lock.value);
    if (!writer.ok) return writer;
    const conversation = session.conversation;
    const batch = resultsOfCutBatch(conversation, session.results);
    if (batch) {
      // The usual case: the last assistant message's calls are answered by a new last message, saved like any
      // other: the results saved as each tool ended, and a synthetic one for each call that has none.
      conversation.addMessage(batch);
      session.transcript.push(batch);
      const saved = writer.value.appendMessage(batch);
      const synced = saved.ok ? writer.value.endTurn() : saved;
      if (!synced.ok) {
        writer.value.close();
        return synced;
      }
    }
    const added = answerUnansweredToolUses(conversation, SESSION_ENDED_RESULT);
    if (added.length > 0) {
      // Only a damaged file (a skipped line) leaves calls unanswered earlier on: repaired in memory, the same way on every load.
      session.warnings.push({
        kind: "invalid_line",
        message: `${path}: tool calls earlier in the session have no saved result (a line was skipped?); they are answered as failed in the conversation sent to the model, and the file is left as it is`,
        path,
      });
    }
    return ok({ session, writer: writer.value });
  }

  /**
   * Deletes session `id`: its file and its side files (a session nobody will resume: one the model never
   * answered). Call with its writer closed.
   */
  remove(id: string): SessionResult<void> {
    try {
      fs.rmSync(this.path(id), { force: true });
      fs.rmSync(sideDir(this.dir, id), { recursive: true, force: true });
      return ok(undefined);
    } catch (e) {
      return ioFailure(e, "remove the session file", this.path(id));
    }
  }

  /** The file of session `id`. */
  path(id: string): string {
    return sessionFile(this.dir, id);
  }
}


/**
 * A file changed this recently may change again within the same tick of the file system's clock, keeping the
 * key it had when it was read (git calls this "racy"): such a file is read, but not cached, until it settles.
 */
const SETTLE_MS = 2_000;

/**
 * The summary of one session for a listing, or undefined when `wanted` refuses its directory: from the cache when
 * it holds figures for exactly this file, else read from the file (and cached once the file has settled).
 */
function summaryOf(id: string, path: string, cache: SummaryCache, wanted: (cwd: string) => boolean): SessionResult<SessionSummary | undefined> {
  let stat: fs.BigIntStats;
  try {
    stat = fs.statSync(path, { bigint: true });
  } catch (e) {
    return ioFailure(e, "read the session file", path);
  }
  const cached = cache.get(id, fileKey(stat));
  if (cached) return ok(wanted(cached.cwd) ? summaryAt(cached, path, modifiedTime(stat)) : undefined);
  const read = summarizeFile(path, (header) => wanted(header.cwd));
  if (!read.ok) return read;
  // ctime moves with every change (mtime too), and cannot be set back by hand.
  if (read.value && Date.now() - Number(read.value.stat.ctimeMs) > SETTLE_MS) cache.set(id, fileKey(read.value.stat), read.value.summary);
  return ok(read.value?.summary);
}

/**
 * The results message for a conversation whose last message is an assistant's with tool calls (killed
 * mid-batch): in the calls' order, each saved result, else a synthetic `is_error` one. Undefined otherwise.
 */
function resultsOfCutBatch(conversation: Conversation, saved: ReadonlyMap<string, ToolResultBlock>): Message | undefined {
  const last = conversation.lastMessage;
  if (last?.role !== "assistant") return undefined;
  const calls = last.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : []));
  if (calls.length === 0) return undefined;
  return { role: "user", content: calls.map((id) => saved.get(id) ?? toolResult(id, SESSION_ENDED_RESULT, true)) };
}
