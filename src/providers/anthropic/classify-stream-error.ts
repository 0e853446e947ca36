/**
 * Anthropic's in-stream `error` event → {@link ProviderError} (SPEC §3 rule 6). The event arrives on an
 * HTTP 200 stream, e.g. `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`; LiteLLM
 * sends a bare `data: {"error": {...}}` with no `event:` line, read the same way. The kind comes from the shared
 * table (src/providers/classify-error-payload.ts): `api_error`, `overloaded_error`, `rate_limit_error` are retried.
 */
import { errorCode, errorFields, kindOfStreamError } from "../classify-error-payload.js";
import { excerpt } from "../classify-http-error.js";
import { providerError, type ProviderError } from "../errors.js";

/** Classifies the parsed payload of an `error` event (or its raw text when it was not JSON). */
export function classifyStreamError(payload: unknown): ProviderError {
  const error = errorObject(payload);
  const fields = error ? errorFields(error) : errorFields(payload);
  const type = fields.type;
  const detail = excerpt(fields.message ?? (typeof payload === "string" ? payload : JSON.stringify(payload)));
  const label = type ?? fields.code ?? "error";
  const code = errorCode(fields);
  return providerError(kindOfStreamError(fields), `the Anthropic stream reported an error (${label}): ${detail}`, code ? { code } : {});
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
