/**
 * The Google Gemini provider: `POST {baseUrl}/v1beta/models/{model}:streamGenerateContent?alt=sse` with an API key
 * (`x-goog-api-key`), through the shared driver.
 */
import { classifyHttpError, describeUrl, type HttpFailure } from "../classify-http-error.js";
import { clientHeaders } from "../client-headers.js";
import type { ProviderError } from "../errors.js";
import { isProviderError } from "../errors.js";
import { objectOf, str } from "../json-fields.js";
import { onPlatform, type WirePlatform } from "../platform.js";
import { runStream, type WireAdapter } from "../stream-driver.js";
import type { Provider, ProviderSettings } from "../types.js";
import { GeminiAssembler } from "./assembler.js";
import { buildGeminiRequestBody } from "./request.js";

/** The API root: a base URL that already names an API version (`.../v1beta`, `.../v1`) keeps it, else `/v1beta`. */
export function geminiApiBase(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  return /\/v1(beta\d*|alpha\d*)?$/.test(base) ? base : `${base}/v1beta`;
}

/** The stream URL of `model` (with or without its `models/` prefix). */
export function geminiStreamUrl(baseUrl: string, model: string): string {
  const name = model.replace(/^models\//, "");
  return `${geminiApiBase(baseUrl)}/models/${encodeURIComponent(name)}:streamGenerateContent?alt=sse`;
}

/** Builds the provider; on a `platform` (Gemini on Vertex AI) the same requests go to its URL with its sign-in. */
export function createGeminiProvider(settings: ProviderSettings, platform?: WirePlatform): Provider {
  const url = geminiStreamUrl(settings.baseUrl, settings.model);
  const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream", ...clientHeaders(settings) };
  if (settings.apiKey && !platform) headers["x-goog-api-key"] = settings.apiKey;
  const requestSettings = { model: settings.model, maxTokens: settings.maxTokens, thinking: settings.thinking };

  const adapter: WireAdapter = {
    terminalMarker: "a chunk with a finishReason",
    buildRequest(conversation, options) {
      const body = buildGeminiRequestBody(conversation, options.tools ?? [], { ...requestSettings, system: options.system });
      const request = isProviderError(body) ? body : { url, headers, body };
      return platform ? onPlatform(platform, request) : request;
    },
    createAssembler: (receiver) => new GeminiAssembler(receiver, platform?.describe ?? describeUrl(url)),
    classifyHttpError: platform?.explainHttpError ? (failure) => platform.explainHttpError!(classifyGeminiHttpError(failure)) : classifyGeminiHttpError,
  };
  return {
    name: platform?.name ?? "gemini",
    model: settings.model,
    streamStep: (conversation, receiver, options = {}) => runStream(adapter, settings, conversation, receiver, options),
  };
}

/**
 * As every wire API, plus Gemini's wait on a 429: it sends no `retry-after` header but a `RetryInfo` detail
 * (`"retryDelay": "23s"`) in the error body.
 */
export function classifyGeminiHttpError(failure: HttpFailure): ProviderError {
  const error = classifyHttpError(failure);
  if (error.retry_after_ms !== undefined) return error;
  const delay = retryDelayMs(failure.body);
  return delay === undefined ? error : { ...error, retry_after_ms: delay };
}

function retryDelayMs(body: string): number | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const details = objectOf(objectOf(parsed)?.error)?.details;
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    const match = /^(\d+(?:\.\d+)?)s$/.exec(str(objectOf(detail)?.retryDelay) ?? "");
    if (match) return Math.round(Number(match[1]) * 1000);
  }
  return undefined;
}
