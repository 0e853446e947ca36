/**
 * Reads a session file into a conversation. Never writes: damage is reported as warnings and recovered
 * around (a torn last line is ignored, an invalid middle line skipped); only a missing or unreadable header
 * or a newer format version stops the load.
 */
import * as fs from "node:fs";
import type { ToolResultBlock } from "../model/blocks.js";
import { Conversation } from "../model/conversation.js";
import { FormatError, messageFromJSON, usageFromJSON } from "../model/json.js";
import { addUsage, emptyUsage, type Message, type Usage } from "../model/message.js";
import { applyCompaction, type CompactionChange } from "../model/compaction.js";
import { fail, ioFailure, ok, type SessionResult, type SessionWarning } from "./errors.js";
import { isObject, parseHeader, type SessionHeader, type ToolEntry, type ToolSnapshot } from "./format.js";
import { applyRawInputs } from "./raw-inputs.js";
import { repairConversation } from "./repair.js";
import { internalizeMessage, internalizeToolEntry } from "./side-files.js";
import { branchTo, type TreeNode } from "./tree.js";

/** A session as read from disk. */
export interface LoadedSession {
  header: SessionHeader;
  path: string;
  /** What is sent to the model: the saved messages, with compactions applied. */
  conversation: Conversation;
  /** Every saved message of the branch in use, compacted or not (for exports and the history shown). */
  transcript: Message[];
  /** Every saved message of every branch, in file order (docs/sessions.md, "Branches"). */
  tree: Map<string, TreeNode>;
  /** The id of the last message of the branch in use (null: none). */
  leaf: string | null;
  /** The id of each message of the branch in use. */
  ids: Map<Message, string>;
  /** The compactions of the branch in use, in order, each with the id of the message it was made after (null: before any). */
  compactions: { leaf: string | null; change: CompactionChange }[];
  /** What tools left for the UI, by tool_use_id, so a resumed session re-renders without running anything. */
  snapshots: Map<string, ToolSnapshot>;
  /** Each tool's result as saved when the tool ended, by tool_use_id (what SessionStore.open answers a batch cut short with). */
  results: Map<string, ToolResultBlock>;
  /** tool_use ids of the last assistant message that no result answers (the session stopped mid-turn). */
  unanswered: string[];
  /** Tokens of every saved assistant message and usage entry. */
  usage: Usage;
  /** The same, one per model call in file order, with the provider and model in use then (to price each call). */
  calls: SessionCall[];
  /** The provider and model last in use (the header's, or the last `model` entry's). */
  provider: string;
  model: string;
  /** Damage found and recovered around. */
  warnings: SessionWarning[];
}

/** One model call's usage and the provider and model that made it. */
export interface SessionCall {
  provider: string;
  model: string;
  usage: Usage;
}

/** How the file ends, for a writer that will append to it. */
export type FileTail =
  /** Ends with a newline after the last entry. */
  | { kind: "clean" }
  /** The last entry is complete but has no newline: one is added before appending. */
  | { kind: "unterminated" }
  /** The last line is cut short: the file is truncated to `goodSize` before appending. */
  | { kind: "torn" };

export interface ReadResult {
  session: LoadedSession;
  tail: FileTail;
  /** Bytes up to the end of the last complete line. */
  goodSize: number;
  /** Bytes in the file when it was read. */
  fileSize: number;
}

/** Reads and checks `path`; `sideDir` is where its large outputs are. */
export function readSessionFile(path: string, sideDir: string): SessionResult<ReadResult> {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(path);
  } catch (e) {
    return ioFailure(e, "read the session file", path);
  }
  const firstEnd = bytes.indexOf(10);
  let headerValue: unknown;
  try {
    headerValue = JSON.parse(bytes.toString("utf8", 0, firstEnd === -1 ? bytes.length : firstEnd));
  } catch {
    return fail("format", `${path} is not an awl session file: its first line is not valid JSON (${bytes.length === 0 ? "the file is empty" : "damaged header"})`, path);
  }
  const header = parseHeader(headerValue, path);
  if (!header.ok) return header;

  const builder = new SessionBuilder(header.value, path, sideDir);
  if (firstEnd === -1) return ok({ session: builder.finish(), tail: { kind: "unterminated" }, goodSize: bytes.length, fileSize: bytes.length });
  let pos = firstEnd + 1;
  let lineNo = 1;
  while (pos < bytes.length) {
    lineNo++;
    const nl = bytes.indexOf(10, pos);
    const end = nl === -1 ? bytes.length : nl;
    const text = bytes.toString("utf8", pos, end);
    let value: unknown;
    let parsed = true;
    try {
      value = text.trim() === "" ? undefined : JSON.parse(text);
    } catch {
      parsed = false;
    }
    if (nl === -1) {
      // The last bytes, with no newline: a complete entry (keep it) or a torn write (trim it).
      if (parsed && value !== undefined && builder.add(value, lineNo, false)) {
        return ok({ session: builder.finish(), tail: { kind: "unterminated" }, goodSize: bytes.length, fileSize: bytes.length });
      }
      builder.warn({
        kind: "torn_tail",
        message: `${path}: the last line (${lineNo}) was cut short, probably by a crash or kill; it is ignored and will be trimmed before the next append`,
        path,
        line: lineNo,
      });
      return ok({ session: builder.finish(), tail: { kind: "torn" }, goodSize: pos, fileSize: bytes.length });
    }
    if (!parsed) {
      builder.warn({ kind: "invalid_line", message: `${path}:${lineNo}: not valid JSON; the line is skipped and the file left as it is`, path, line: lineNo });
    } else if (value !== undefined) {
      builder.add(value, lineNo);
    }
    pos = nl + 1;
  }
  return ok({ session: builder.finish(), tail: { kind: "clean" }, goodSize: bytes.length, fileSize: bytes.length });
}

