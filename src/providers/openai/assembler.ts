/**
 * OpenAI `chat/completions` stream chunks → Receiver block calls and one assistant message
 * (the seed's block-boundary state machine, with SPEC §3 rule 3).
 *
 * OpenAI has no block events, so blocks are inferred: reasoning, text and tool calls each open a block when the
 * previous block was of another kind (thinking → text → thinking gives three blocks). Tool calls are keyed by
 * `tool_calls[].index` and each is its own block. Blocks reach the Receiver strictly one after another, so
 * when a server interleaves the argument deltas of parallel calls, the first call streams live and the others
 * are held back and replayed, in index order, when it completes (at the end of the message, or when text or
 * reasoning starts). The message is complete only at `data: [DONE]`.
 */
import type { ContentBlock, ToolUseBlock } from "../../model/blocks.js";
import type { Message, Usage } from "../../model/message.js";
import { TextBuffer } from "../../model/text-buffer.js";
import { errorCode, errorFields, kindOfStreamError } from "../classify-error-payload.js";
import { excerpt, messageFromErrorObject } from "../classify-http-error.js";
import { providerError, type ProviderError } from "../errors.js";
import type { SseEvent } from "../sse.js";
import type { EventVerdict, StreamAssembler } from "../stream-driver.js";
import type { Receiver } from "../types.js";
import { mapOpenAIStopReason } from "./map-stop-reason.js";

interface ToolCallState {
  /** The wire `index` (negative for servers that send none). */
  key: number;
  id: string;
  name: string;
  args: TextBuffer;
  /** Receiver block index once started. */
  blockIndex: number | undefined;
  done: boolean;
}

type ActiveBlock =
  | { kind: "text" | "thinking"; index: number; buffer: TextBuffer }
  | { kind: "tool"; index: number; call: ToolCallState }
  | undefined;

const EXCERPT = 200;

export class ChatCompletionAssembler implements StreamAssembler {
  private readonly blocks: ContentBlock[] = [];
  private active: ActiveBlock;
  /** Tool calls by wire index, and in order of first appearance. */
  private readonly calls = new Map<number, ToolCallState>();
  private readonly callOrder: ToolCallState[] = [];
  private finishReason: string | undefined;
  private usage: Usage | undefined;

  constructor(
    private readonly receiver: Receiver,
    /** Names the endpoint in error messages. */
    private readonly source: string,
  ) {}

