/**
 * What `awl sessions` shows about a session, read from its file in one pass that parses only what it needs:
 * the header, user messages until the first prompt, each assistant message's `usage` (read from the end of
 * its line), and `usage` entries; every other line is only counted. The listing keeps these figures in a
 * cache (summary-cache.ts) so an unchanged file is not read again.
 */
import * as fs from "node:fs";
import { usageFromJSON } from "../model/json.js";
import { addUsage, emptyUsage, type Usage } from "../model/message.js";
import { fail, ioFailure, ok, type SessionResult } from "./errors.js";
import { parseHeader, type SessionHeader, type SessionParent } from "./format.js";

export interface SessionSummary {
  id: string;
  path: string;
  /** ISO 8601 times: from the header, and the file's last change. */
  created: string;
  updated: string;
  cwd: string;
  provider: string;
  model: string;
  /** The text of the first user prompt (at most 500 characters), or "" if there is none yet. */
  first_prompt: string;
  /** Saved messages, of every role. */
  messages: number;
  /** Tokens of every saved assistant message and usage entry. */
  tokens: Usage;
  /**
   * The same tokens by provider and model, and by whether the call's input passed 200 000 tokens (where the
   * long-context prices start), so a listing can price them exactly (docs/cost.md).
   */
  tokens_by_model: ModelTokens[];
  /** A sub-agent's side session: the session and call that started it (from the header). */
  parent?: SessionParent;
}

/** Tokens of the calls one model made, above or below the long-context threshold. */
export interface ModelTokens {
  provider: string;
  model: string;
  long_context: boolean;
  usage: Usage;
}

/** Where the long-context tiers of the catalogue start (every tier there starts at 200K input tokens). */
export const LONG_CONTEXT_TOKENS = 200_000;

/** What a summary says about the session itself, without where and when the file is (what the cache keeps). */
export type SummaryFigures = Omit<SessionSummary, "path" | "updated">;

/** The summary of the file at `path`, last changed at `updated`, with these figures (fields always in this order). */
export function summaryAt(f: SummaryFigures, path: string, updated: string): SessionSummary {
  return {
    id: f.id,
    path,
    created: f.created,
    updated,
    cwd: f.cwd,
    provider: f.provider,
    model: f.model,
    first_prompt: f.first_prompt,
    messages: f.messages,
    tokens: f.tokens,
    tokens_by_model: f.tokens_by_model,
    ...(f.parent && { parent: f.parent }),
  };
}

/** A summary and the state of the file it was read from (see {@link fileKey}). */
export interface FileSummary {
  summary: SessionSummary;
  stat: fs.BigIntStats;
}

const FIRST_PROMPT_MAX = 500;

/**
 * The identity of a file's content as far as the listing is concerned: any append, trim, edit (even one that
 * keeps the size and resets the modification time: the change time moves) or replacement changes it.
 */
export function fileKey(stat: fs.BigIntStats): string {
  return `${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}:${stat.dev}:${stat.ino}`;
}

/** The file's last modification as an ISO 8601 time. */
export function modifiedTime(stat: fs.BigIntStats): string {
  return new Date(Number(stat.mtimeMs)).toISOString();
}

/** The first line of a file, parsed as JSON but not checked (so a newer header still shows its `cwd`). */
export function readHeaderLine(path: string): SessionResult<unknown> {
  return withFile(path, (fd) => headerLine(fd, path));
}

/** Runs `use` on the file open for reading; a failed system call is an `io` error naming the file. */
function withFile<T>(path: string, use: (fd: number) => SessionResult<T>): SessionResult<T> {
  let fd: number;
  try {
    fd = fs.openSync(path, "r");
  } catch (e) {
    return ioFailure(e, "read the session file", path);
  }
  try {
    return use(fd);
  } catch (e) {
    return ioFailure(e, "read the session file", path);
  } finally {
    fs.closeSync(fd);
  }
}

function headerLine(fd: number, path: string): SessionResult<unknown> {
  const chunks: Buffer[] = [];
  const chunk = Buffer.alloc(16 * 1024);
  for (let position = 0; ; ) {
    const n = fs.readSync(fd, chunk, 0, chunk.length, position);
    const nl = chunk.subarray(0, n).indexOf(10);
    chunks.push(Buffer.from(chunk.subarray(0, nl === -1 ? n : nl)));
    if (nl !== -1 || n === 0) break;
    position += n;
  }
  try {
    return ok(JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown);
  } catch {
    return fail("format", `${path} is not an awl session file: its first line is not valid JSON`, path);
  }
}

/**
 * Summarises the session file at `path` if its header passes `accept` (else undefined, having read only the
 * header). The file's state and the figures come from the same open file, so they always belong together.
 */
export function summarizeFile(path: string, accept: (header: SessionHeader) => boolean = () => true): SessionResult<FileSummary | undefined> {
  return withFile(path, (fd) => {
    const stat = fs.fstatSync(fd, { bigint: true });
    const line = headerLine(fd, path);
    const header = line.ok ? parseHeader(line.value, path) : line;
    if (!header.ok) return header;
    if (!accept(header.value)) return ok(undefined);
    const bytes = Buffer.allocUnsafe(Number(stat.size));
    let size = 0;
    while (size < bytes.length) {
      const n = fs.readSync(fd, bytes, size, bytes.length - size, size);
      if (n === 0) break; // trimmed meanwhile: its key changed, so these figures are never taken for the new content
      size += n;
    }
    const { id, created, cwd, provider, model } = header.value;
    const { messages, tokens, byModel, firstPrompt } = countLines(bytes.subarray(0, size), { provider, model });
    const parent = parentOf(header.value.parent);
    const figures = { id, created, cwd, provider, model, first_prompt: (firstPrompt ?? "").slice(0, FIRST_PROMPT_MAX), messages, tokens, tokens_by_model: byModel, ...(parent && { parent }) };
    return ok({ summary: summaryAt(figures, path, modifiedTime(stat)), stat });
  });
}

