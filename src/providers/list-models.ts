/**
 * The models a server offers, for `/model` with no argument: OpenAI-compatible `GET {base}/models` (OpenAI,
 * Ollama, vLLM, llama.cpp, LM Studio, OpenRouter), Anthropic's `GET /v1/models` and Gemini's `GET /v1beta/models`
 * (only those that can `streamGenerateContent`). Undefined when the server
 * does not tell (no such endpoint, a refusal, no answer within the short timeout): never an error.
 */
import { clientHeaders } from "./client-headers.js";
import { ANTHROPIC_VERSION } from "./anthropic/request.js";
import { geminiApiBase } from "./gemini/provider.js";
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
  } else if (settings.provider === "gemini") {
    url = `${geminiApiBase(base)}/models?pageSize=1000`;
    if (settings.apiKey) headers["x-goog-api-key"] = settings.apiKey;
    return geminiModels(await getJson(url, headers));
  } else return undefined;
  const body = await getJson(url, headers);
  const data = typeof body === "object" && body !== null ? (body as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) return undefined;
  const ids = data.map((entry) => (typeof entry === "object" && entry !== null ? (entry as { id?: unknown }).id : undefined));
  return [...new Set(ids.filter((id): id is string => typeof id === "string" && id !== ""))].sort();
}

/** `{models: [{name: "models/gemini-2.5-flash", supportedGenerationMethods: [...]}]}` → the names awl can stream with. */
function geminiModels(body: unknown): string[] | undefined {
  const models = typeof body === "object" && body !== null ? (body as { models?: unknown }).models : undefined;
  if (!Array.isArray(models)) return undefined;
  const names = models.flatMap((entry) => {
    const model = entry as { name?: unknown; supportedGenerationMethods?: unknown } | null;
    const methods = Array.isArray(model?.supportedGenerationMethods) ? model.supportedGenerationMethods : [];
    return typeof model?.name === "string" && methods.includes("streamGenerateContent") ? [model.name.replace(/^models\//, "")] : [];
  });
  return [...new Set(names)].sort();
}
