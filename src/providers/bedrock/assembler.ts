/**
 * Bedrock ConverseStream events (decoded by event-stream.ts) → Receiver block calls and one assistant message.
 *
 * `messageStart`; per block `contentBlockStart` (tool calls only: id and name), `contentBlockDelta`s (`text`,
 * `toolUse.input` fragments, `reasoningContent` `text`/`signature`/`redactedContent`), `contentBlockStop`;
 * `messageStop` with the stop reason; then `metadata` with the usage. Blocks are keyed by `contentBlockIndex`; a text
 * or reasoning block starts at its first delta. The message is complete at `metadata` after `messageStop` (or when
 * the body ends after `messageStop`); before that, the driver calls the stream truncated. Exceptions in the stream
 * are errors by their type (throttling retried, validation not).
 */
import type { ContentBlock } from "../../model/blocks.js";
import type { Message, StopReason, Usage } from "../../model/message.js";
import { TextBuffer } from "../../model/text-buffer.js";
import { malformedJsonError, soundsLikeContextOverflow } from "../classify-error-payload.js";
import { excerpt } from "../classify-http-error.js";
import { providerError, type ProviderError, type ProviderErrorKind } from "../errors.js";
import { num, objectOf, str } from "../json-fields.js";
import type { SseEvent } from "../sse.js";
import type { EventVerdict, StreamAssembler } from "../stream-driver.js";
import type { Receiver } from "../types.js";

type Open =
  | { kind: "text" | "thinking"; index: number; buffer: TextBuffer; signature?: string; redacted?: string }
  | { kind: "tool_use"; index: number; id: string; name: string; buffer: TextBuffer };

/** Stream exceptions (ConverseStreamOutput's error members) → awl's kinds. */
const EXCEPTIONS: Record<string, ProviderErrorKind> = {
  throttlingException: "rate_limit",
  serviceUnavailableException: "overloaded",
  internalServerException: "server",
  modelStreamErrorException: "server",
  validationException: "bad_request",
};

export class BedrockAssembler implements StreamAssembler {
  /** By awl's block index (start order). */
  private readonly blocks: ContentBlock[] = [];
  private started = 0;
  private readonly open = new Map<number, Open>();
  private stopRaw: string | undefined;
  private usage: Usage | undefined;

  constructor(
    private readonly receiver: Receiver,
    private readonly source: string,
  ) {}

  onEvent(event: SseEvent): EventVerdict {
    const type = event.event ?? "";
    if (type === ":corrupt") return providerError("bad_response", `the event stream from ${this.source} is corrupt: ${event.data}`);
    if (type.startsWith("exception:") || type.startsWith("error:")) return this.exception(type, event.data);
    let payload: Record<string, unknown> | undefined;
    try {
      payload = objectOf(JSON.parse(event.data));
    } catch {
      return malformedJsonError(this.source, event.data);
    }
    if (payload === undefined) return undefined;
    switch (type) {
      case "contentBlockStart": {
        const index = num(payload.contentBlockIndex) ?? 0;
        const tool = objectOf(objectOf(payload.start)?.toolUse);
        if (tool) this.start(index, { kind: "tool_use", index: this.nextIndex(), id: str(tool.toolUseId) ?? "", name: str(tool.name) ?? "", buffer: new TextBuffer() });
        return undefined;
      }
      case "contentBlockDelta":
        return this.delta(num(payload.contentBlockIndex) ?? 0, objectOf(payload.delta) ?? {});
      case "contentBlockStop":
        this.stop(num(payload.contentBlockIndex) ?? 0);
        return undefined;
      case "messageStop":
        this.stopRaw = str(payload.stopReason) ?? "unknown";
        return undefined;
      case "metadata": {
        const usage = objectOf(payload.usage);
        if (usage) this.usage = convertUsage(usage);
        return this.stopRaw === undefined ? undefined : "done";
      }
      default:
        return undefined; // messageStart, and event types added later
    }
  }

  endOfStream(): EventVerdict {
    return this.stopRaw === undefined ? undefined : "done";
  }

  finish(): Message | ProviderError {
    for (const wire of [...this.open.keys()]) this.stop(wire);
    const content = this.blocks.filter((b) => b !== undefined);
    const hasToolCalls = content.some((b) => b.type === "tool_use");
    const message: Message = { role: "assistant", content, stop_reason: mapStopReason(this.stopRaw, hasToolCalls) };
    if (this.stopRaw !== undefined) message.stop_reason_raw = this.stopRaw;
    if (this.usage) message.usage = this.usage;
    return message;
  }