/** The writer's own envelope for a message line; lines of any other shape are parsed in full. */
const MESSAGE_PREFIX = /^\{"type":"message","time":"[^"]*","message":\{"role":"(user|assistant|system)"/;

/** Messages, tokens (in all and by model) and first prompt of the lines after the header. */
function countLines(
  bytes: Buffer,
  start: { provider: string; model: string },
): { messages: number; tokens: Usage; byModel: ModelTokens[]; firstPrompt: string | undefined } {
  let messages = 0;
  let tokens = emptyUsage();
  let firstPrompt: string | undefined;
  let current = start;
  const byModel = new Map<string, ModelTokens>();
  const count = (usage: Usage | undefined): void => {
    if (!usage) return;
    tokens = addUsage(tokens, usage);
    const input = current.provider === "anthropic" ? usage.input_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) : usage.input_tokens;
    const long_context = input > LONG_CONTEXT_TOKENS;
    const key = JSON.stringify([current.provider, current.model, long_context]);
    const bucket = byModel.get(key) ?? { provider: current.provider, model: current.model, long_context, usage: emptyUsage() };
    bucket.usage = addUsage(bucket.usage, usage);
    byModel.set(key, bucket);
  };
  let pos = bytes.indexOf(10) + 1;
  while (pos > 0 && pos < bytes.length) {
    const nl = bytes.indexOf(10, pos);
    const end = nl === -1 ? bytes.length : nl;
    // A last line without its newline may be torn: only a complete entry counts, as on load.
    const role = nl === -1 ? undefined : MESSAGE_PREFIX.exec(bytes.toString("latin1", pos, Math.min(end, pos + 120)))?.[1];
    const usage = role === "assistant" ? tailUsage(bytes, pos, end) : undefined;
    if (role === "system" || (role === "user" && firstPrompt !== undefined) || usage) {
      // Counted without parsing: the bulk of the bytes (tool results, thinking) is never decoded.
      messages++;
      count(usage);
    } else {
      const entry = parseLine(bytes.toString("utf8", pos, end));
      const message = entry?.type === "message" && typeof entry.message === "object" ? (entry.message as Record<string, unknown> | null) : null;
      if (message) {
        messages++;
        if (message.role === "assistant") count(usageOf(message.usage));
        if (message.role === "user" && firstPrompt === undefined) firstPrompt = promptText(message);
      } else if (entry?.type === "usage") {
        count(usageOf(entry.usage));
      } else if (entry?.type === "model" && typeof entry.provider === "string" && typeof entry.model === "string") {
        current = { provider: entry.provider, model: entry.model };
      }
    }
    pos = end + 1;
  }
  return { messages, tokens, byModel: [...byModel.values()], firstPrompt };
}

const USAGE_KEY = Buffer.from(',"usage":{');
/** Room for the usage object at the end of a line (four counts and their names take about 130 bytes). */
const USAGE_TAIL = 400;

/**
 * The usage of an assistant message line, read from its end: the writer puts `usage` last in the message and
 * the message last in the entry, so the line ends `,"usage":{...}}}`. A `,"usage":` nested in the content
 * (a tool input) is always followed by more than `}}` (the content array closes first), so it never parses
 * here. Undefined when the line ends otherwise (no usage, `raw_inputs` after the message): it is parsed whole.
 */
function tailUsage(bytes: Buffer, start: number, end: number): Usage | undefined {
  const from = Math.max(start, end - USAGE_TAIL);
  const at = bytes.subarray(from, end).lastIndexOf(USAGE_KEY);
  if (at === -1) return undefined;
  const objectStart = from + at + USAGE_KEY.length - 1;
  try {
    return usageFromJSON(JSON.parse(bytes.toString("latin1", objectStart, end - 2)), "usage");
  } catch {
    return undefined;
  }
}

/** A line as an entry with a type, or undefined when it is damaged (a full load reports those, a listing does not). */
function parseLine(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Tokens of a usage value, or none when it is damaged. */
function usageOf(value: unknown): Usage | undefined {
  try {
    return value === undefined ? undefined : usageFromJSON(value, "usage");
  } catch {
    return undefined;
  }
}

/** The text of a user message typed by the user (tool results are not prompts). */
function promptText(message: Record<string, unknown>): string | undefined {
  if (!Array.isArray(message.content)) return undefined;
  const texts = (message.content as Record<string, unknown>[]).flatMap((b) => (b?.type === "text" && typeof b.text === "string" ? [b.text] : []));
  return texts.length === 0 ? undefined : texts.join("\n");
}

/** A header's (or cached summary's) `parent`, when it has the documented shape; anything else is ignored. */
export function parentOf(value: unknown): SessionParent | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { session, tool_use_id, agent } = value as Record<string, unknown>;
  if (typeof session !== "string" || typeof tool_use_id !== "string" || typeof agent !== "string") return undefined;
  return { session, tool_use_id, agent };
}
