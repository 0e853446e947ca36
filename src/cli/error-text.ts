/**
 * Errors as the user reads them: what happened, then what to do. Never a stack trace
 * (AWL_DEBUG=1 adds one for internal errors only).
 */
import type { ProviderError } from "../providers/errors.js";
import type { AwlSettings } from "../config/settings.js";

export interface UserMessage {
  message: string;
  hint?: string;
}

/** Formats a message for stderr: `awl: message` and an indented hint. */
export function formatUserMessage({ message, hint }: UserMessage): string {
  return `awl: ${message}\n${hint ? `  → ${hint}\n` : ""}`;
}

/** The classified provider error in words, with the next step for its kind. */
export function describeProviderError(error: ProviderError, { provider: settings, keySource }: AwlSettings): UserMessage {
  const status = error.status !== undefined ? ` (HTTP ${error.status})` : "";
  const where = settings.baseUrl || settings.provider;
  const retried = error.retryable && settings.maxRetries > 0 ? ` after ${settings.maxRetries} ${settings.maxRetries === 1 ? "retry" : "retries"}` : "";
  switch (error.kind) {
    case "auth":
      return { message: `${where} refused the API key${status}: ${error.message}`, hint: `check ${keySource ?? "the API key"}` };
    case "bad_request":
      return {
        message: `${where} rejected the request${status}: ${error.message}`,
        hint: `check the model name "${settings.model}" (--model, AWL_MODEL) and the base URL (--base-url, AWL_BASE_URL)`,
      };
    case "rate_limit":
    case "overloaded":
      return {
        message: `${where} is ${error.kind === "rate_limit" ? "rate limiting" : "overloaded"}${status}${retried}: ${error.message}`,
        hint: "wait a little and try again, or raise --max-retries",
      };
    case "server":
      return { message: `${where} failed${status}${retried}: ${error.message}`, hint: "try again later" };
    case "network":
      return { message: `cannot reach ${where}${retried}: ${error.message}`, hint: "check the network and the base URL (--base-url, AWL_BASE_URL)" };
    case "truncated":
      return { message: `the response from ${where} was cut off${retried}: ${error.message}`, hint: "try again" };
    case "stalled":
      return { message: `${where} stopped sending${retried}: ${error.message}`, hint: "try again, or raise --stall-timeout" };
    case "stream_error":
      return { message: `${where} reported an error mid-stream${status}: ${error.message}`, hint: "try again" };
    case "aborted":
      return { message: "cancelled" };
    case "config":
      return {
        message: error.message,
        hint: settings.provider === "replay" ? "script more responses (docs/replay-format.md) or start over" : "check the settings (awl config shows them)",
      };
  }
}
