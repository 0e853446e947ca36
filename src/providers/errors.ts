/**
 * Provider errors are values with a kind (SPEC §3 rule 6), built only by the classify functions
 * and never thrown across layers.
 */
import type { Usage } from "../model/message.js";

export type ProviderErrorKind =
  | "auth"
  | "bad_request"
  /** The request is longer than the model's context window (a 400 or in-stream refusal); compaction can help. */
  | "context_length"
  | "rate_limit"
  | "overloaded"
  | "server"
  | "stream_error"
  | "bad_response"
  | "network"
  | "truncated"
  | "stalled"
  | "aborted"
  | "config";

export interface ProviderError {
  kind: ProviderErrorKind;
  retryable: boolean;
  /** HTTP status, when the error came with one. */
  status?: number;
  /** How long the server asked us to wait, from `retry-after-ms` or `retry-after`. */
  retry_after_ms?: number;
  /** What happened, in words a user can act on; includes the provider's own message. */
  message: string;
  /** The provider's own error code or type when it sent one (`context_length_exceeded`, `overloaded_error`). */
  code?: string;
  /** Retries made before giving up (set by the stream driver on the error it returns; absent = none). */
  retries?: number;
  /**
   * Tokens this attempt's stream had reported before it failed or was cancelled (Anthropic reports the input's
   * at the start): spent, though no message carries them. Absent when the stream reported none.
   */
  usage?: Usage;
}

const RETRYABLE: ReadonlySet<ProviderErrorKind> = new Set(["rate_limit", "overloaded", "server", "network", "truncated", "stalled"]);

export function providerError(
  kind: ProviderErrorKind,
  message: string,
  extra: { status?: number; retry_after_ms?: number; code?: string } = {},
): ProviderError {
  const error: ProviderError = { kind, retryable: RETRYABLE.has(kind), message };
  if (extra.status !== undefined) error.status = extra.status;
  if (extra.retry_after_ms !== undefined) error.retry_after_ms = extra.retry_after_ms;
  if (extra.code !== undefined) error.code = extra.code;
  return error;
}

/** Status → kind, SPEC §3 rule 6. */
export function kindForStatus(status: number): ProviderErrorKind {
  if (status === 401 || status === 403) return "auth";
  if (status === 429) return "rate_limit";
  if (status === 529) return "overloaded";
  if (status === 408 || status >= 500) return "server";
  return "bad_request";
}

export function isProviderError(value: unknown): value is ProviderError {
  return typeof value === "object" && value !== null && typeof (value as ProviderError).kind === "string" &&
    typeof (value as ProviderError).retryable === "boolean" && typeof (value as ProviderError).message === "string";
}

/** Thrown by `createProvider` (and only there) for settings no provider can use; `error.kind` is "config". */
export class ProviderConfigError extends Error {
  constructor(readonly error: ProviderError) {
    super(error.message);
    this.name = "ProviderConfigError";
  }
}
