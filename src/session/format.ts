/**
 * The session file format, version 2 (docs/sessions.md): JSON Lines, one header line then one entry per line.
 * This module holds the entry shapes and the line encoding; reading and writing live in reader.ts / writer.ts.
 */
import type { MessageJSON } from "../model/json.js";
import type { Usage } from "../model/message.js";
import type { SecretScrubber } from "../util/secrets.js";
import { fail, ok, type SessionResult } from "./errors.js";

/**
 * The format version this awl writes (and the highest it reads; version 1 files are read too). A file with a higher
 * version is refused, never guessed at. Version 2: messages carry `id` and `parent` (a session is a tree), `branch`
 * entries switch the branch in use.
 */
export const SESSION_FORMAT_VERSION = 2;

/** The first line of every session file. */
export interface SessionHeader {
  type: "session";
  version: number;
  /** Sortable by creation time and unique; the file is `<id>.jsonl`. */
  id: string;
  /** ISO 8601, UTC. */
  created: string;
  /** The directory awl ran in (what `awl -c` matches). */
  cwd: string;
  provider: string;
  model: string;
  awl_version: string;
  /** Set on a sub-agent's side session: the session and `task` call that started it (docs/sessions.md). */
  parent?: SessionParent;
}

/** Where a side session comes from: the parent session's id, the `task` tool_use that started it, the agent's name. */
export interface SessionParent {
  session: string;
  tool_use_id: string;
  agent: string;
}

/** One message in its documented JSON form (src/model/json.ts); large outputs may be in side files (`content_file`, `data_file`). */
export interface MessageEntry {
  type: "message";
  time: string;
  /** Unique in the file (version 2); a version 1 message's id is `L<line number>`. */
  id?: string;
  /** The message it follows (null: the first of a branch); absent (version 1): the message in use before it. */
  parent?: string | null;
  message: MessageJSON;
  /** tool_use id → the input text exactly as the provider sent it, where the JSON form would not give it back. */
  raw_inputs?: Record<string, string>;
}

/** What a tool left for the UI: its last `ctx:show` snapshot, `ctx:title` text, `details` and `summary`. Later entries for the same id win field by field. */
export interface ToolEntry {
  type: "tool";
  time: string;
  tool_use_id: string;
  snapshot?: unknown;
  /** The block's title as last set with `ctx:title` (shown instead of the input in the block's header). */
  title?: string;
  details?: unknown;
  summary?: string;
  /** Set instead of `snapshot` / `details` when the value was large: a side file holding its JSON. */
  snapshot_file?: string;
  details_file?: string;
  /**
   * The tool's result, saved as soon as the tool ends (a tool_result block in its message JSON form; a large
   * content in a side file as in messages), so a session killed mid-batch keeps the results that finished.
   */
  result?: Record<string, unknown>;
}

/** Tokens spent that no saved message carries: a model call that reported usage, then failed or was cancelled. */
export interface UsageEntry {
  type: "usage";
  time: string;
  usage: Usage;
  /** `retry`, `error` or `cancelled` (what became of the call); readers accept any string. */
  reason?: string;
}

/** The provider or model changed from here on. */
export interface ModelEntry {
  type: "model";
  time: string;
  provider: string;
  model: string;
}

/**
 * A compaction (docs/sessions.md, model/compaction.ts): in what is sent to the model, the results of the `pruned`
 * tool calls become a short note, and the first `replaces` messages of the conversation so far one user message
 * holding `summary`. Everything stays in the file (and in exports) for the record.
 */
export interface CompactionEntry {
  type: "compaction";
  time: string;
  /** The message the conversation ended with when it was compacted (absent: the one in use then). */
  leaf?: string | null;
  /** Required when `replaces` > 0. */
  summary?: string;
  replaces: number;
  pruned?: string[];
  /** Why awl compacted: `threshold`, `overflow` (the provider refused the request as too long) or `manual` (/compact). */
  reason?: string;
  /** The estimated tokens of the conversation before and after. */
  tokens_before?: number;
  tokens_after?: number;
}

/** The branch in use changes: what follows continues from message `leaf` (null: from the start). */
export interface BranchEntry {
  type: "branch";
  time: string;
  leaf: string | null;
  /** `rewind`, `switch` (`/tree`) or `edit`; readers accept any string. */
  reason?: string;
}

export type SessionEntry = MessageEntry | ToolEntry | UsageEntry | ModelEntry | CompactionEntry | BranchEntry;

/** Events a caller can append besides messages and tool snapshots (the writer adds `time`). */
export type SessionEvent =
  | { type: "usage"; usage: Usage; reason?: string }
  | { type: "model"; provider: string; model: string }
  | { type: "compaction"; summary?: string; replaces: number; pruned?: string[]; reason?: string; tokens_before?: number; tokens_after?: number };

/** What a tool left for the UI, as the writer takes it and the reader gives it back. */
export interface ToolSnapshot {
  snapshot?: unknown;
  /** The last `ctx:title` text. */
  title?: string;
  details?: unknown;
  summary?: string;
}

const LINE_SEPARATORS = /[\u2028\u2029]/g;

/**
 * One value as one line of the file, newline included. JSON.stringify already escapes control characters
 * (NUL, newlines) and lone surrogates (so the UTF-8 is always valid); U+2028/U+2029 are escaped too because
 * some JSON-Lines readers treat them as line breaks. They can only occur inside strings, so escaping is safe.
 */
export function encodeLine(value: unknown, scrub: SecretScrubber): string {
  let line = JSON.stringify(value);
  if (LINE_SEPARATORS.test(line)) {
    LINE_SEPARATORS.lastIndex = 0;
    line = line.replace(LINE_SEPARATORS, (c) => (c === "\u2028" ? "\\u2028" : "\\u2029"));
  }
  return scrub.json(line) + "\n";
}

/** A JSON object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Checks a parsed first line: a session header of a version this awl reads. */
export function parseHeader(value: unknown, path: string): SessionResult<SessionHeader> {
  if (!isObject(value) || value.type !== "session")
    return fail("format", `${path} is not an awl session file: its first line is not a session header`, path);
  const version = value.version;
  if (typeof version !== "number" || !Number.isInteger(version) || version < 1)
    return fail("format", `${path}: the session header has no valid format version (got ${JSON.stringify(version)})`, path);
  if (version > SESSION_FORMAT_VERSION)
    return fail(
      "version",
      `${path} uses session format version ${version}, but this awl reads version ${SESSION_FORMAT_VERSION}; upgrade awl to open it`,
      path,
    );
  for (const key of ["id", "created", "cwd", "provider", "model", "awl_version"] as const) {
    if (typeof value[key] !== "string")
      return fail("format", `${path}: the session header field "${key}" should be a string, got ${JSON.stringify(value[key])}`, path);
  }
  return ok(value as unknown as SessionHeader);
}
