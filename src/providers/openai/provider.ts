/** The OpenAI-compatible provider: `POST {baseUrl}/chat/completions` with `stream: true`, through the shared driver. */
import { describeUrl } from "../classify-http-error.js";
import { clientHeaders } from "../client-headers.js";
import { isProviderError, ProviderConfigError } from "../errors.js";
import { runStream, type WireAdapter } from "../stream-driver.js";
import type { Provider, ProviderSettings } from "../types.js";
import { ChatCompletionAssembler } from "./assembler.js";
import { resolveCompat } from "./compat.js";
import { buildChatRequestBody, createChatWireCache } from "./request.js";

/** `{baseUrl}/chat/completions`, unless the base URL already names that endpoint. */
export function chatCompletionsUrl(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, "");
  return trimmed.endsWith("/chat/completions") ? trimmed : `${trimmed}/chat/completions`;
}

/** Builds the provider; throws {@link ProviderConfigError} for settings it cannot use (bad compat values). */
export function createOpenAIProvider(settings: ProviderSettings): Provider {
  const compat = resolveCompat(settings.baseUrl, settings.compat);
  if (isProviderError(compat)) throw new ProviderConfigError(compat);
  const url = chatCompletionsUrl(settings.baseUrl);
  const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream", ...clientHeaders(settings) };
  if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
  const requestSettings = { model: settings.model, maxTokens: settings.maxTokens };
  const cache = createChatWireCache();

  const adapter: WireAdapter = {
    terminalMarker: "data: [DONE]",
    buildRequest(conversation, options) {
      const body = buildChatRequestBody(conversation, options.tools ?? [], { ...requestSettings, system: options.system }, compat, cache);
      return isProviderError(body) ? body : { url, headers, body };
    },
    createAssembler: (receiver) => new ChatCompletionAssembler(receiver, describeUrl(url)),
  };
  return {
    name: "openai",
    model: settings.model,
    streamStep: (conversation, receiver, options = {}) => runStream(adapter, settings, conversation, receiver, options),
  };
}
