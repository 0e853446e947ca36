/**
 * What `awl sessions` shows about a session, read quickly: the header, then one pass over the lines that
 * parses only what it needs (assistant messages for tokens, user messages until the first prompt).
 */
import * as fs from "node:fs";
import { usageFromJSON } from "../model/json.js";
import { addUsage, emptyUsage, type Usage } from "../model/message.js";
import { fail, ioFailure, ok, type SessionResult } from "./errors.js";
import { parseHeader, type SessionHeader } from "./format.js";

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
}

const FIRST_PROMPT_MAX = 500;

/** Reads only the header line of a session file. */
export function readHeader(path: string): SessionResult<SessionHeader> {
  const line = readHeaderLine(path);
  return line.ok ? parseHeader(line.value, path) : line;
}

/** The first line of a file, parsed as JSON but not checked (so a newer header still shows its `cwd`). */
export function readHeaderLine(path: string): SessionResult<unknown> {
  let fd: number;
  try {
    fd = fs.openSync(path, "r");
  } catch (e) {
    return ioFailure(e, "read the session file", path);
  }
  try {
    const chunks: Buffer[] = [];
    const chunk = Buffer.alloc(16 * 1024);
    for (;;) {
      const n = fs.readSync(fd, chunk, 0, chunk.length, null);
      const nl = chunk.subarray(0, n).indexOf(10);
      chunks.push(Buffer.from(chunk.subarray(0, nl === -1 ? n : nl)));
      if (nl !== -1 || n === 0) break;
    }
    try {
      return ok(JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown);
    } catch {
      return fail("format", `${path} is not an awl session file: its first line is not valid JSON`, path);
    }
  } catch (e) {
    return ioFailure(e, "read the session file", path);
  } finally {
    fs.closeSync(fd);
  }
}

/** The writer's own envelope for a message line; lines of any other shape are parsed in full. */
const MESSAGE_PREFIX = /^\{"type":"message","time":"[^"]*","message":\{"role":"(user|assistant|system)"/;

/** Summarises a session file already known to have `header`. */
export function summarize(path: string, header: SessionHeader): SessionResult<SessionSummary> {
  let bytes: Buffer;
  let updated: string;
  try {
    bytes = fs.readFileSync(path);
    updated = fs.statSync(path).mtime.toISOString();
  } catch (e) {
    return ioFailure(e, "read the session file", path);
  }
  let messages = 0;
  let tokens = emptyUsage();
  let firstPrompt: string | undefined;
  let pos = bytes.indexOf(10) + 1;
  while (pos > 0 && pos < bytes.length) {
    const nl = bytes.indexOf(10, pos);
    const end = nl === -1 ? bytes.length : nl;
    const role = MESSAGE_PREFIX.exec(bytes.toString("latin1", pos, Math.min(end, pos + 120)))?.[1];
    if (role === "system" || (role === "user" && firstPrompt !== undefined)) {
      messages++; // counted without parsing: the bulk of the bytes (tool results) is never decoded
    } else {
      const entry = parseLine(bytes.toString("utf8", pos, end));
      const message = entry?.type === "message" && typeof entry.message === "object" ? (entry.message as Record<string, unknown> | null) : null;
      if (message) {
        messages++;
        if (message.role === "assistant") tokens = addUsage(tokens, usageOf(message.usage));
        if (message.role === "user" && firstPrompt === undefined) firstPrompt = promptText(message);
      } else if (entry?.type === "usage") {
        tokens = addUsage(tokens, usageOf(entry.usage));
      }
    }
    pos = end + 1;
  }
  return ok({
    id: header.id,
    path,
    created: header.created,
    updated,
    cwd: header.cwd,
    provider: header.provider,
    model: header.model,
    first_prompt: (firstPrompt ?? "").slice(0, FIRST_PROMPT_MAX),
    messages,
    tokens,
  });
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
