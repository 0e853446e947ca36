/**
 * Gemini `streamGenerateContent?alt=sse` chunks (each a whole `GenerateContentResponse`) → Receiver block calls and
 * one assistant message.
 *
 * Parts of the first candidate are read in order: consecutive text parts are one text block, consecutive thought
 * parts (`thought: true`) one thinking block, each `functionCall` a tool_use block (its arguments arrive whole), each
 * `inlineData` part (an image model's picture) an image block.
 * A `thoughtSignature` must go back on the part it came with: on a thought it is that thinking block's signature;
 * on a text or function-call part it becomes an empty thinking block just before that part's block (the request
 * builder puts it back on the part after it). Every such thinking block has `origin: "gemini"`.
 *
 * Gemini has no terminal event: the stream simply ends after the chunk that carries `finishReason`, so a stream
 * is complete when its body ends after one (`endOfStream`); one that ends without is `truncated`. `usageMetadata`
 * replaces, never adds. A prompt blocked by `promptFeedback.blockReason`, and a blocking `finishReason` (SAFETY,
 * MALFORMED_FUNCTION_CALL...) with nothing produced, are errors that say why.
 */
import { randomBytes } from "node:crypto";
import type { ContentBlock } from "../../model/blocks.js";
import type { Message, Usage } from "../../model/message.js";
import { TextBuffer } from "../../model/text-buffer.js";
import { errorCode, errorFields, kindOfStreamError, malformedJsonError } from "../classify-error-payload.js";
import { excerpt, messageFromErrorObject } from "../classify-http-error.js";
import { providerError, type ProviderError } from "../errors.js";
import { num, objectOf, str } from "../json-fields.js";
import type { SseEvent } from "../sse.js";
import type { EventVerdict, StreamAssembler } from "../stream-driver.js";
import type { Receiver } from "../types.js";
import { describeBlockingFinish, mapGeminiStopReason } from "./map-stop-reason.js";
import { GENERATED_ID_PREFIX } from "./request.js";

type Active = { kind: "text" | "thinking"; index: number; buffer: TextBuffer; signature: string | undefined } | undefined;

export class GeminiAssembler implements StreamAssembler {
  private readonly blocks: ContentBlock[] = [];
  private active: Active;
  private finishReason: string | undefined;
  private finishMessage: string | undefined;
  private usage: Usage | undefined;

  constructor(
    private readonly receiver: Receiver,
    /** Names the endpoint in error messages. */
    private readonly source: string,
  ) {}

  onEvent(event: SseEvent): EventVerdict {
    let chunk: unknown;
    try {
      chunk = JSON.parse(event.data);
    } catch {
      return malformedJsonError(this.source, event.data);
    }
    const record = objectOf(chunk);
    if (record === undefined) return undefined;
    if (record.error !== undefined && record.error !== null) {
      const fields = errorFields(record);
      const code = errorCode(fields) ?? str(objectOf(record.error)?.status);
      const detail = excerpt(messageFromErrorObject(record) ?? "unknown error");
      return providerError(kindOfStreamError(fields), `the server reported an error in the stream from ${this.source}: ${detail}`, code ? { code } : {});
    }
    const usage = objectOf(record.usageMetadata);
    if (usage) this.usage = convertUsage(usage);
    const blockReason = str(objectOf(record.promptFeedback)?.blockReason);
    if (blockReason !== undefined) {
      const said = str(objectOf(record.promptFeedback)?.blockReasonMessage);
      return providerError("bad_request", `Gemini refused the prompt (blockReason ${blockReason})${said ? `: ${said}` : ""}; rephrase it or remove what its filters flag`, { code: blockReason });
    }
    const candidate = Array.isArray(record.candidates) ? objectOf(record.candidates[0]) : undefined;
    if (candidate === undefined) return undefined;
    const parts = objectOf(candidate.content)?.parts;
    if (Array.isArray(parts)) for (const part of parts) this.onPart(objectOf(part));
    const finish = str(candidate.finishReason);
    if (finish !== undefined && finish !== "FINISH_REASON_UNSPECIFIED") {
      this.finishReason = finish;
      this.finishMessage = str(candidate.finishMessage);
    }
    return undefined;
  }

  endOfStream(): EventVerdict {
    return this.finishReason === undefined ? undefined : "done";
  }

  finish(): Message | ProviderError {
    this.close();
    const raw = this.finishReason;
    const produced = this.blocks.some((b) => (b.type === "text" && b.text !== "") || b.type === "tool_use" || b.type === "image");
    const blocking = raw === undefined ? undefined : describeBlockingFinish(raw);
    if (!produced && blocking !== undefined)
      return providerError("bad_request", `${blocking} (finishReason ${raw})${this.finishMessage ? `: ${excerpt(this.finishMessage)}` : ""}`, { code: raw });
    const hasToolCalls = this.blocks.some((b) => b.type === "tool_use");
    const message: Message = { role: "assistant", content: this.blocks, stop_reason: mapGeminiStopReason(raw, hasToolCalls) };
    if (raw !== undefined) message.stop_reason_raw = raw;
    if (this.usage) message.usage = this.usage;
    return message;
  }

