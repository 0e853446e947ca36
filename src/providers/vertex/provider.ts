/**
 * Vertex AI: Claude (`google-vertex-anthropic`, Anthropic Messages at `...:streamRawPredict`) and Gemini
 * (`google-vertex`, `...:streamGenerateContent?alt=sse`), each the vendor's own request builder and assembler, at
 * `https://{region}-aiplatform.googleapis.com/v1/projects/{project}/locations/{region}/publishers/{publisher}/models/{model}`
 * (`aiplatform.googleapis.com` for the `global` region), with a Google access token from application-default
 * credentials (google-adc.ts), or the ready token of the provider's API key.
 */
import type { ProviderError } from "../errors.js";
import { isProviderError, providerError } from "../errors.js";
import type { WirePlatform } from "../platform.js";
import type { Provider, ProviderSettings, VertexSettings } from "../types.js";
import { googleAdc, type GoogleAdc } from "./google-adc.js";

/** Claude on Vertex AI: the Anthropic provider with the model in the URL and `anthropic_version` in the body. */
export async function createVertexAnthropicProvider(settings: ProviderSettings, adc: GoogleAdc = googleAdc()): Promise<Provider> {
  const { createAnthropicProvider } = await import("../anthropic/provider.js");
  return createAnthropicProvider(settings, { ...vertexPlatform(settings, "google-vertex-anthropic", "anthropic", ":streamRawPredict", adc), anthropicVersion: "vertex-2023-10-16" });
}

/** Gemini on Vertex AI: the Gemini provider at Vertex's address. */
export async function createVertexGeminiProvider(settings: ProviderSettings, adc: GoogleAdc = googleAdc()): Promise<Provider> {
  const { createGeminiProvider } = await import("../gemini/provider.js");
  return createGeminiProvider(settings, vertexPlatform(settings, "google-vertex", "google", ":streamGenerateContent?alt=sse", adc));
}

function vertexPlatform(settings: ProviderSettings, name: string, publisher: string, method: string, adc: GoogleAdc): WirePlatform {
  const vertex: VertexSettings = settings.vertex ?? { region: "global", regionalEndpoint: true };
  const { region } = vertex;
  const base = vertex.regionalEndpoint ? `https://${region === "global" ? "" : `${region}-`}aiplatform.googleapis.com` : settings.baseUrl.replace(/\/+$/, "");
  let project = vertex.project?.name;
  const describe = (): string => `Vertex AI (project ${project ?? "unknown"}, region ${region})`;
  return {
    name,
    get describe() {
      return describe();
    },
    async authorize() {
      const token = settings.apiKey ? { accessToken: settings.apiKey } : await adc.token();
      if (isProviderError(token)) return token;
      project ??= await adc.project();
      if (!project)
        return providerError("config", `no Google Cloud project for Vertex AI: set GOOGLE_CLOUD_PROJECT or "providers.${name}.project" in the config file (the credentials name none)`);
      const url = `${base}/v1/projects/${encodeURIComponent(project)}/locations/${encodeURIComponent(region)}/publishers/${publisher}/models/${encodeURIComponent(settings.model).replace(/%40/g, "@")}${method}`;
      return { url, headers: { authorization: `Bearer ${token.accessToken}`, ...("quotaProject" in token && token.quotaProject ? { "x-goog-user-project": token.quotaProject } : {}) } };
    },
    explainHttpError(error: ProviderError): ProviderError {
      if (error.status === 403)
        return { ...error, message: `${describe()} refused the request (HTTP 403): ${error.message}; the account needs the Vertex AI User role (roles/aiplatform.user) on the project and ${publisher === "anthropic" ? "the Claude model enabled in Model Garden" : "the Vertex AI API enabled"}` };
      if (error.status === 404)
        return { ...error, message: `${describe()} has no model ${settings.model} (HTTP 404): ${error.message}; check the model id and that the region serves it` };
      return error;
    },
  };
}
