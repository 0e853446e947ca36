/**
 * The Amazon Bedrock provider: `POST {base}/model/{modelId}/converse-stream` (the Converse API, any model Bedrock
 * serves), through the shared driver with the AWS event-stream decoder. Authentication: a Bedrock API key
 * (`AWS_BEARER_TOKEN_BEDROCK`, sent as a bearer token) when set, else SigV4 with the access key, secret and session
 * token awl was given (settings.aws, from the standard AWS variables). The region is the base URL's
 * (`bedrock-runtime.REGION.amazonaws.com`), else settings.aws.region.
 */
import { classifyHttpError, describeUrl } from "../classify-http-error.js";
import { clientHeaders } from "../client-headers.js";
import { isProviderError, providerError, ProviderConfigError } from "../errors.js";
import { runStream, type WireAdapter } from "../stream-driver.js";
import type { Provider, ProviderSettings } from "../types.js";
import { BedrockAssembler, isContextOverflow } from "./assembler.js";
import { createEventStreamDecoder } from "./event-stream.js";
import { buildConverseRequestBody } from "./request.js";
import { signRequest, type AwsCredentials } from "./sigv4.js";

export interface BedrockAuth {
  region?: string;
  credentials?: AwsCredentials;
}

export function createBedrockProvider(settings: ProviderSettings, auth: BedrockAuth, now: () => Date = () => new Date()): Provider {
  const url = new URL(`${settings.baseUrl.replace(/\/+$/, "")}/model/${encodeURIComponent(settings.model)}/converse-stream`);
  const region = /^bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com$/.exec(url.hostname)?.[1] ?? auth.region;
  if (!settings.apiKey && !auth.credentials)
    throw new ProviderConfigError(providerError("config", "no AWS credentials for Bedrock: set AWS_BEARER_TOKEN_BEDROCK, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN)"));
  if (!settings.apiKey && !region) throw new ProviderConfigError(providerError("config", "no AWS region for Bedrock: set AWS_REGION (or a base URL https://bedrock-runtime.REGION.amazonaws.com)"));
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/vnd.amazon.eventstream", ...clientHeaders(settings) };
  const requestSettings = { model: settings.model, maxTokens: settings.maxTokens, thinking: settings.thinking };

  const adapter: WireAdapter = {
    terminalMarker: "messageStop and metadata",
    buildRequest(conversation, options) {
      const body = buildConverseRequestBody(conversation, options.tools ?? [], { ...requestSettings, system: options.system });
      if (isProviderError(body)) return body;
      if (settings.apiKey) return { url: url.href, headers: { ...headers, authorization: `Bearer ${settings.apiKey}` }, body };
      const signed = signRequest({ method: "POST", url, headers, body, region: region!, service: "bedrock", credentials: auth.credentials!, now: now() });
      return { url: url.href, headers: signed, body };
    },
    createAssembler: (receiver) => new BedrockAssembler(receiver, describeUrl(url.href)),
    stream: { contentType: "application/vnd.amazon.eventstream", createDecoder: createEventStreamDecoder },
    classifyHttpError(failure) {
      const error = classifyHttpError(failure);
      return error.kind === "bad_request" && isContextOverflow(error.message) ? { ...error, kind: "context_length" } : error;
    },
  };
  return {
    name: "bedrock",
    model: settings.model,
    streamStep: (conversation, receiver, options = {}) => runStream(adapter, settings, conversation, receiver, options),
  };
}
