/**
 * Anthropic's in-stream `error` event → {@link ProviderError} (SPEC §3 rule 6). The event arrives on an
 * HTTP 200 stream, e.g. `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`.
 */
import { providerError, type ProviderError, type ProviderErrorKind } from "../errors.js";

const KIND_BY_TYPE: Readonly<Record<string, ProviderErrorKind>> = {
  overloaded_error: "overloaded",
  rate_limit_error: "rate_limit",
};

/** Classifies the parsed payload of an `error` event (or its raw text when it was not JSON). */
export function classifyStreamError(payload: unknown): ProviderError {
  const error = errorObject(payload);
  const type = typeof error?.type === "string" ? error.type : undefined;
  const kind = (type !== undefined && Object.hasOwn(KIND_BY_TYPE, type) ? KIND_BY_TYPE[type] : undefined) ?? "stream_error";
  const detail = typeof error?.message === "string" ? error.message : typeof payload === "string" ? payload : JSON.stringify(payload);
  const label = type ?? "error";
  return providerError(kind, `the Anthropic stream reported an error (${label}): ${detail}`);
}

/**
 * A stream that breaks Anthropic's event grammar in a way that would lose content (a delta for a block that
 * never started, a data line that is not JSON): a non-retryable `bad_response` naming what was wrong.
 */
export function malformedStream(detail: string): ProviderError {
  return providerError("bad_response", `the Anthropic stream is malformed: ${detail}`);
}

/** The inner error object: `error` in Anthropic's shape; `message` in claude-code-router's re-encoding. */
function errorObject(payload: unknown): Record<string, unknown> | undefined {
  if (typeof payload !== "object" || payload === null) return undefined;
  const record = payload as Record<string, unknown>;
  for (const key of ["error", "message"]) {
    const inner = record[key];
    if (typeof inner === "object" && inner !== null) return inner as Record<string, unknown>;
  }
  return record;
}
