/**
 * The documented JSON form of messages and conversations (docs/conversation-format.md, version 1).
 * Writing: each block is its fields; `tool_use.input` is a JSON value when it parses, else the raw string.
 * Reading: validates shape and names the exact path of anything wrong.
 */
import { THINKING_ORIGINS, type Citation, type ContentBlock, type ImageData, type ThinkingOrigin } from "./blocks.js";
import { Conversation } from "./conversation.js";
import type { Message, Role, StopReason, Usage } from "./message.js";

export const CONVERSATION_FORMAT_VERSION = 1;

/** A message in its JSON form (what `JSON.stringify` would print). */
export type MessageJSON = Record<string, unknown>;

export function messageToJSON(message: Message): MessageJSON {
  const out: MessageJSON = { role: message.role, content: message.content.map(blockToJSON) };
  if (message.stop_reason !== undefined) out.stop_reason = message.stop_reason;
  if (message.stop_reason_raw !== undefined) out.stop_reason_raw = message.stop_reason_raw;
  if (message.usage !== undefined) out.usage = { ...message.usage };
  return out;
}

/** One block in its JSON form (docs/conversation-format.md). */
export function blockToJSON(block: ContentBlock): Record<string, unknown> {
  if (block.type !== "tool_use") return { ...block };
  let input: unknown = block.input;
  const trimmed = block.input.trim();
  if (trimmed === "") input = {};
  else {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      // A parsed string would read back as raw text, so strings stay raw.
      if (typeof parsed !== "string") input = parsed;
    } catch {
      /* stays the raw string */
    }
  }
  return { type: "tool_use", id: block.id, name: block.name, input };
}

export function conversationToJSON(conversation: Conversation): { version: number; messages: MessageJSON[] } {
  return { version: CONVERSATION_FORMAT_VERSION, messages: conversation.messages.map(messageToJSON) };
}

/** A JSON value that does not have the documented shape; `path` says where (e.g. `messages[3].content[0].id`). */
export class FormatError extends Error {
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super(`${path}: ${detail}`);
    this.name = "FormatError";
  }
}

const ROLES: ReadonlySet<string> = new Set(["system", "user", "assistant"]);
const STOP_REASONS: ReadonlySet<string> = new Set([
  "end_turn", "tool_use", "max_tokens", "content_filter", "unknown", "max_steps", "cancelled", "tool_crash", "error",
]);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(obj: Record<string, unknown>, key: string, path: string, optional = false): string | undefined {
  const v = obj[key];
  if (v === undefined && optional) return undefined;
  if (typeof v !== "string") throw new FormatError(`${path}.${key}`, `expected a string, got ${describe(v)}`);
  return v;
}

function describe(v: unknown): string {
  if (v === undefined) return "nothing";
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : `${typeof v} ${JSON.stringify(v)}`;
}

export function messageFromJSON(value: unknown, path = "message"): Message {
  if (!isObject(value)) throw new FormatError(path, `expected an object, got ${describe(value)}`);
  const role = value.role;
  if (typeof role !== "string" || !ROLES.has(role))
    throw new FormatError(`${path}.role`, `expected "system", "user" or "assistant", got ${describe(role)}`);
  if (!Array.isArray(value.content)) throw new FormatError(`${path}.content`, `expected an array, got ${describe(value.content)}`);
  const message: Message = {
    role: role as Role,
    content: value.content.map((b, i) => blockFromJSON(b, `${path}.content[${i}]`)),
  };
  if (value.stop_reason !== undefined) {
    if (typeof value.stop_reason !== "string" || !STOP_REASONS.has(value.stop_reason))
      throw new FormatError(`${path}.stop_reason`, `unknown stop reason ${describe(value.stop_reason)}`);
    message.stop_reason = value.stop_reason as StopReason;
  }
  const raw = str(value, "stop_reason_raw", path, true);
  if (raw !== undefined) message.stop_reason_raw = raw;
  if (value.usage !== undefined) message.usage = usageFromJSON(value.usage, `${path}.usage`);
  return message;
}

