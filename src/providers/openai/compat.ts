/**
 * Per-endpoint quirks of OpenAI-compatible servers, as named settings a user can override
 * (`ProviderSettings.compat`). Defaults suit the reference API; a few endpoints are recognised by base URL.
 */
import { providerError, type ProviderError } from "../errors.js";

export interface Compat {
  /**
   * Send earlier thinking back as `reasoning_content` on assistant messages. DeepSeek (api.deepseek.com) requires it
   * in tool loops with thinking on; most other servers reject or ignore the field.
   */
  sendReasoningContent: boolean;
  /**
   * The output-limit field. api.openai.com's reasoning models (o-series, gpt-5) accept only "max_completion_tokens";
   * vLLM, llama.cpp, Ollama, DeepSeek and most proxies know "max_tokens".
   */
  maxTokensField: "max_tokens" | "max_completion_tokens";
  /** Role for system messages: "system" everywhere; "developer" for OpenAI reasoning models that prefer it. */
  systemRole: "system" | "developer";
  /**
   * Ask for usage with `stream_options.include_usage` (OpenAI, vLLM, llama.cpp, DeepSeek, OpenRouter, Ollama).
   * Turn off for old servers that reject unknown request fields.
   */
  includeUsage: boolean;
  /**
   * Images returned by tools: sent as a user message with `image_url` parts right after the tool messages
   * (vision models on OpenAI, OpenRouter, vLLM), or, when false, dropped with a note in the tool's text
   * (DeepSeek's API takes no images). The same goes for images in a user's prompt.
   */
  toolResultImages: boolean;
}

const DEFAULTS: Compat = {
  sendReasoningContent: false,
  maxTokensField: "max_tokens",
  systemRole: "system",
  includeUsage: true,
  toolResultImages: true,
};

const CHOICES: { [K in keyof Compat]: readonly Compat[K][] } = {
  sendReasoningContent: [true, false],
  maxTokensField: ["max_tokens", "max_completion_tokens"],
  systemRole: ["system", "developer"],
  includeUsage: [true, false],
  toolResultImages: [true, false],
};

/** Defaults for well-known endpoints, recognised by host. */
function detect(baseUrl: string): Partial<Compat> {
  let host = "";
  try {
    host = new URL(baseUrl).hostname;
  } catch {
    /* an invalid URL is reported when the request is sent */
  }
  if (host === "api.deepseek.com") return { sendReasoningContent: true, toolResultImages: false };
  if (host === "api.openai.com") return { maxTokensField: "max_completion_tokens" };
  return {};
}

/** Resolves the quirks for `baseUrl` with the user's overrides on top; an unknown name or value is a `config` error. */
export function resolveCompat(baseUrl: string, overrides: Record<string, unknown> = {}): Compat | ProviderError {
  const compat: Compat = { ...DEFAULTS, ...detect(baseUrl) };
  for (const [name, value] of Object.entries(overrides)) {
    if (!(name in CHOICES))
      return providerError("config", `unknown OpenAI compatibility setting "${name}"; known settings: ${Object.keys(CHOICES).join(", ")}`);
    const choices = CHOICES[name as keyof Compat] as readonly unknown[];
    if (!choices.includes(value))
      return providerError(
        "config",
        `invalid value ${JSON.stringify(value)} for the OpenAI compatibility setting "${name}"; expected one of ${choices.map((c) => JSON.stringify(c)).join(", ")}`,
      );
    (compat as unknown as Record<string, unknown>)[name] = value;
  }
  return compat;
}
