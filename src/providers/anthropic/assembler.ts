/**
 * Anthropic Messages stream assembly (SPEC §3 rule 4): wire events in, {@link Receiver} block calls and one
 * {@link Message} out. Pure: no I/O, no timers. The driver feeds it each SSE event in order, stops at the
 * first non-`undefined` verdict (`"done"` after `message_stop`, or a `ProviderError`), and makes the
 * message-level Receiver calls (`onMessageStart`, `onMessageComplete`) itself.
 *
 * Decisions for input that breaks the event grammar (documented in docs/providers.md, "Anthropic"):
 * - a `data:` line that is not a JSON object: `stream_error` (its content cannot be placed);
 * - an event type or a delta type awl does not know, `ping`, or a block type awl does not model
 *   (`server_tool_use`, `web_search_tool_result`: the provider's own web search): skipped, with any deltas of
 *   such a block; a server tool's call is reported (`onServerTool`, its input and any error code) once its result
 *   block starts, or at `message_stop` when none came; the text's `citations` (`citations_delta`, or a start
 *   block's) are kept on the text block;
 * - a delta for a block index that never started, for a text/thinking block after its
 *   `content_block_stop`, or of the wrong kind for its block: `stream_error` (the delta would be lost);
 * - a `content_block_stop` for an index never started, or a second one: skipped (nothing is lost);
 * - a second `message_start`, or a `content_block_start` on an index in use: `stream_error`.
 * tool_use blocks complete at `message_stop`, not at their `content_block_stop`, because re-encoders
 * (claude-code-router) send `input_json_delta`s for a tool block after stopping it when the upstream
 * interleaves parallel tool calls; the official SDK applies those late fragments too.
 */
import type { Citation, ContentBlock, ContentBlockType } from "../../model/blocks.js";
import type { Message, Usage } from "../../model/message.js";
import { TextBuffer } from "../../model/text-buffer.js";
import type { SseEvent } from "../sse.js";
import type { EventVerdict, StreamAssembler } from "../stream-driver.js";
import type { Receiver } from "../types.js";
import { classifyStreamError, malformedStream } from "./classify-stream-error.js";
import { mapStopReason } from "./map-stop-reason.js";

type JsonObject = Record<string, unknown>;

/** Private assembly state of one block; `index` is awl's (0, 1, 2... in start order), not the wire's. */
interface BlockState {
  readonly index: number;
  readonly type: ContentBlockType;
  readonly buffer: TextBuffer;
  /** Wire `content_block_stop` seen. */
  stopped: boolean;
  /** `onBlockComplete` called. */
  completed: boolean;
  block?: ContentBlock;
  signature?: string;
  redacted?: string;
  toolId?: string;
  toolName?: string;
  /** tool_use: the `input` object of `content_block_start`, used when no fragment follows. */
  startInput?: string;
  /** text: the web pages it cites. */
  citations?: Citation[];
}

/** A `server_tool_use` block (the provider's own tool) until its result block reports it. */
interface ServerCall {
  readonly id: string;
  readonly name: string;
  /** The `input` of `content_block_start`, used when no fragment follows. */
  readonly startInput: Record<string, unknown>;
  json: string;
  reported: boolean;
}

const USAGE_FIELDS = ["input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"] as const;

export class AnthropicAssembler implements StreamAssembler {
  private started = false; // message_start seen
  private finished = false;
  private readonly blocks: BlockState[] = [];
  /** Wire index → block; `null` marks a block of a type awl skips. */
  private readonly byWireIndex = new Map<number, BlockState | null>();
  /** The provider's own tool calls, by wire index (their input streams like a tool_use block's). */
  private readonly serverCalls = new Map<number, ServerCall>();
  private readonly usage: Partial<Record<(typeof USAGE_FIELDS)[number], number>> = {};
  private stopReasonRaw: string | undefined;

  constructor(private readonly receiver: Receiver) {}