/** Applies entries in order. */
class SessionBuilder {
  private readonly conversation = new Conversation();
  private readonly nodes = new Map<string, TreeNode>();
  /** The message the next one follows when it names no parent: the last one saved, or the last `branch` entry's. */
  private leaf: string | null = null;
  private readonly compactions: { leaf: string | null; change: CompactionChange; line: number }[] = [];
  private readonly snapshots = new Map<string, ToolSnapshot>();
  private readonly results = new Map<string, ToolResultBlock>();
  private readonly warnings: SessionWarning[] = [];
  private usage = emptyUsage();
  private readonly calls: SessionCall[] = [];
  private provider: string;
  private model: string;

  constructor(
    private readonly header: SessionHeader,
    private readonly path: string,
    private readonly sideDir: string,
  ) {
    this.provider = header.provider;
    this.model = header.model;
  }

  warn(warning: SessionWarning): void {
    this.warnings.push(warning);
  }

  /** Applies one parsed line; false (with a warning, if asked) when it is not a valid entry. */
  add(value: unknown, line: number, warnOnFailure = true): boolean {
    try {
      this.apply(value, line);
      return true;
    } catch (e) {
      if (!warnOnFailure) return false;
      const detail = e instanceof FormatError || e instanceof EntryError ? e.message : String(e);
      this.warn({ kind: "invalid_line", message: `${this.path}:${line}: ${detail}; the line is skipped and the file left as it is`, path: this.path, line });
      return false;
    }
  }