  /** The tokens of a failed attempt: Gemini reports usage on every chunk. */
  usageSoFar(): Usage | undefined {
    return this.usage;
  }

  private onPart(part: Record<string, unknown> | undefined): void {
    if (part === undefined) return;
    const signature = str(part.thoughtSignature);
    const text = str(part.text);
    if (part.thought === true) {
      if (!text && signature === undefined) return;
      if (this.active?.kind === "thinking" && this.active.signature !== undefined && signature !== undefined) this.close();
      this.append("thinking", text ?? "");
      if (signature !== undefined) this.active!.signature = signature;
      return;
    }
    const call = objectOf(part.functionCall);
    if (call !== undefined) {
      this.close();
      if (signature !== undefined) this.signatureBlock(signature);
      this.toolUse(call);
      return;
    }
    const image = objectOf(part.inlineData);
    if (text === undefined && image === undefined) {
      if (signature !== undefined) {
        this.close();
        this.signatureBlock(signature);
      }
      return; // executable code, code results and other parts awl does not model
    }
    if (signature !== undefined) {
      this.close();
      this.signatureBlock(signature);
    }
    if (text) this.append("text", text);
    if (image !== undefined) this.image(image);
  }

  /** An image the model made (`inlineData`): an image block of its own, whole (images do not stream). */
  private image(inline: Record<string, unknown>): void {
    const mediaType = str(inline.mimeType);
    const data = str(inline.data);
    if (!mediaType || !data) {
      this.append("text", `[the model sent an image awl could not read (${mediaType ? "no data" : "no mimeType"})]`);
      return;
    }
    this.close();
    const index = this.blocks.length;
    const block: ContentBlock = { type: "image", media_type: mediaType, data };
    this.receiver.onBlockStart?.("image", index);
    this.blocks.push(block);
    this.receiver.onBlockComplete?.(index, block);
  }

  private append(kind: "text" | "thinking", text: string): void {
    let active = this.active;
    if (active?.kind !== kind) {
      this.close();
      active = { kind, index: this.blocks.length, buffer: new TextBuffer(), signature: undefined };
      this.active = active;
      this.receiver.onBlockStart?.(kind, active.index);
    }
    if (text === "") return;
    active.buffer.append(text);
    this.receiver.onContentDelta?.(active.index, text);
  }

  private close(): void {
    const active = this.active;
    if (active === undefined) return;
    this.active = undefined;
    let block: ContentBlock;
    if (active.kind === "text") block = { type: "text", text: active.buffer.toString() };
    else {
      block = { type: "thinking", thinking: active.buffer.toString() };
      if (active.signature !== undefined) Object.assign(block, { signature: active.signature, origin: "gemini" });
    }
    this.blocks.push(block);
    this.receiver.onBlockComplete?.(active.index, block);
  }

  /** An empty thinking block that holds the signature of the part after it. */
  private signatureBlock(signature: string): void {
    const index = this.blocks.length;
    const block: ContentBlock = { type: "thinking", thinking: "", signature, origin: "gemini" };
    this.receiver.onBlockStart?.("thinking", index);
    this.blocks.push(block);
    this.receiver.onBlockComplete?.(index, block);
  }

  private toolUse(call: Record<string, unknown>): void {
    const index = this.blocks.length;
    const id = str(call.id) || `${GENERATED_ID_PREFIX}${randomBytes(6).toString("hex")}`;
    const name = str(call.name) ?? "";
    const input = JSON.stringify(objectOf(call.args) ?? {});
    this.receiver.onBlockStart?.("tool_use", index, { tool_id: id, tool_name: name });
    this.receiver.onContentDelta?.(index, input);
    const block: ContentBlock = { type: "tool_use", id, name, input };
    this.blocks.push(block);
    this.receiver.onBlockComplete?.(index, block);
  }
}

/** Gemini usage → awl usage: output counts the thoughts too (they are billed as output), cached tokens are reads. */
function convertUsage(wire: Record<string, unknown>): Usage {
  const thoughts = num(wire.thoughtsTokenCount);
  const usage: Usage = { input_tokens: num(wire.promptTokenCount) ?? 0, output_tokens: (num(wire.candidatesTokenCount) ?? 0) + (thoughts ?? 0) };
  const cached = num(wire.cachedContentTokenCount);
  if (cached !== undefined) usage.cache_read_input_tokens = cached;
  if (thoughts !== undefined) usage.reasoning_tokens = thoughts;
  return usage;
}