  /** Feeds one event. After `"done"` or an error, further events change nothing. */
  onEvent(event: SseEvent): EventVerdict {
    if (this.finished) return "done";
    if (event.event === "ping") return undefined;
    let payload: unknown;
    try {
      payload = JSON.parse(event.data);
    } catch {
      if (event.event === "error") return classifyStreamError(event.data);
      return malformedStream(`a ${event.event ?? "data"} event whose data is not JSON: ${excerpt(event.data)}`);
    }
    if (!isObject(payload)) return malformedStream(`a ${event.event ?? "data"} event whose data is not a JSON object: ${excerpt(event.data)}`);
    // An error payload is an error whatever its event line says (LiteLLM sends `data: {"error": {...}}` alone).
    if (payload.type === undefined && isObject(payload.error)) return classifyStreamError(payload);
    const type = typeof payload.type === "string" ? payload.type : event.event;
    switch (type) {
      case "message_start":
        return this.messageStart(payload);
      case "content_block_start":
        return this.blockStart(payload);
      case "content_block_delta":
        return this.blockDelta(payload);
      case "content_block_stop":
        return this.blockStop(payload);
      case "message_delta":
        return this.messageDelta(payload);
      case "message_stop":
        return this.messageStop();
      case "error":
        return classifyStreamError(payload);
      default:
        return undefined; // ping and event types awl does not know change nothing
    }
  }

  /** The assembled message; call once `onEvent` returned `"done"`. */
  finish(): Message {
    const message: Message = {
      role: "assistant",
      content: this.blocks.map((b) => b.block!),
      stop_reason: mapStopReason(this.stopReasonRaw),
      usage: this.finalUsage(),
    };
    if (this.stopReasonRaw !== undefined) message.stop_reason_raw = this.stopReasonRaw;
    return message;
  }

  /** The usage `message_start` and `message_delta` reported so far (what a failed attempt still cost). */
  usageSoFar(): Usage | undefined {
    return Object.keys(this.usage).length === 0 ? undefined : this.finalUsage();
  }

  private messageStart(payload: JsonObject): EventVerdict {
    if (this.started) return malformedStream("a second message_start before message_stop");
    this.started = true;
    const message = payload.message;
    if (isObject(message)) this.takeUsage(message.usage);
    return undefined;
  }

  private blockStart(payload: JsonObject): EventVerdict {
    const wireIndex = payload.index;
    const content = payload.content_block;
    if (!isIndex(wireIndex)) return malformedStream(`a content_block_start without a valid index: ${excerpt(JSON.stringify(payload))}`);
    if (this.byWireIndex.has(wireIndex)) return malformedStream(`a second content_block_start for block ${wireIndex}`);
    if (!isObject(content)) return malformedStream(`a content_block_start for block ${wireIndex} without a content_block`);
    const type = modelledType(content.type);
    if (type === undefined) {
      this.byWireIndex.set(wireIndex, null);
      this.serverBlockStart(wireIndex, content);
      return undefined;
    }
    const state: BlockState = { index: this.blocks.length, type, buffer: new TextBuffer(), stopped: false, completed: false };
    if (content.type === "tool_use") {
      if (typeof content.id !== "string" || typeof content.name !== "string")
        return malformedStream(`the tool_use block ${wireIndex} has no id or name`);
      state.toolId = content.id;
      state.toolName = content.name;
      if (isObject(content.input) && Object.keys(content.input).length > 0) state.startInput = JSON.stringify(content.input);
    } else if (content.type === "redacted_thinking") {
      state.redacted = typeof content.data === "string" ? content.data : "";
    }
    this.blocks.push(state);
    this.byWireIndex.set(wireIndex, state);
    if (state.toolId !== undefined) this.receiver.onBlockStart?.(type, state.index, { tool_id: state.toolId, tool_name: state.toolName! });
    else this.receiver.onBlockStart?.(type, state.index);
    // A start block may carry initial content; the API sends it empty, but honour it as a first delta.
    if (content.type === "text" && typeof content.text === "string") this.append(state, content.text);
    if (content.type === "text" && Array.isArray(content.citations)) for (const citation of content.citations) this.cite(state, citation);
    if (content.type === "thinking") {
      if (typeof content.thinking === "string") this.append(state, content.thinking);
      if (typeof content.signature === "string" && content.signature !== "") state.signature = content.signature;
    }
    return undefined;
  }