  usageSoFar(): Usage | undefined {
    return this.usage;
  }

  private exception(type: string, data: string): ProviderError {
    const name = type.slice(type.indexOf(":") + 1);
    let message = data;
    try {
      message = str(objectOf(JSON.parse(data))?.message) ?? data;
    } catch {
      /* the text as sent */
    }
    let kind = EXCEPTIONS[name] ?? "stream_error";
    if (kind === "bad_request" && isContextOverflow(message)) kind = "context_length";
    return providerError(kind, `Bedrock reported ${name} in the stream from ${this.source}: ${excerpt(message)}`, { code: name });
  }

  private nextIndex(): number {
    return this.started++;
  }

  private start(wire: number, block: Open): void {
    if (this.open.has(wire)) this.stop(wire);
    this.open.set(wire, block);
    this.receiver.onBlockStart?.(block.kind, block.index, block.kind === "tool_use" ? { tool_id: block.id, tool_name: block.name } : undefined);
  }

  private delta(wire: number, delta: Record<string, unknown>): EventVerdict {
    const text = str(delta.text);
    const tool = objectOf(delta.toolUse);
    const reasoning = objectOf(delta.reasoningContent);
    const kind = text !== undefined ? "text" : tool ? "tool_use" : reasoning ? "thinking" : undefined;
    if (kind === undefined) return undefined; // citations and other deltas awl does not model
    let block = this.open.get(wire);
    if (block && block.kind !== kind) return providerError("bad_response", `a ${kind} delta for block ${wire}, a ${block.kind} block, from ${this.source}`);
    if (!block) {
      if (kind === "tool_use") return providerError("bad_response", `a tool input delta for block ${wire}, which never started, from ${this.source}`);
      block = { kind, index: this.nextIndex(), buffer: new TextBuffer() };
      this.start(wire, block);
    }
    const piece = text ?? str(tool?.input) ?? str(reasoning?.text) ?? "";
    if (block.kind === "thinking") {
      const signature = str(reasoning?.signature);
      if (signature !== undefined) block.signature = (block.signature ?? "") + signature;
      const redacted = str(reasoning?.redactedContent);
      if (redacted !== undefined) block.redacted = redacted;
    }
    if (piece !== "") {
      block.buffer.append(piece);
      this.receiver.onContentDelta?.(block.index, piece);
    }
    return undefined;
  }

  private stop(wire: number): void {
    const open = this.open.get(wire);
    if (!open) return;
    this.open.delete(wire);
    let block: ContentBlock;
    if (open.kind === "tool_use") block = { type: "tool_use", id: open.id, name: open.name, input: open.buffer.toString().trim() === "" ? "{}" : open.buffer.toString() };
    else if (open.kind === "text") block = { type: "text", text: open.buffer.toString() };
    else {
      block = { type: "thinking", thinking: open.buffer.toString(), origin: "bedrock" };
      if (open.signature !== undefined) block.signature = open.signature;
      if (open.redacted !== undefined) block.redacted = open.redacted;
    }
    this.blocks[open.index] = block;
    this.receiver.onBlockComplete?.(open.index, block);
  }
}

/** Bedrock's wordings of a context-window refusal ("Input is too long for requested model."), and the general ones. */
export function isContextOverflow(message: string): boolean {
  return /input is too long|too many input tokens/i.test(message) || soundsLikeContextOverflow(message);
}

function mapStopReason(raw: string | undefined, hasToolCalls: boolean): StopReason {
  switch (raw) {
    case "end_turn":
    case "stop_sequence":
      return hasToolCalls ? "tool_use" : "end_turn";
    case "tool_use":
      return "tool_use";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "max_tokens";
    case "guardrail_intervened":
    case "content_filtered":
      return "content_filter";
    default:
      return "unknown";
  }
}

/** Converse usage: `inputTokens` excludes the cache (as Anthropic's), reads and writes apart. */
function convertUsage(wire: Record<string, unknown>): Usage {
  const usage: Usage = { input_tokens: num(wire.inputTokens) ?? 0, output_tokens: num(wire.outputTokens) ?? 0 };
  const read = num(wire.cacheReadInputTokens);
  if (read !== undefined) usage.cache_read_input_tokens = read;
  const write = num(wire.cacheWriteInputTokens);
  if (write !== undefined) usage.cache_creation_input_tokens = write;
  return usage;
}
