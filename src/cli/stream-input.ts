/**
 * `--input-format stream-json`: what one stdin line says (docs/cli.md, "Input format"). Claude Code's shapes:
 * `{"type":"user","message":{"role":"user","content":...}}` sends a prompt, and
 * `{"type":"control_request","request_id":ID,"request":{"subtype":"interrupt"}}` interrupts the running turn; awl's
 * own control requests rewind (`rewind_points`, `rewind`) and fork the session (`fork`).
 * Anything else is a line awl refuses with a message saying why; it never stops reading.
 */
import type { ImageBlock, TextBlock } from "../model/blocks.js";
import { promptImage } from "../model/images.js";
import type { RewindMode } from "../agent-session/branching.js";

export type InputLine =
  | { kind: "prompt"; content: Array<TextBlock | ImageBlock> }
  | { kind: "interrupt"; request_id: string | null }
  | { kind: "rewind_points"; request_id: string | null }
  | { kind: "rewind"; request_id: string | null; to: number; mode: RewindMode; overwrite_changed: boolean; dry_run: boolean }
  | { kind: "fork"; request_id: string | null }
  | { kind: "blank" }
  | { kind: "invalid"; message: string };

/** Reads one line (without its LF). */
export function parseInputLine(line: string): InputLine {
  const text = line.endsWith("\r") ? line.slice(0, -1) : line;
  if (text.trim() === "") return { kind: "blank" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { kind: "invalid", message: `not JSON (${e instanceof Error ? e.message : String(e)})` };
  }
  if (!isRecord(value)) return { kind: "invalid", message: "not a JSON object" };
  switch (value.type) {
    case "user":
      return userLine(value);
    case "control_request":
      return controlLine(value);
    default: {
      const type = typeof value.type === "string" ? `"${value.type}"` : JSON.stringify(value.type ?? null);
      return { kind: "invalid", message: `unknown type ${type} (awl reads "user" and "control_request")` };
    }
  }
}

function userLine(value: Record<string, unknown>): InputLine {
  const message = value.message;
  if (!isRecord(message)) return { kind: "invalid", message: 'a "user" line needs "message": {"role": "user", "content": ...}' };
  if (message.role !== undefined && message.role !== "user") return { kind: "invalid", message: `"message.role" must be "user", got ${JSON.stringify(message.role)}` };
  const content = message.content;
  if (typeof content === "string") {
    return content.trim() === "" ? { kind: "invalid", message: "the message is empty" } : { kind: "prompt", content: [{ type: "text", text: content }] };
  }
  if (!Array.isArray(content)) return { kind: "invalid", message: '"message.content" must be a string or an array of content blocks' };
  const blocks: Array<TextBlock | ImageBlock> = [];
  for (const [i, block] of content.entries()) {
    if (!isRecord(block)) return { kind: "invalid", message: `content block ${i} is not an object` };
    if (block.type === "text" && typeof block.text === "string") blocks.push({ type: "text", text: block.text });
    else if (block.type === "text") return { kind: "invalid", message: `content block ${i} (text) needs a "text" string` };
    else if (block.type === "image") {
      // Anthropic's shape, as Claude Code takes it: {"type":"image","source":{"type":"base64","media_type":...,"data":...}}.
      const source = block.source;
      if (!isRecord(source) || source.type !== "base64") return { kind: "invalid", message: `content block ${i} (image) needs "source": {"type": "base64", "media_type": ..., "data": ...}` };
      const image = promptImage(source.media_type, source.data);
      if (!image.ok) return { kind: "invalid", message: `content block ${i} (image) ${image.message}` };
      blocks.push(image.image);
    } else return { kind: "invalid", message: `content block ${i} has type ${JSON.stringify(block.type ?? null)}; awl takes "text" and "image" blocks in prompts` };
  }
  if (blocks.every((b) => b.type === "text" && b.text.trim() === "")) return { kind: "invalid", message: "the message is empty" };
  return { kind: "prompt", content: blocks };
}

const SUBTYPES = ["interrupt", "rewind_points", "rewind", "fork"];

function controlLine(value: Record<string, unknown>): InputLine {
  const request = value.request;
  const request_id = typeof value.request_id === "string" ? value.request_id : null;
  if (!isRecord(request) || !SUBTYPES.includes(request.subtype as string)) {
    const subtype = isRecord(request) ? JSON.stringify(request.subtype ?? null) : "none";
    return { kind: "invalid", message: `unknown control request subtype ${subtype} (awl knows ${SUBTYPES.map((s) => `"${s}"`).join(", ")})` };
  }
  switch (request.subtype) {
    case "rewind": {
      const { to, mode, overwrite_changed, dry_run } = request;
      if (typeof to !== "number" || !Number.isInteger(to) || to < 1) return { kind: "invalid", message: `a rewind needs "to": a prompt number from 1 (got ${JSON.stringify(to ?? null)})` };
      if (mode !== "code" && mode !== "conversation" && mode !== "both") return { kind: "invalid", message: `a rewind needs "mode": "code", "conversation" or "both" (got ${JSON.stringify(mode ?? null)})` };
      for (const [name, flag] of [["overwrite_changed", overwrite_changed], ["dry_run", dry_run]] as const)
        if (flag !== undefined && typeof flag !== "boolean") return { kind: "invalid", message: `"${name}" must be true or false (got ${JSON.stringify(flag)})` };
      return { kind: "rewind", request_id, to, mode, overwrite_changed: overwrite_changed === true, dry_run: dry_run === true };
    }
    case "rewind_points":
      return { kind: "rewind_points", request_id };
    case "fork":
      return { kind: "fork", request_id };
    default:
      return { kind: "interrupt", request_id };
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Splits a byte stream into lines at LF only (a U+2028 inside a JSON string is not a line end) and decodes each
 * line as UTF-8; a last line without LF counts at the end.
 */
export async function* readLines(input: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  let pending: Buffer[] = [];
  for await (const chunk of input) {
    let bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    for (let at = bytes.indexOf(0x0a); at !== -1; at = bytes.indexOf(0x0a)) {
      pending.push(bytes.subarray(0, at));
      yield Buffer.concat(pending).toString("utf8");
      pending = [];
      bytes = bytes.subarray(at + 1);
    }
    if (bytes.length > 0) pending.push(bytes);
  }
  if (pending.length > 0) yield Buffer.concat(pending).toString("utf8");
}