  private blockDelta(payload: JsonObject): EventVerdict {
    const wireIndex = payload.index;
    const delta = payload.delta;
    if (!isIndex(wireIndex)) return malformedStream(`a content_block_delta without a valid index: ${excerpt(JSON.stringify(payload))}`);
    const state = this.byWireIndex.get(wireIndex);
    if (state === null) {
      // A delta of a skipped block type: only a server tool's input is kept.
      const call = this.serverCalls.get(wireIndex);
      if (call && isObject(delta) && delta.type === "input_json_delta" && typeof delta.partial_json === "string") call.json += delta.partial_json;
      return undefined;
    }
    if (state === undefined) return malformedStream(`a content_block_delta for block ${wireIndex}, which never started`);
    if (!isObject(delta)) return malformedStream(`a content_block_delta for block ${wireIndex} without a delta`);
    const expected = typeof delta.type === "string" ? DELTA_TARGETS.get(delta.type) : undefined;
    if (expected === undefined) return undefined; // unknown delta types (citations_delta...) change nothing
    if (expected !== state.type || state.redacted !== undefined)
      return malformedStream(`a ${String(delta.type)} for the ${state.redacted !== undefined ? "redacted_thinking" : state.type} block ${wireIndex}`);
    if (state.completed) return malformedStream(`a ${String(delta.type)} for block ${wireIndex} after its content_block_stop`);
    switch (delta.type) {
      case "text_delta":
        return this.appendField(state, delta, "text", wireIndex);
      case "thinking_delta":
        return this.appendField(state, delta, "thinking", wireIndex);
      case "input_json_delta":
        return this.appendField(state, delta, "partial_json", wireIndex);
      case "citations_delta":
        this.cite(state, delta.citation);
        return undefined;
      default: // signature_delta: the last one wins, as in the SDK
        if (typeof delta.signature !== "string") return malformedStream(`a signature_delta for block ${wireIndex} without a signature`);
        state.signature = delta.signature;
        return undefined;
    }
  }

  private blockStop(payload: JsonObject): EventVerdict {
    const state = isIndex(payload.index) ? this.byWireIndex.get(payload.index) : undefined;
    if (!state || state.stopped) return undefined; // unknown, skipped or already stopped: nothing to lose
    state.stopped = true;
    if (state.type !== "tool_use") this.complete(state);
    return undefined;
  }

  private messageDelta(payload: JsonObject): EventVerdict {
    const delta = payload.delta;
    if (isObject(delta) && typeof delta.stop_reason === "string") this.stopReasonRaw = delta.stop_reason;
    this.takeUsage(payload.usage);
    return undefined;
  }

  private messageStop(): EventVerdict {
    // tool_use blocks complete here (see the file comment); so does any block whose stop never came.
    for (const state of this.blocks) if (!state.completed) this.complete(state);
    // A server tool whose result never came (the turn paused, `pause_turn`) is reported as such.
    for (const call of this.serverCalls.values()) if (!call.reported) this.reportServerCall(call, "no result came before the message ended");
    this.finished = true;
    return "done";
  }

  /** A skipped block of the provider's own tool: its call is kept until its result block reports it. */
  private serverBlockStart(wireIndex: number, content: JsonObject): void {
    if (content.type === "server_tool_use" && typeof content.id === "string" && typeof content.name === "string") {
      this.serverCalls.set(wireIndex, { id: content.id, name: content.name, startInput: isObject(content.input) ? content.input : {}, json: "", reported: false });
    } else if (typeof content.type === "string" && content.type.endsWith("_tool_result") && typeof content.tool_use_id === "string") {
      const call = [...this.serverCalls.values()].find((c) => c.id === content.tool_use_id && !c.reported);
      // A result holds its pages, or an error object (`web_search_tool_result_error` with an `error_code`).
      const failure = isObject(content.content) ? content.content.error_code : undefined;
      if (call) this.reportServerCall(call, typeof failure === "string" ? failure : undefined);
    }
  }