  onEvent(event: SseEvent): EventVerdict {
    const data = event.data;
    if (data === "[DONE]") return "done";
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      const excerpt = data.length > EXCERPT ? `${data.slice(0, EXCERPT)}…` : data;
      return providerError("bad_response", `malformed JSON in the stream from ${this.source}: ${excerpt}`);
    }
    if (typeof chunk !== "object" || chunk === null) return undefined;
    const record = chunk as Record<string, unknown>;
    if (record.error !== undefined && record.error !== null) {
      const fields = errorFields(record);
      const detail = excerpt(messageFromErrorObject(record) ?? "unknown error");
      const code = errorCode(fields);
      return providerError(kindOfStreamError(fields), `the server reported an error in the stream from ${this.source}: ${detail}`, code ? { code } : {});
    }
    if (typeof record.usage === "object" && record.usage !== null) this.usage = convertUsage(record.usage as Record<string, unknown>);
    const choice = firstChoice(record.choices);
    if (choice === undefined) return undefined;
    const delta = choice.delta as Record<string, unknown> | null | undefined;
    if (typeof delta === "object" && delta !== null) this.onDelta(delta);
    if (typeof choice.finish_reason === "string") this.finishReason = choice.finish_reason;
    return undefined;
  }

  finish(): Message {
    this.closeActive();
    this.flushToolCalls();
    const hasToolCalls = this.callOrder.length > 0;
    const message: Message = {
      role: "assistant",
      content: this.blocks,
      stop_reason: mapOpenAIStopReason(this.finishReason, hasToolCalls),
    };
    if (this.finishReason !== undefined) message.stop_reason_raw = this.finishReason;
    if (this.usage) message.usage = this.usage;
    return message;
  }

  /** The usage chunk, if it came before the stream failed (it comes last, just before `[DONE]`). */
  usageSoFar(): Usage | undefined {
    return this.usage;
  }

  private onDelta(delta: Record<string, unknown>): void {
    // One delta may carry both names for the same reasoning (some proxies copy it): count it once.
    const reasoning = nonEmptyString(delta.reasoning_content) ?? nonEmptyString(delta.reasoning);
    if (reasoning !== undefined) this.appendTextual("thinking", reasoning);
    // A refusal (OpenAI) is what the model said instead of an answer: the user must see it, so it is text.
    const content = nonEmptyString(delta.content) ?? nonEmptyString(delta.refusal);
    if (content !== undefined) this.appendTextual("text", content);
    if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) this.onToolCallDelta(call);
  }

  private appendTextual(kind: "text" | "thinking", text: string): void {
    let active = this.active;
    if (active?.kind !== kind) {
      this.closeActive();
      this.flushToolCalls();
      active = { kind, index: this.blocks.length, buffer: new TextBuffer() };
      this.active = active;
      this.receiver.onBlockStart?.(kind, active.index);
    }
    active.buffer.append(text);
    this.receiver.onContentDelta?.(active.index, text);
  }

  private onToolCallDelta(value: unknown): void {
    if (typeof value !== "object" || value === null) return;
    const wire = value as { index?: unknown; id?: unknown; function?: { name?: unknown; arguments?: unknown } | null };
    const call = this.callFor(wire.index, wire.id);
    if (call.id === "" && typeof wire.id === "string") call.id = wire.id;
    const fn = typeof wire.function === "object" && wire.function !== null ? wire.function : {};
    if (call.name === "" && typeof fn.name === "string") call.name = fn.name;
    const fragment = typeof fn.arguments === "string" ? fn.arguments : "";
    call.args.append(fragment);
    if (call.done) return; // a late fragment for a finished block: kept in the message, not re-streamed
    const active = this.active;
    if (active?.kind === "tool") {
      if (active.call === call && fragment !== "") this.receiver.onContentDelta?.(active.index, fragment);
      return; // another call is streaming: this one is held back until it completes
    }
    this.closeActive();
    this.startToolCall(call);
  }

  /** The state for a wire index; servers that omit `index` get a new call per new id, else the latest call. */
  private callFor(index: unknown, id: unknown): ToolCallState {
    let key: number;
    if (typeof index === "number") key = index;
    else {
      const last = this.callOrder[this.callOrder.length - 1];
      const isNew = last === undefined || (typeof id === "string" && id !== "" && last.id !== "" && id !== last.id);
      key = isNew ? -1 - this.callOrder.length : last.key;
    }
    let call = this.calls.get(key);
    if (!call) {
      call = { key, id: "", name: "", args: new TextBuffer(), blockIndex: undefined, done: false };
      this.calls.set(key, call);
      this.callOrder.push(call);
    }
    return call;
  }

  private startToolCall(call: ToolCallState): void {
    const index = this.blocks.length;
    call.blockIndex = index;
    if (call.id === "") call.id = `call_${index}`;
    this.active = { kind: "tool", index, call };
    this.receiver.onBlockStart?.("tool_use", index, { tool_id: call.id, tool_name: call.name });
    const args = call.args.toString();
    if (args !== "") this.receiver.onContentDelta?.(index, args);
  }

  private closeActive(): void {
    const active = this.active;
    if (active === undefined) return;
    this.active = undefined;
    let block: ContentBlock;
    if (active.kind === "tool") {
      active.call.done = true;
      block = toolUseBlock(active.call);
    } else if (active.kind === "text") block = { type: "text", text: active.buffer.toString() };
    else block = { type: "thinking", thinking: active.buffer.toString() };
    this.blocks.push(block);
    this.receiver.onBlockComplete?.(active.index, block);
  }

  /** Starts and completes, in order, every tool call not yet finished. */
  private flushToolCalls(): void {
    for (const call of this.callOrder) {
      if (call.done) continue;
      this.startToolCall(call);
      this.closeActive();
    }
  }
}

function toolUseBlock(call: ToolCallState): ToolUseBlock {
  const input = call.args.toString();
  return { type: "tool_use", id: call.id, name: call.name, input: input.trim() === "" ? "{}" : input };
}

/**
 * The choice awl assembles: the one with `index` 0, found by its index, not its place in the array (awl never
 * asks for `n` > 1, but a server may send other choices anyway, even alone in a chunk: they are another answer
 * and are skipped). A choice without an index is a server that numbers nothing: it is the only one.
 */
function firstChoice(choices: unknown): Record<string, unknown> | undefined {
  if (!Array.isArray(choices)) return undefined;
  for (const choice of choices) {
    if (typeof choice !== "object" || choice === null) continue;
    const index = (choice as { index?: unknown }).index;
    if (index === 0 || index === undefined || index === null) return choice as Record<string, unknown>;
  }
  return undefined;
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** OpenAI usage → awl usage; cache reads from `prompt_tokens_details.cached_tokens` (OpenAI) or `prompt_cache_hit_tokens` (DeepSeek). */
function convertUsage(wire: Record<string, unknown>): Usage {
  const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
  const usage: Usage = { input_tokens: num(wire.prompt_tokens) ?? 0, output_tokens: num(wire.completion_tokens) ?? 0 };
  const details = wire.prompt_tokens_details as Record<string, unknown> | null | undefined;
  const cached = num(details?.cached_tokens) ?? num(wire.prompt_cache_hit_tokens);
  if (cached !== undefined) usage.cache_read_input_tokens = cached;
  return usage;
}
