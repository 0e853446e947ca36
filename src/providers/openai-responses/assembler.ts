/**
 * OpenAI Responses API stream events (`response.*`) → Receiver block calls and one assistant message.
 *
 * Each output item is one block: a `message` item's text (and refusal text, which the user must see) a text
 * block; a `reasoning` item's summary parts (joined by a blank line) a thinking block that keeps the item's
 * `encrypted_content` as its signature (`origin: "openai-responses"`), so it can be sent back; a `function_call`
 * a tool_use block whose arguments stream. Items of other types (server-side tools) make no block; a
 * `web_search_call` is reported in its place (`onServerTool`: its action, and its status unless completed). Blocks reach
 * the Receiver in output order, one after another: an item that streams while an earlier one is still open is
 * held back and replayed when its turn comes. The message is complete only at `response.completed` or
 * `response.incomplete`; `response.failed` and `error` events are errors. Event types awl does not know are
 * ignored, and each is reported once through `onUnknownEvent`.
 */
import type { Citation, ContentBlock } from "../../model/blocks.js";
import type { Message, Usage } from "../../model/message.js";
import { TextBuffer } from "../../model/text-buffer.js";
import { errorCode, errorFields, kindOfStreamError, malformedJsonError } from "../classify-error-payload.js";
import { excerpt, messageFromErrorObject } from "../classify-http-error.js";
import { providerError, type ProviderError } from "../errors.js";
import { num, objectOf, str } from "../json-fields.js";
import type { SseEvent } from "../sse.js";
import type { EventVerdict, StreamAssembler } from "../stream-driver.js";
import type { Receiver } from "../types.js";
import { mapResponsesStopReason } from "./map-stop-reason.js";

/** `server`: the provider's own web search (`web_search_call`), reported with `onServerTool` in its place. */
type ItemKind = "text" | "thinking" | "tool" | "server" | "skip";

interface ItemState {
  kind: ItemKind;
  outputIndex: number;
  buffer: TextBuffer;
  /** Receiver block index once started. */
  blockIndex: number | undefined;
  done: boolean;
  /** Tool calls: the call id and function name (a server call: its item id). */
  callId: string;
  name: string;
  /** Thinking: the encrypted reasoning, from `output_item.done`. */
  encrypted: string | undefined;
  /** Thinking: the summary part being streamed, to put a blank line between parts. */
  summaryIndex: number | undefined;
  /** Text: the web pages its `url_citation` annotations cite. */
  citations: Citation[];
  /** Server: the finished item (its `action` and `status`), from `output_item.done`. */
  finished?: Record<string, unknown>;
}

/** Events with nothing for awl in them (their content also arrives in the events handled below). */
const IGNORED = new Set([
  "response.created",
  "response.in_progress",
  "response.queued",
  "response.content_part.added",
  "response.content_part.done",
  "response.output_text.done",
  "response.refusal.done",
  "response.reasoning_summary_part.done",
  "response.reasoning_summary_text.done",
  "response.reasoning_text.done",
  // The provider's own web search (ProviderSettings.webSearch): its progress; its citations come with the text.
  "response.web_search_call.in_progress",
  "response.web_search_call.searching",
  "response.web_search_call.completed",
]);

export class ResponsesAssembler implements StreamAssembler {
  private readonly blocks: ContentBlock[] = [];
  /** Items by `output_index`, and in output order. */
  private readonly items = new Map<number, ItemState>();
  private readonly order: ItemState[] = [];
  /** The first item not yet completed to the Receiver. */
  private cursor = 0;
  private status: string | undefined;
  private incompleteReason: string | undefined;
  private usage: Usage | undefined;

  constructor(
    private readonly receiver: Receiver,
    /** Names the endpoint in error messages. */
    private readonly source: string,
    /** Told once per provider about each event type awl does not know (it is ignored). */
    private readonly onUnknownEvent: (type: string) => void = () => {},
  ) {}

