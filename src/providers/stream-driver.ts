/**
 * The attempt loop every wire API shares (SPEC §3 rules 2, 6 and 7). A wire API supplies a
 * {@link WireAdapter}: a pure request builder and an assembler that turns SSE events into Receiver calls.
 * The driver owns everything else: HTTP, status classification, SSE framing, truncation, stalls,
 * retries with backoff, cancellation, and the order of the Receiver's first and last calls.
 *
 * Receiver calls made by the driver itself: `onMessageStart("assistant")` once the response is accepted as an
 * event stream (before any event reaches the assembler); `onMessageComplete` after `finish()` succeeds;
 * `onRetry` before each retry; `onError` as the very last call on failure. A failure after retries carries
 * `retries` (how many were made), so callers never assume `maxRetries`. The assembler makes the block
 * calls (`onBlockStart`, `onContentDelta`, `onBlockComplete`) in between.
 */
import type { Conversation } from "../model/conversation.js";
import type { Message, Usage } from "../model/message.js";
import { abortableSleep } from "../util/abortable-sleep.js";
import { classifyHttpError, classifyNonSseResponse, describeUrl, isEventStream, type HttpFailure } from "./classify-http-error.js";
import { isProviderError, providerError, type ProviderError } from "./errors.js";
import { postStreaming, type ResponseHead } from "./http.js";
import { retryDelayMs } from "./retry-delay.js";
import type { SseDecoder, SseEvent } from "./sse.js";
import type { ProviderSettings, Receiver, StepResult, StreamOptions } from "./types.js";

/** The HTTP request for one model call; `body` is the exact JSON text sent. */
export interface WireRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** After each event: `"done"` at the terminal marker, a {@link ProviderError} for an error in the stream, else undefined. */
export type EventVerdict = "done" | ProviderError | undefined;

/** Per-attempt state that turns one response's SSE events into Receiver block calls. Created fresh for every attempt. */
export interface StreamAssembler {
  /** Handles one event, calling the Receiver's block callbacks synchronously. Must not throw on bad data: return an error. */
  onEvent(event: SseEvent): EventVerdict;
  /** Called once after `"done"`: completes any open block (`onBlockComplete`) and returns the whole message. */
  finish(): Message | ProviderError;
  /**
   * Optional: the tokens the stream reported before it failed (Anthropic's `message_start` carries the input's),
   * or undefined when it reported none. The driver puts them on the attempt's error (`ProviderError.usage`).
   */
  usageSoFar?(): Usage | undefined;
  /**
   * Optional, for wire APIs with no terminal marker (Gemini ends a stream by closing it): called when the body
   * ended cleanly before any verdict; `"done"` accepts the message, undefined makes it `truncated`.
   */
  endOfStream?(): EventVerdict;
}

/** One wire API (OpenAI chat/completions, Anthropic messages, ...), without any I/O of its own. */
export interface WireAdapter {
  /** Names the terminal marker in messages, e.g. `data: [DONE]` or `message_stop`. */
  readonly terminalMarker: string;
  /**
   * Builds the request; deterministic (same input, same bytes). May return an error for a conversation it cannot send.
   * Asynchronous for a wire API whose credentials are fetched (Bedrock's AWS chain, Vertex's Google token).
   */
  buildRequest(conversation: Conversation, options: StreamOptions): WireRequest | ProviderError | Promise<WireRequest | ProviderError>;
  createAssembler(receiver: Receiver): StreamAssembler;
  /** Overrides the generic non-2xx classification (e.g. to read a vendor's error type). */
  classifyHttpError?(failure: HttpFailure): ProviderError;
  /**
   * For a wire API whose stream is not SSE (Bedrock's AWS event stream): the response's content type and a decoder
   * that turns its bytes into the same `{event, data}` events. Default: `text/event-stream` and the SSE decoder.
   */
  readonly stream?: { contentType: string; createDecoder(onEvent: (event: SseEvent) => void): SseDecoder };
}

/** Retry and stall settings the driver reads from {@link ProviderSettings}. */
export type DriverSettings = Pick<ProviderSettings, "maxRetries" | "stallTimeoutMs" | "firstByteTimeoutMs">;

/** Error bodies are read up to this size for the message; the rest is discarded. */
const ERROR_BODY_LIMIT = 64 * 1024;

/**
 * Streams one assistant message through `adapter`, retrying retryable failures (rule 7).
 * Never throws and never touches the conversation: the caller appends `result.message` on success.
 */
