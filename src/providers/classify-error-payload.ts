/**
 * An error object a server sent (`{"message", "type", "code"}` inside a 200 stream, or in a non-2xx body) →
 * the kind awl acts on (SPEC §3 rule 6, §12). Both wire formats share it, so an OpenAI-compatible gateway and an
 * Anthropic one classify the same error the same way. The table is in docs/providers.md ("Errors inside a stream").
 *
 * Decided from the error's `type` and `code` first; free text decides only two things, each a vendor's documented
 * wording with no code to go by: OpenRouter's "Provider disconnected" (transient) and the context-window refusals
 * of servers that send no code ("prompt is too long", "maximum context length"...).
 */
import { kindForStatus, providerError, type ProviderError, type ProviderErrorKind } from "./errors.js";

/** The fields of an error object awl reads; every one may be missing. */
export interface ErrorFields {
  message?: string;
  /** `type` (OpenAI, Anthropic, llama.cpp) as sent. */
  type?: string;
  /** `code` as sent: a string (`"context_length_exceeded"`) or an HTTP-like number (OpenRouter, LiteLLM `"500"`). */
  code?: string;
}

/** Types and codes with a fixed meaning, whoever sends them. */
const KIND_BY_CODE: Readonly<Record<string, ProviderErrorKind>> = {
  // Transient: retried.
  server_error: "server", // OpenAI
  api_error: "server", // Anthropic
  internal_server_error: "server",
  overloaded_error: "overloaded", // Anthropic
  rate_limit_error: "rate_limit", // Anthropic
  rate_limit_exceeded: "rate_limit", // OpenAI
  // Not transient: the same request would fail the same way.
  context_length_exceeded: "context_length", // OpenAI, DeepSeek, vLLM
  exceed_context_size_error: "context_length", // llama.cpp
  request_too_large: "bad_request", // Anthropic 413
  invalid_request_error: "bad_request", // OpenAI, Anthropic
  not_found_error: "bad_request", // Anthropic
  model_not_found: "bad_request", // OpenAI
  content_filter: "bad_request",
  content_policy_violation: "bad_request",
  authentication_error: "auth", // Anthropic
  permission_error: "auth", // Anthropic
  invalid_api_key: "auth", // OpenAI
  insufficient_quota: "bad_request", // OpenAI: billing, not a rate limit; retrying cannot help
};

/**
 * Context-window refusals in the words of servers that send no code for them: Anthropic ("prompt is too long"),
 * OpenAI-style wording copied by vLLM, DeepSeek, Mistral, LM Studio and LiteLLM ("maximum context length"),
 * llama.cpp ("exceeds the available context size"), Gemini ("input token count ... exceeds the maximum"), Ollama
 * ("prompt too long"), LiteLLM's `ContextWindowExceededError`.
 */
const CONTEXT_OVERFLOW =
  /prompt is too long|prompt too long|maximum context length|context length of only|exceeds? the (available )?context (size|window|length)|context_length_exceeded|ContextWindowExceeded|input token count .* exceeds the maximum|too large for model with \d+ maximum context length|reduce the length of the (messages|prompt)/i;

/** OpenRouter's words when the upstream provider dropped the connection mid-stream. */
const PROVIDER_DISCONNECTED = /provider disconnected/i;

/** The fields of a parsed error payload: `{error: {...}}`, `{error: "text"}`, or the inner object itself. */
export function errorFields(payload: unknown): ErrorFields {
  if (typeof payload === "string") return { message: payload };
  if (typeof payload !== "object" || payload === null) return {};
  const record = payload as Record<string, unknown>;
  const inner = record.error;
  if (typeof inner === "string") return { message: inner };
  const source = typeof inner === "object" && inner !== null ? (inner as Record<string, unknown>) : record;
  const fields: ErrorFields = {};
  if (typeof source.message === "string") fields.message = source.message;
  if (typeof source.type === "string" && source.type !== "") fields.type = source.type;
  if ((typeof source.code === "string" && source.code !== "") || typeof source.code === "number") fields.code = String(source.code);
  return fields;
}

/** True when the message reads as a context-window refusal (for servers that send no code for it). */
export function soundsLikeContextOverflow(message: string): boolean {
  return CONTEXT_OVERFLOW.test(message);
}

/**
 * The kind of an error reported inside a 200 stream: by `type`/`code`, by an HTTP-like numeric code, by the two
 * documented wordings above, else `stream_error` (not retried: awl retries only what it knows to be transient).
 */
export function kindOfStreamError(fields: ErrorFields): ProviderErrorKind {
  const message = fields.message ?? "";
  const byCode = knownKind(fields);
  // A generic "invalid request" may still be a context-window refusal (Anthropic says so only in words).
  if ((byCode === undefined || byCode === "bad_request") && soundsLikeContextOverflow(message)) return "context_length";
  if (byCode !== undefined) return byCode;
  const status = fields.code !== undefined && /^\d{3}$/.test(fields.code) ? Number(fields.code) : undefined;
  if (status !== undefined && status >= 400) return kindForStatus(status);
  if (PROVIDER_DISCONNECTED.test(message)) return "server";
  return "stream_error";
}

/**
 * The kind of a non-2xx response: its status decides (rule 6), except that a 400/413 that is a context-window
 * refusal is `context_length` and a code with a fixed meaning refines a 400.
 */
export function kindOfHttpError(status: number, fields: ErrorFields): ProviderErrorKind {
  const byStatus = kindForStatus(status);
  if (byStatus !== "bad_request") return byStatus;
  if (knownKind(fields) === "context_length" || soundsLikeContextOverflow(fields.message ?? "")) return "context_length";
  return "bad_request";
}

/** The kind a fixed `code` (else `type`) names, if any. */
function knownKind(fields: ErrorFields): ProviderErrorKind | undefined {
  for (const name of [fields.code, fields.type]) if (name !== undefined && Object.hasOwn(KIND_BY_CODE, name)) return KIND_BY_CODE[name];
  return undefined;
}

/** The provider's code for messages and hints: `code` when it is a word, else `type`. */
export function errorCode(fields: ErrorFields): string | undefined {
  if (fields.code !== undefined && !/^\d+$/.test(fields.code)) return fields.code;
  return fields.type;
}

const MALFORMED_EXCERPT = 200;

/** An SSE payload that is not JSON: a `bad_response` naming the endpoint, with the start of the payload. */
export function malformedJsonError(source: string, data: string): ProviderError {
  const text = data.length > MALFORMED_EXCERPT ? `${data.slice(0, MALFORMED_EXCERPT)}…` : data;
  return providerError("bad_response", `malformed JSON in the stream from ${source}: ${text}`);
}