  private reportServerCall(call: ServerCall, error: string | undefined): void {
    call.reported = true;
    let input = call.startInput;
    try {
      const parsed: unknown = call.json.trim() === "" ? undefined : JSON.parse(call.json);
      if (isObject(parsed)) input = parsed;
    } catch {
      // Input that is not JSON is shown as it came; the call ran on the provider's side either way.
      input = { input: call.json };
    }
    this.receiver.onServerTool?.({ id: call.id, name: call.name, input, ...(error !== undefined && { error }) });
  }

  private appendField(state: BlockState, delta: JsonObject, field: string, wireIndex: number): EventVerdict {
    const text = delta[field];
    if (typeof text !== "string") return malformedStream(`a ${String(delta.type)} for block ${wireIndex} without "${field}"`);
    this.append(state, text);
    return undefined;
  }

  /** Keeps a web page the text cites (other citation kinds, of documents awl never sends, are left out). */
  private cite(state: BlockState, citation: unknown): void {
    if (!isObject(citation) || typeof citation.url !== "string") return;
    const kept: Citation = { url: citation.url };
    if (typeof citation.title === "string") kept.title = citation.title;
    if (typeof citation.cited_text === "string") kept.cited_text = citation.cited_text;
    (state.citations ??= []).push(kept);
  }

  private append(state: BlockState, text: string): void {
    if (text.length === 0) return;
    state.buffer.append(text);
    this.receiver.onContentDelta?.(state.index, text);
  }

  private complete(state: BlockState): void {
    state.completed = true;
    state.block = buildBlock(state);
    this.receiver.onBlockComplete?.(state.index, state.block);
  }

  /** Each field present replaces the earlier value (message_delta usage is cumulative, never added). */
  private takeUsage(usage: unknown): void {
    if (!isObject(usage)) return;
    for (const field of USAGE_FIELDS) {
      const value = usage[field];
      if (typeof value === "number" && Number.isFinite(value)) this.usage[field] = value;
    }
  }

  private finalUsage(): Usage {
    const usage: Usage = { input_tokens: this.usage.input_tokens ?? 0, output_tokens: this.usage.output_tokens ?? 0 };
    if (this.usage.cache_read_input_tokens !== undefined) usage.cache_read_input_tokens = this.usage.cache_read_input_tokens;
    if (this.usage.cache_creation_input_tokens !== undefined) usage.cache_creation_input_tokens = this.usage.cache_creation_input_tokens;
    return usage;
  }
}

/** Which block kind each delta type feeds. */
const DELTA_TARGETS: ReadonlyMap<string, ContentBlockType> = new Map([
  ["text_delta", "text"],
  ["thinking_delta", "thinking"],
  ["signature_delta", "thinking"],
  ["input_json_delta", "tool_use"],
  ["citations_delta", "text"],
]);

function modelledType(type: unknown): ContentBlockType | undefined {
  if (type === "text" || type === "thinking" || type === "tool_use") return type;
  if (type === "redacted_thinking") return "thinking";
  return undefined;
}

function buildBlock(state: BlockState): ContentBlock {
  const text = state.buffer.toString();
  switch (state.type) {
    case "tool_use":
      // No fragments (or only whitespace) means the start block's input, which the API sends as `{}`.
      return { type: "tool_use", id: state.toolId!, name: state.toolName!, input: text.trim() === "" ? (state.startInput ?? "{}") : text };
    case "thinking": {
      const block: ContentBlock = { type: "thinking", thinking: text };
      if (state.signature !== undefined) block.signature = state.signature;
      if (state.redacted !== undefined) block.redacted = state.redacted;
      return block;
    }
    default:
      return state.citations ? { type: "text", text, citations: state.citations } : { type: "text", text };
  }
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isIndex(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

function excerpt(text: string): string {
  return text.length <= 120 ? text : `${text.slice(0, 120)}…`;
}