export async function runStream(
  adapter: WireAdapter,
  settings: DriverSettings,
  conversation: Conversation,
  receiver: Receiver,
  options: StreamOptions = {},
): Promise<StepResult> {
  const signal = options.signal;
  let error: ProviderError;
  let retries = 0;
  try {
    const request = await adapter.buildRequest(conversation, options);
    if (isProviderError(request)) error = request;
    else {
      for (let attempt = 1; ; attempt++) {
        const result = await attemptOnce(adapter, request, settings, receiver, signal);
        if (result.ok) {
          receiver.onMessageComplete?.(result.message);
          return result;
        }
        error = result.error;
        const delay = attempt <= settings.maxRetries && error.retryable && !signal?.aborted ? retryDelayMs(error.retry_after_ms, attempt) : undefined;
        if (delay === undefined) break;
        retries = attempt;
        receiver.onRetry?.({ error, attempt, max_retries: settings.maxRetries, delay_ms: delay });
        if (!(await abortableSleep(delay, signal))) {
          error = providerError("aborted", "the request was cancelled while waiting to retry");
          break;
        }
      }
    }
  } catch (thrown) {
    error = internalError(thrown);
  }
  if (retries > 0) error = { ...error, retries };
  try {
    receiver.onError?.(error);
  } catch {
    /* the receiver's own failure cannot be reported to it */
  }
  return { ok: false, error };
}

/** One attempt; a failure carries the tokens the stream had reported by then (billed, though no message keeps them). */
async function attemptOnce(
  adapter: WireAdapter,
  request: WireRequest,
  settings: DriverSettings,
  receiver: Receiver,
  signal: AbortSignal | undefined,
): Promise<StepResult> {
  const assembler = adapter.createAssembler(receiver);
  const result = await streamAttempt(adapter, assembler, request, settings, receiver, signal);
  const usage = result.ok ? undefined : assembler.usageSoFar?.();
  return usage && !result.ok ? { ok: false, error: { ...result.error, usage } } : result;
}

async function streamAttempt(
  adapter: WireAdapter,
  assembler: StreamAssembler,
  request: WireRequest,
  settings: DriverSettings,
  receiver: Receiver,
  signal: AbortSignal | undefined,
): Promise<StepResult> {
  let verdict: EventVerdict;
  const onEvent = (event: SseEvent): void => {
    if (verdict === undefined) verdict = assembler.onEvent(event);
  };
  // The SSE parser (a package) loads with the first request, not with the provider (issue 30: the interactive
  // prompt is drawn before it).
  const decoder = adapter.stream ? adapter.stream.createDecoder(onEvent) : (await import("./sse.js")).createSseDecoder(onEvent);
  const streamed = adapter.stream ? (head: ResponseHead) => String(head.headers["content-type"] ?? "").toLowerCase().startsWith(adapter.stream!.contentType) : (head: ResponseHead) => isEventStream(head.headers);
  let rejected: { head: ResponseHead; chunks: Buffer[]; size: number } | undefined;

  const timeouts = { stallTimeoutMs: settings.stallTimeoutMs, ...(settings.firstByteTimeoutMs !== undefined ? { firstByteTimeoutMs: settings.firstByteTimeoutMs } : {}) };
  const outcome = await postStreaming({ ...request, signal, ...timeouts }, (head) => {
    if (head.status < 200 || head.status >= 300 || !streamed(head)) {
      const collected = { head, chunks: [] as Buffer[], size: 0 };
      rejected = collected;
      return (chunk) => {
        collected.chunks.push(chunk);
        collected.size += chunk.length;
        return collected.size < ERROR_BODY_LIMIT;
      };
    }
    receiver.onMessageStart?.("assistant");
    return (chunk) => {
      try {
        decoder.push(chunk);
      } catch (thrown) {
        verdict = internalError(thrown);
      }
      return verdict === undefined;
    };
  });

  if (!outcome.ok && outcome.error.kind === "aborted") return outcome;
  if (rejected) {
    const failure: HttpFailure = {
      url: request.url,
      status: rejected.head.status,
      headers: rejected.head.headers,
      body: Buffer.concat(rejected.chunks).toString("utf8"),
    };
    const ok = rejected.head.status >= 200 && rejected.head.status < 300;
    if (ok) return { ok: false, error: classifyNonSseResponse(failure) };
    return { ok: false, error: (adapter.classifyHttpError ?? classifyHttpError)(failure) };
  }
  if (!outcome.ok) return outcome;
  if (verdict === undefined) decoder.end();
  if (verdict === undefined && assembler.endOfStream) verdict = assembler.endOfStream();
  if (verdict === "done") {
    const message = assembler.finish();
    return isProviderError(message) ? { ok: false, error: message } : { ok: true, message };
  }
  if (verdict !== undefined) return { ok: false, error: verdict };
  return {
    ok: false,
    error: providerError(
      "truncated",
      `the response from ${describeUrl(request.url)} ended before ${adapter.terminalMarker}: the message is incomplete`,
    ),
  };
}

function internalError(thrown: unknown): ProviderError {
  const detail = thrown instanceof Error ? thrown.message : String(thrown);
  return providerError("stream_error", `internal error while handling the stream: ${detail}`);
}