  onEvent(event: SseEvent): EventVerdict {
    if (event.data === "[DONE]") return undefined;
    let payload: unknown;
    try {
      payload = JSON.parse(event.data);
    } catch {
      return malformedJsonError(this.source, event.data);
    }
    if (typeof payload !== "object" || payload === null) return undefined;
    const record = payload as Record<string, unknown>;
    const type = typeof record.type === "string" ? record.type : (event.event ?? "");
    switch (type) {
      case "response.output_item.added":
        this.onItemAdded(record);
        return undefined;
      case "response.output_item.done":
        this.onItemDone(record);
        return undefined;
      case "response.output_text.delta":
      case "response.refusal.delta":
      case "response.function_call_arguments.delta":
      case "response.reasoning_text.delta":
        this.onDelta(record, str(record.delta) ?? "");
        return undefined;
      case "response.output_text.annotation.added": {
        const item = this.itemOf(record);
        if (item?.kind === "text") addCitation(item.citations, record.annotation);
        return undefined;
      }
      case "response.reasoning_summary_text.delta":
        this.onSummaryDelta(record);
        return undefined;
      case "response.reasoning_summary_part.added":
        this.onSummaryPart(record);
        return undefined;
      case "response.function_call_arguments.done": {
        const item = this.itemOf(record);
        if (item?.kind === "tool" && item.buffer.length === 0) this.onDelta(record, str(record.arguments) ?? "");
        return undefined;
      }
      case "response.completed":
      case "response.incomplete":
        this.onEnd(record.response);
        return "done";
      case "response.failed":
        return this.streamError(objectOf(record.response)?.error ?? record.response ?? record);
      case "error":
        return this.streamError(record.error ?? record);
      default:
        if (!IGNORED.has(type)) this.onUnknownEvent(type);
        return undefined;
    }
  }

  finish(): Message {
    for (const item of this.order) item.done = true;
    this.pump();
    const hasToolCalls = this.blocks.some((b) => b.type === "tool_use");
    const message: Message = { role: "assistant", content: this.blocks, stop_reason: mapResponsesStopReason(this.status, this.incompleteReason, hasToolCalls) };
    const raw = this.incompleteReason ?? this.status;
    if (raw !== undefined) message.stop_reason_raw = raw;
    if (this.usage) message.usage = this.usage;
    return message;
  }

  private onItemAdded(record: Record<string, unknown>): void {
    const index = num(record.output_index);
    const wire = objectOf(record.item);
    if (index === undefined || wire === undefined || this.items.has(index)) return;
    const kind: ItemKind = wire.type === "message" ? "text" : wire.type === "reasoning" ? "thinking" : wire.type === "function_call" ? "tool" : wire.type === "web_search_call" ? "server" : "skip";
    const item: ItemState = {
      kind,
      outputIndex: index,
      buffer: new TextBuffer(),
      blockIndex: undefined,
      done: false,
      callId: str(kind === "server" ? wire.id : wire.call_id) ?? "",
      name: str(wire.name) ?? "",
      encrypted: undefined,
      summaryIndex: undefined,
      citations: [],
    };
    this.items.set(index, item);
    this.order.push(item);
    // Items are announced in output order; one announced late still takes its place (before the cursor: at it).
    let at = this.order.length - 1;
    while (at > this.cursor && this.order[at - 1]!.outputIndex > index) {
      this.order[at] = this.order[at - 1]!;
      at--;
    }
    this.order[at] = item;
    this.pump();
  }

  private onItemDone(record: Record<string, unknown>): void {
    const item = this.itemOf(record);
    const wire = objectOf(record.item);
    if (item === undefined || wire === undefined) return;
    // Whatever the deltas did not carry (a server that sends whole items) comes from the finished item.
    if (item.buffer.length === 0) {
      const whole = item.kind === "tool" ? str(wire.arguments) : item.kind === "text" ? messageText(wire.content) : item.kind === "thinking" ? summaryText(wire.summary) : undefined;
      if (whole) this.onDelta(record, whole);
    }
    if (item.kind === "tool") {
      item.callId ||= str(wire.call_id) ?? "";
      item.name ||= str(wire.name) ?? "";
    }
    if (item.kind === "thinking") item.encrypted = str(wire.encrypted_content) ?? undefined;
    if (item.kind === "server") item.finished = wire;
    // The finished item holds every annotation (a server may send no annotation events).
    if (item.kind === "text" && Array.isArray(wire.content)) {
      for (const part of wire.content) for (const annotation of arrayOf(objectOf(part)?.annotations)) addCitation(item.citations, annotation);
    }
    item.done = true;
    this.pump();
  }

  private onSummaryPart(record: Record<string, unknown>): void {
    const item = this.itemOf(record);
    const part = num(record.summary_index);
    if (item?.kind !== "thinking" || part === undefined) return;
    if (item.summaryIndex !== undefined && part !== item.summaryIndex && item.buffer.length > 0) this.onDelta(record, "\n\n");
    item.summaryIndex = part;
  }

  private onSummaryDelta(record: Record<string, unknown>): void {
    this.onSummaryPart(record);
    this.onDelta(record, str(record.delta) ?? "");
  }

  private onDelta(record: Record<string, unknown>, delta: string): void {
    const item = this.itemOf(record);
    if (item === undefined || item.kind === "skip" || item.kind === "server" || delta === "") return;
    item.buffer.append(delta);
    if (item.blockIndex !== undefined && this.order[this.cursor] === item) this.receiver.onContentDelta?.(item.blockIndex, delta);
    else this.pump();
  }

