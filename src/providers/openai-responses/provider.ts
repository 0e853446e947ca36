/**
 * The OpenAI Responses API provider: `POST {baseUrl}/responses` with `stream: true` and `store: false`, through the
 * shared driver (errors, retries and stalls as for Chat Completions).
 */
import { describeUrl } from "../classify-http-error.js";
import { clientHeaders } from "../client-headers.js";
import { isProviderError } from "../errors.js";
import { runStream, type WireAdapter } from "../stream-driver.js";
import type { Provider, ProviderSettings } from "../types.js";
import { ResponsesAssembler } from "./assembler.js";
import { buildResponsesRequestBody, createResponsesWireCache } from "./request.js";

/** `{baseUrl}/responses`, unless the base URL already names that endpoint. */
export function responsesUrl(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, "");
  return trimmed.endsWith("/responses") ? trimmed : `${trimmed}/responses`;
}

/**
 * Models that reason (o-series, gpt-5 and its codex variants, gpt-oss): they get `reasoning: {summary: "auto"}`
 * and encrypted reasoning; other models reject the `reasoning` parameter. `thinking: "off"` sends neither.
 */
export function isReasoningModel(model: string): boolean {
  return /^(?:openai\/)?(?:o\d|gpt-5|gpt-oss|codex)/i.test(model);
}

export function createResponsesProvider(settings: ProviderSettings): Provider {
  const url = responsesUrl(settings.baseUrl);
  const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream", ...clientHeaders(settings) };
  if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
  const reasoning = settings.thinking !== "off" && isReasoningModel(settings.model);
  const cache = createResponsesWireCache();
  const unknownSeen = new Set<string>();
  const onUnknownEvent = (type: string): void => {
    if (unknownSeen.has(type)) return;
    unknownSeen.add(type);
    settings.onNotice?.(`ignored a Responses API event of an unknown type "${type}" from ${describeUrl(url)}`);
  };

  const adapter: WireAdapter = {
    terminalMarker: "response.completed",
    buildRequest(conversation, options) {
      const body = buildResponsesRequestBody(conversation, options.tools ?? [], { model: settings.model, maxTokens: settings.maxTokens, system: options.system, reasoning, webSearch: settings.webSearch === true }, cache);
      return isProviderError(body) ? body : { url, headers, body };
    },
    createAssembler: (receiver) => new ResponsesAssembler(receiver, describeUrl(url), onUnknownEvent),
  };
  return {
    name: "openai-responses",
    model: settings.model,
    streamStep: (conversation, receiver, options = {}) => runStream(adapter, settings, conversation, receiver, options),
  };
}
