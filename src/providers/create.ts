/**
 * `createProvider`: settings → a ready {@link Provider}. Each wire API is imported only when chosen, so the
 * start-up path loads one provider's code and nothing else.
 */
import { providerError, ProviderConfigError } from "./errors.js";
import type { Provider, ProviderSettings } from "./types.js";

type ProviderFactory = (settings: ProviderSettings) => Promise<Provider>;

/** One line per wire API; the key is the `provider` setting (`AWL_PROVIDER`, `--provider`). */
const FACTORIES: Record<string, ProviderFactory> = {
  openai: async (settings) =>
    speaksResponsesByDefault(settings.baseUrl)
      ? (await import("./openai-responses/provider.js")).createResponsesProvider(settings)
      : (await import("./openai/provider.js")).createOpenAIProvider(settings),
  "openai-responses": async (settings) => (await import("./openai-responses/provider.js")).createResponsesProvider(settings),
  gemini: async (settings) => (await import("./gemini/provider.js")).createGeminiProvider(settings),
  anthropic: async (settings) => (await import("./anthropic/provider.js")).createAnthropicProvider(settings),
  bedrock: async (settings) => (await import("./bedrock/provider.js")).createBedrockProvider(settings, settings.aws ?? {}),
  "google-vertex": async (settings) => (await import("./vertex/provider.js")).createVertexGeminiProvider(settings),
  "google-vertex-anthropic": async (settings) => (await import("./vertex/provider.js")).createVertexAnthropicProvider(settings),
  copilot: async (settings) => (await import("./login-provider.js")).createLoginProvider(settings, "copilot"),
  chatgpt: async (settings) => (await import("./login-provider.js")).createLoginProvider(settings, "chatgpt"),
  replay: async (settings) => (await import("./replay/index.js")).createReplayProvider(settings),
};

/** The provider names `createProvider` accepts. */
export const PROVIDER_NAMES: readonly string[] = Object.keys(FACTORIES);

/**
 * Builds the provider named by `settings.provider`. Throws {@link ProviderConfigError} (kind "config") for an
 * unknown name, listing the valid ones, or for settings that provider cannot use.
 */
export async function createProvider(settings: ProviderSettings): Promise<Provider> {
  const factory = Object.hasOwn(FACTORIES, settings.provider) ? FACTORIES[settings.provider] : undefined;
  if (!factory)
    throw new ProviderConfigError(
      providerError("config", `unknown provider "${settings.provider}": use one of ${PROVIDER_NAMES.map((n) => `"${n}"`).join(", ")}`),
    );
  return factory(settings);
}

/**
 * OpenAI's own endpoint is spoken to through the Responses API (its newest models and features are built on it);
 * a base URL that names `/chat/completions` keeps the Chat Completions API there, and every other server gets it.
 */
export function speaksResponsesByDefault(baseUrl: string): boolean {
  try {
    const url = new URL(baseUrl);
    return url.hostname === "api.openai.com" && !url.pathname.replace(/\/+$/, "").endsWith("/chat/completions");
  } catch {
    return false;
  }
}