  /** Starts, and completes, blocks in output order as far as the items allow. */
  private pump(): void {
    for (let item = this.order[this.cursor]; item !== undefined; item = this.order[this.cursor]) {
      if (item.kind === "server") {
        // Reported in its place: what streams after it waits until it is done.
        if (!item.done) return;
        this.reportServerCall(item);
        this.cursor++;
        continue;
      }
      if (item.kind !== "skip" && item.blockIndex === undefined && (item.done || item.kind === "tool" || item.buffer.length > 0)) this.start(item);
      if (!item.done && item.kind !== "skip") return;
      if (item.blockIndex !== undefined) this.complete(item);
      this.cursor++;
    }
  }

  /** A finished `web_search_call`: its action (`{type: "search", query}`) is the input; a status other than completed fails. */
  private reportServerCall(item: ItemState): void {
    const wire = item.finished;
    const id = str(wire?.id) ?? (item.callId || `ws_${item.outputIndex}`);
    const status = str(wire?.status);
    const error = wire === undefined ? "no result came before the response ended" : status !== undefined && status !== "completed" ? status : undefined;
    this.receiver.onServerTool?.({ id, name: "web_search", input: objectOf(wire?.action) ?? {}, ...(error !== undefined && { error }) });
  }

  private start(item: ItemState): void {
    if (item.kind === "skip" || item.kind === "server") return;
    // An empty message or a reasoning item with nothing to show or send back makes no block.
    if (item.kind === "text" && item.buffer.length === 0) return;
    if (item.kind === "thinking" && item.buffer.length === 0 && !item.encrypted) return;
    const index = this.blocks.length;
    item.blockIndex = index;
    if (item.kind === "tool") {
      if (item.callId === "") item.callId = `call_${index}`;
      this.receiver.onBlockStart?.("tool_use", index, { tool_id: item.callId, tool_name: item.name });
    } else this.receiver.onBlockStart?.(item.kind, index);
    if (item.buffer.length > 0) this.receiver.onContentDelta?.(index, item.buffer.toString());
  }

  private complete(item: ItemState): void {
    const index = item.blockIndex!;
    const text = item.buffer.toString();
    let block: ContentBlock;
    if (item.kind === "tool") block = { type: "tool_use", id: item.callId, name: item.name, input: text.trim() === "" ? "{}" : text };
    else if (item.kind === "text") block = item.citations.length > 0 ? { type: "text", text, citations: item.citations } : { type: "text", text };
    else {
      block = { type: "thinking", thinking: text };
      if (item.encrypted) Object.assign(block, { signature: item.encrypted, origin: "openai-responses" });
    }
    this.blocks.push(block);
    this.receiver.onBlockComplete?.(index, block);
  }

  private onEnd(value: unknown): void {
    const response = objectOf(value);
    this.status = str(response?.status);
    this.incompleteReason = str(objectOf(response?.incomplete_details)?.reason);
    const usage = objectOf(response?.usage);
    if (usage) this.usage = convertUsage(usage);
  }

  private streamError(value: unknown): ProviderError {
    const fields = errorFields(value);
    const detail = excerpt(messageFromErrorObject(value) ?? "unknown error");
    const code = errorCode(fields);
    return providerError(kindOfStreamError(fields), `the server reported an error in the stream from ${this.source}: ${detail}`, code ? { code } : {});
  }

  private itemOf(record: Record<string, unknown>): ItemState | undefined {
    const index = num(record.output_index);
    return index === undefined ? undefined : this.items.get(index);
  }
}

function convertUsage(wire: Record<string, unknown>): Usage {
  const usage: Usage = { input_tokens: num(wire.input_tokens) ?? 0, output_tokens: num(wire.output_tokens) ?? 0 };
  const cached = num(objectOf(wire.input_tokens_details)?.cached_tokens);
  if (cached !== undefined) usage.cache_read_input_tokens = cached;
  const reasoning = num(objectOf(wire.output_tokens_details)?.reasoning_tokens);
  if (reasoning !== undefined) usage.reasoning_tokens = reasoning;
  return usage;
}

/** A finished message item's text: its `output_text` parts, and its `refusal` parts (what the model said instead). */
function messageText(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content.map((part) => str(objectOf(part)?.text) ?? str(objectOf(part)?.refusal) ?? "").join("");
}

function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Keeps a `url_citation` annotation's page, once per URL (the finished item repeats what the events said). */
function addCitation(citations: Citation[], value: unknown): void {
  const annotation = objectOf(value);
  const url = str(annotation?.url);
  if (annotation?.type !== "url_citation" || url === undefined || citations.some((c) => c.url === url)) return;
  const title = str(annotation.title);
  citations.push(title === undefined ? { url } : { url, title });
}

function summaryText(summary: unknown): string {
  if (!Array.isArray(summary)) return "";
  return summary.map((part) => str(objectOf(part)?.text) ?? "").filter((t) => t !== "").join("\n\n");
}
