/**
 * The models a server offers, for `/model` with no argument: OpenAI-compatible `GET {base}/models` (OpenAI,
 * Ollama, vLLM, llama.cpp, LM Studio, OpenRouter) and Anthropic's `GET /v1/models`. Undefined when the server
 * does not tell (no such endpoint, a refusal, no answer within the short timeout): never an error.
 */
import { clientHeaders } from "./client-headers.js";
import { ANTHROPIC_VERSION } from "./anthropic/request.js";
import { getJson } from "./model-limits.js";
import type { ProviderSettings } from "./types.js";

export async function listServerModels(settings: Pick<ProviderSettings, "provider" | "baseUrl" | "apiKey" | "headers">): Promise<string[] | undefined> {
  const headers: Record<string, string> = { accept: "application/json", ...clientHeaders(settings) };
  let url: string;
  const base = settings.baseUrl.replace(/\/+$/, "");
  if (settings.provider === "anthropic") {
    url = `${base.replace(/\/v1$/, "")}/v1/models?limit=1000`;
    headers["anthropic-version"] = ANTHROPIC_VERSION;
    if (settings.apiKey) headers["x-api-key"] = settings.apiKey;
  } else if (settings.provider === "openai" || settings.provider === "openai-responses") {
    url = `${base.replace(/\/(chat\/completions|responses)$/, "")}/models`;
    if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
  } else return undefined;
  const body = await getJson(url, headers);
  const data = typeof body === "object" && body !== null ? (body as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) return undefined;
  const ids = data.map((entry) => (typeof entry === "object" && entry !== null ? (entry as { id?: unknown }).id : undefined));
  return [...new Set(ids.filter((id): id is string => typeof id === "string" && id !== ""))].sort();
}