/** Reads a usage object (`path` names it in errors). */
export function usageFromJSON(value: unknown, path: string): Usage {
  if (!isObject(value)) throw new FormatError(path, `expected an object, got ${describe(value)}`);
  const num = (key: string, optional: boolean): number | undefined => {
    const v = value[key];
    if (v === undefined && optional) return undefined;
    if (typeof v !== "number" || !Number.isFinite(v)) throw new FormatError(`${path}.${key}`, `expected a number, got ${describe(v)}`);
    return v;
  };
  const usage: Usage = { input_tokens: num("input_tokens", false)!, output_tokens: num("output_tokens", false)! };
  const read = num("cache_read_input_tokens", true);
  const created = num("cache_creation_input_tokens", true);
  if (read !== undefined) usage.cache_read_input_tokens = read;
  if (created !== undefined) usage.cache_creation_input_tokens = created;
  const reasoning = num("reasoning_tokens", true);
  if (reasoning !== undefined) usage.reasoning_tokens = reasoning;
  return usage;
}

function blockFromJSON(value: unknown, path: string): ContentBlock {
  if (!isObject(value)) throw new FormatError(path, `expected an object, got ${describe(value)}`);
  switch (value.type) {
    case "text": {
      const block: ContentBlock = { type: "text", text: str(value, "text", path)! };
      if (value.citations !== undefined) block.citations = citationsFromJSON(value.citations, `${path}.citations`);
      return block;
    }
    case "thinking": {
      const block: ContentBlock = { type: "thinking", thinking: str(value, "thinking", path)! };
      const signature = str(value, "signature", path, true);
      const redacted = str(value, "redacted", path, true);
      if (signature !== undefined) block.signature = signature;
      if (redacted !== undefined) block.redacted = redacted;
      const origin = str(value, "origin", path, true);
      if (origin !== undefined) {
        if (!(THINKING_ORIGINS as readonly string[]).includes(origin))
          throw new FormatError(`${path}.origin`, `expected one of ${THINKING_ORIGINS.join(", ")}, got ${JSON.stringify(origin)}`);
        block.origin = origin as ThinkingOrigin;
      }
      return block;
    }
    case "tool_use": {
      const input = value.input === undefined ? "" : typeof value.input === "string" ? value.input : JSON.stringify(value.input);
      return { type: "tool_use", id: str(value, "id", path)!, name: str(value, "name", path)!, input };
    }
    case "tool_result": {
      const block: ContentBlock = {
        type: "tool_result",
        tool_use_id: str(value, "tool_use_id", path)!,
        content: str(value, "content", path)!,
      };
      if (value.is_error !== undefined) {
        if (typeof value.is_error !== "boolean") throw new FormatError(`${path}.is_error`, `expected a boolean, got ${describe(value.is_error)}`);
        if (value.is_error) block.is_error = true;
      }
      if (value.images !== undefined) block.images = imagesFromJSON(value.images, `${path}.images`);
      return block;
    }
    case "image":
      return { type: "image", ...imageFromJSON(value, path) };
    default:
      throw new FormatError(`${path}.type`, `unknown block type ${describe(value.type)}`);
  }
}

function citationsFromJSON(value: unknown, path: string): Citation[] {
  if (!Array.isArray(value)) throw new FormatError(path, `expected an array, got ${describe(value)}`);
  return value.map((item, i) => {
    if (!isObject(item)) throw new FormatError(`${path}[${i}]`, `expected an object, got ${describe(item)}`);
    const citation: Citation = { url: str(item, "url", `${path}[${i}]`)! };
    const title = str(item, "title", `${path}[${i}]`, true);
    const cited = str(item, "cited_text", `${path}[${i}]`, true);
    if (title !== undefined) citation.title = title;
    if (cited !== undefined) citation.cited_text = cited;
    return citation;
  });
}

function imagesFromJSON(value: unknown, path: string): ImageData[] {
  if (!Array.isArray(value)) throw new FormatError(path, `expected an array, got ${describe(value)}`);
  return value.map((img, i) => {
    if (!isObject(img)) throw new FormatError(`${path}[${i}]`, `expected an object, got ${describe(img)}`);
    return imageFromJSON(img, `${path}[${i}]`);
  });
}

function imageFromJSON(value: Record<string, unknown>, path: string): ImageData {
  return { media_type: str(value, "media_type", path)!, data: str(value, "data", path)! };
}

export function conversationFromJSON(value: unknown): Conversation {
  if (!isObject(value)) throw new FormatError("conversation", `expected an object, got ${describe(value)}`);
  if (value.version !== CONVERSATION_FORMAT_VERSION)
    throw new FormatError(
      "conversation.version",
      `this awl reads version ${CONVERSATION_FORMAT_VERSION}, the data says ${describe(value.version)}`,
    );
  if (!Array.isArray(value.messages)) throw new FormatError("conversation.messages", `expected an array, got ${describe(value.messages)}`);
  return new Conversation(value.messages.map((m, i) => messageFromJSON(m, `messages[${i}]`)));
}