  private apply(value: unknown, line: number): void {
    if (!isObject(value)) throw new EntryError("expected an entry object");
    switch (value.type) {
      case "message": {
        if (!isObject(value.message)) throw new EntryError(`"message" should be an object`);
        const id = value.id === undefined ? `L${line}` : value.id;
        if (typeof id !== "string" || id === "") throw new EntryError(`"id" should be a string`);
        if (this.nodes.has(id)) throw new EntryError(`the message id ${JSON.stringify(id)} is used twice`);
        const named: unknown = value.parent === undefined ? this.leaf : value.parent;
        if (named !== null && typeof named !== "string") throw new EntryError(`"parent" should be a message id or null`);
        let parent = named;
        if (parent !== null && !this.nodes.has(parent)) {
          // Its parent's line was damaged (skipped), or never written: the longest branch keeps it after the message
          // before it. A skipped line was reported already; a link broken by itself is reported here.
          if (!this.warnings.some((w) => w.kind === "invalid_line")) this.warn({
            kind: "invalid_line",
            message: `${this.path}:${line}: the parent message ${JSON.stringify(parent)} is not in the file (a damaged line?); this message is read as following the one before it`,
            path: this.path,
            line,
          });
          parent = this.leaf;
        }
        internalizeMessage(value.message, this.sideDir, line, this.warnings);
        const message = messageFromJSON(value.message, "message");
        applyRawInputs(message, value.raw_inputs);
        this.nodes.set(id, { id, parent, message, line, time: typeof value.time === "string" ? value.time : "" });
        this.leaf = id;
        if (message.role === "assistant") this.addCall(message.usage);
        return;
      }
      case "branch": {
        const leaf = value.leaf;
        if (leaf !== null && (typeof leaf !== "string" || !this.nodes.has(leaf))) throw new EntryError(`"leaf" should name a message saved before it, or be null`);
        this.leaf = leaf;
        return;
      }
      case "tool": {
        if (typeof value.tool_use_id !== "string") throw new EntryError(`"tool_use_id" should be a string`);
        const entry = value as unknown as ToolEntry;
        internalizeToolEntry(entry, this.sideDir, line, this.warnings);
        let result: ToolResultBlock | undefined;
        if (isObject(entry.result)) {
          const holder = { role: "user", content: [entry.result] };
          internalizeMessage(holder, this.sideDir, line, this.warnings);
          const [block] = messageFromJSON(holder, "result").content;
          if (block?.type !== "tool_result" || block.tool_use_id !== entry.tool_use_id)
            throw new EntryError(`"result" should be a tool_result block for ${entry.tool_use_id}`);
          result = block;
        }
        const saved = this.snapshots.get(entry.tool_use_id) ?? {};
        if (entry.snapshot !== undefined) saved.snapshot = entry.snapshot;
        if (typeof entry.title === "string") saved.title = entry.title;
        if (entry.details !== undefined) saved.details = entry.details;
        if (typeof entry.summary === "string") saved.summary = entry.summary;
        // An entry may carry only a result: the UI map keeps tools that left something to show.
        if (Object.keys(saved).length > 0) this.snapshots.set(entry.tool_use_id, saved);
        if (result) this.results.set(entry.tool_use_id, result);

        return;
      }
      case "usage":
        this.addCall(usageFromJSON(value.usage, "usage"));
        return;
      case "model":
        if (typeof value.provider !== "string" || typeof value.model !== "string")
          throw new EntryError(`a model entry needs string "provider" and "model"`);
        this.provider = value.provider;
        this.model = value.model;
        return;
      case "compaction": {
        const replaces = value.replaces;
        if (typeof replaces !== "number" || !Number.isInteger(replaces) || replaces < 0) throw new EntryError(`"replaces" should be a whole number of messages`);
        if (replaces > 0 && typeof value.summary !== "string") throw new EntryError(`"summary" should be a string`);
        const pruned = value.pruned;
        if (pruned !== undefined && !(Array.isArray(pruned) && pruned.every((id) => typeof id === "string")))
          throw new EntryError(`"pruned" should be a list of tool_use ids`);
        const leaf = value.leaf === undefined ? this.leaf : value.leaf;
        if (leaf !== null && typeof leaf !== "string") throw new EntryError(`"leaf" should be a message id or null`);
        const change: CompactionChange = { replaces, ...(typeof value.summary === "string" ? { summary: value.summary } : {}), ...(pruned ? { pruned } : {}) };
        this.compactions.push({ leaf, change, line });
        return;
      }
      default:
        throw new EntryError(`unknown entry type ${JSON.stringify(value.type)}`);
    }
  }

  private addCall(usage: Usage | undefined): void {
    if (!usage) return;
    this.usage = addUsage(this.usage, usage);
    this.calls.push({ provider: this.provider, model: this.model, usage });
  }

  finish(): LoadedSession {
    const branch = branchTo(this.nodes, this.leaf);
    const ids = new Map<Message, string>();
    const lines = new Map<Message, number>();
    const applied: LoadedSession["compactions"] = [];
    const compactionsAt = (leaf: string | null): void => {
      for (const c of this.compactions) {
        if (c.leaf !== leaf) continue;
        if (c.change.replaces > this.conversation.length) {
          this.warn({ kind: "invalid_line", message: `${this.path}:${c.line}: "replaces" should be at most ${this.conversation.length}; the line is skipped and the file left as it is`, path: this.path, line: c.line });
          continue;
        }
        const compacted = applyCompaction(this.conversation.messages, c.change);
        this.conversation.messages.splice(0, this.conversation.messages.length, ...compacted);
        applied.push({ leaf, change: c.change });
      }
    };
    compactionsAt(null);
    for (const node of branch) {
      this.conversation.addMessage(node.message);
      ids.set(node.message, node.id);
      lines.set(node.message, node.line);
      compactionsAt(node.id);
    }
    this.warnings.push(...repairConversation(this.conversation, this.path, (m) => lines.get(m), this.warnings.some((w) => w.kind === "invalid_line")));
    return {
      header: this.header,
      path: this.path,
      conversation: this.conversation,
      transcript: branch.map((n) => n.message),
      tree: this.nodes,
      leaf: branch.length > 0 ? branch[branch.length - 1]!.id : null,
      ids,
      compactions: applied,
      snapshots: this.snapshots,
      results: this.results,
      unanswered: this.conversation.unansweredToolUses().map((b) => b.id),
      usage: this.usage,
      calls: this.calls,
      provider: this.provider,
      model: this.model,
      warnings: this.warnings,
    };
  }
}

class EntryError extends Error {}
