/**
 * The models a server offers, for `/model` with no argument: OpenAI-compatible `GET {base}/models` (OpenAI,
 * Ollama, vLLM, llama.cpp, LM Studio, OpenRouter), Anthropic's `GET /v1/models` and Gemini's `GET /v1beta/models`
 * (only those that can `streamGenerateContent`), and Copilot's `GET {api}/models` with the sign-in's token (its chat
 * models: one whose `capabilities.type` says another kind, an embedding model, is left out). Undefined
 * when the server does not tell (no such endpoint, a refusal, no answer within the short timeout): never an error.
 */
import { copilotHeaders, refreshCopilotToken } from "../login/copilot.js";
import { sharedLoginSession } from "../login/session.js";
import { isLoginProvider, type LoginProvider } from "../login/types.js";
import { clientHeaders } from "./client-headers.js";
import { ANTHROPIC_VERSION } from "./anthropic/request.js";
import { geminiApiBase } from "./gemini/provider.js";
import { getJson } from "./model-limits.js";
import type { ProviderSettings } from "./types.js";

/** How to ask one kind of server for its models: the request (url, then the auth headers) and the reading of its answer. */
interface ServerList {
  request(base: string, apiKey: string | undefined, headers: Record<string, string>): string;
  read(body: unknown): string[] | undefined;
}

/** The model lists awl can ask for, by provider (sign-in providers: `listLoginModels`). */
const SERVER_LISTS: Record<string, ServerList> = {
  anthropic: {
    request(base, apiKey, headers) {
      headers["anthropic-version"] = ANTHROPIC_VERSION;
      if (apiKey) headers["x-api-key"] = apiKey;
      return `${base.replace(/\/v1$/, "")}/v1/models?limit=1000`;
    },
    read: dataIds,
  },
  openai: { request: openAiModelsUrl, read: dataIds },
  "openai-responses": { request: openAiModelsUrl, read: dataIds },
  gemini: {
    request(base, apiKey, headers) {
      if (apiKey) headers["x-goog-api-key"] = apiKey;
      return `${geminiApiBase(base)}/models?pageSize=1000`;
    },
    read: geminiModels,
  },
};

/** Whether awl asks `provider`'s server for its models with an API key (Bedrock and Vertex: not; sign-ins: `listLoginModels` says). */
export function hasServerList(provider: string): boolean {
  return Object.hasOwn(SERVER_LISTS, provider);
}

export async function listServerModels(settings: Pick<ProviderSettings, "provider" | "baseUrl" | "apiKey" | "headers" | "login">): Promise<string[] | undefined> {
  if (isLoginProvider(settings.provider)) {
    const listed = await listLoginModels(settings, settings.provider);
    return "offered" in listed ? listed.offered : undefined;
  }
  if (!Object.hasOwn(SERVER_LISTS, settings.provider)) return undefined;
  const list = SERVER_LISTS[settings.provider]!;
  const headers: Record<string, string> = { accept: "application/json", ...clientHeaders(settings) };
  const url = list.request(settings.baseUrl.replace(/\/+$/, ""), settings.apiKey, headers);
  return list.read(await getJson(url, headers));
}

/** OpenAI-compatible servers: `{base}/models` beside the chat or responses endpoint, with a bearer key. */
function openAiModelsUrl(base: string, apiKey: string | undefined, headers: Record<string, string>): string {
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  return `${base.replace(/\/(chat\/completions|responses)$/, "")}/models`;
}

/** `{data: [{id}, …]}` → the sorted ids; Copilot's list says each model's kind, and embedding models are left out (they cannot chat). */
function dataIds(body: unknown): string[] | undefined {
  const data = typeof body === "object" && body !== null ? (body as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) return undefined;
  const chats = data.filter((entry) => {
    const kind = (entry as { capabilities?: { type?: unknown } } | null)?.capabilities?.type;
    return typeof kind !== "string" || kind === "chat";
  });
  const ids = chats.map((entry) => (typeof entry === "object" && entry !== null ? (entry as { id?: unknown }).id : undefined));
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

/**
 * The models a sign-in provider's server offers, or why it was not asked: Copilot's `GET {api}/models` with the
 * sign-in's token (made fresh as for a model call) and the headers its calls carry; the ChatGPT plan's backend has
 * no model list awl uses. No sign-in: the reason says so and names `awl login PROVIDER`.
 */
export async function listLoginModels(settings: Pick<ProviderSettings, "headers" | "login">, provider: LoginProvider): Promise<{ offered: string[] } | { reason: string }> {
  if (provider === "chatgpt") return { reason: "not asked: the ChatGPT plan's backend has no model list awl uses" };
  if (!settings.login) return { reason: `not asked: no sign-in settings (awl login ${provider})` };
  const login = await sharedLoginSession(provider, settings.login, refreshCopilotToken).current();
  if (!login.ok) return { reason: `not asked: ${login.error.message}` };
  const api = login.record.api_base_url!;
  const offered = await listServerModels({ provider: "openai", baseUrl: api, apiKey: login.record.access_token!, headers: { ...copilotHeaders(), ...settings.headers } });
  return offered ? { offered } : { reason: `${api} did not list its models` };
}
