/**
 * Errors as the user reads them: what happened, then what to do. Never a stack trace
 * (AWL_DEBUG=1 adds one for internal errors only).
 */
import type { ProviderError } from "../providers/errors.js";
import type { AwlSettings } from "../config/settings.js";
import { MAX_HONOURED_RETRY_AFTER_MS } from "../providers/retry-delay.js";

export interface UserMessage {
  message: string;
  hint?: string;
}

/** Formats a message for stderr: `awl: message` and an indented hint. */
export function formatUserMessage({ message, hint }: UserMessage): string {
  return `awl: ${message}\n${hint ? `  → ${hint}\n` : ""}`;
}

/**
 * The classified provider error in words, with the next step for its kind. The provider's message already
 * names the status, the endpoint and the server's own words, so the line adds only what the kind means
 * (and the status when the message lacks it); the advice is the hint, given once.
 */
export function describeProviderError(error: ProviderError, { provider: settings, keySource }: AwlSettings): UserMessage {
  const status = error.status !== undefined && !error.message.includes(`HTTP ${error.status}`) ? ` (HTTP ${error.status})` : "";
  const retries = error.retries ?? 0;
  const retried = retries > 0 ? ` after ${retries} ${retries === 1 ? "retry" : "retries"}` : "";
  const line = (what: string, hint?: string): UserMessage => ({
    message: what ? `${what}${status}${retried}: ${error.message}` : `${error.message}${status}${retried}`,
    ...(hint ? { hint } : {}),
  });
  const baseUrl = "the base URL (--base-url, AWL_BASE_URL)";

  // A wait longer than awl is willing to sleep through: retrying now would only be refused again.
  if (error.retryable && error.retry_after_ms !== undefined && error.retry_after_ms > MAX_HONOURED_RETRY_AFTER_MS) {
    const wait = `the server asks to wait ${duration(error.retry_after_ms)} (awl waits at most ${duration(MAX_HONOURED_RETRY_AFTER_MS)})`;
    return { message: `${error.message}; ${wait}`, hint: "try again later" };
  }
  // A sign-in that is missing, expired or revoked: only a new `awl login` mends it (src/login/session.ts).
  if (error.code === "login_required") return { message: error.message, hint: `run awl login ${settings.provider}` };
  switch (error.kind) {
    case "auth":
      return line("the API key was refused", `check ${keySource ?? "the API key"}`);
    case "bad_request": {
      // Chosen from the status and the provider's code, never from words in the message (LiteLLM names the
      // "Model Group" in every 400, whatever it is about).
      const aboutModel = error.status === 404 || (error.code !== undefined && MODEL_CODES.has(error.code));
      return line("the request was rejected", aboutModel ? `check the model name "${settings.model}" (--model, AWL_MODEL) and ${baseUrl}` : undefined);
    }
    case "context_length":
      return line("the conversation is longer than the model's context window", "run /compact, or start a new session");
    case "rate_limit":
      return line("rate limited", `wait a little and try again${retried ? ", or raise --max-retries" : ""}`);
    case "overloaded":
      return line("the server is overloaded", `wait a little and try again${retried ? ", or raise --max-retries" : ""}`);
    case "server":
      return line("the server failed", "try again later");
    case "network":
      return line("network error", `check the network and ${baseUrl}`);
    case "truncated":
      return line("the response was cut off", "try again");
    case "stalled":
      return line("the server stopped sending", "try again, or raise --first-byte-timeout (no response yet) or --stall-timeout (silent mid-stream)");
    case "stream_error":
      // The message says what the server reported (or what went wrong inside awl). awl did not retry it: nothing
      // marked it as transient (docs/providers.md), so the advice does not promise that trying again helps.
      return line("", "the server reported an error awl does not know to be transient, so it was not retried; send the prompt again if you think it was");
    case "bad_response":
      return line("the server's answer is not a stream awl can read", `check ${baseUrl}: it should point at an OpenAI- or Anthropic-style API that streams`);
    case "aborted":
      return { message: "cancelled" };
    case "config":
      return {
        message: error.message,
        hint: settings.provider === "replay" ? "script more responses (docs/replay-format.md) or start over" : "check the settings (awl config shows them)",
      };
  }
}

/** Provider codes that mean the model name is wrong (OpenAI `model_not_found`, Anthropic `not_found_error`). */
const MODEL_CODES: ReadonlySet<string> = new Set(["model_not_found", "not_found_error"]);

/** A wait in words: seconds under two minutes, else minutes. */
function duration(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  return seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
}
