/**
 * The Amazon Bedrock provider: `POST {base}/model/{modelId}/converse-stream` (the Converse API, any model Bedrock
 * serves), through the shared driver with the AWS event-stream decoder. Authentication: a Bedrock API key
 * (`AWS_BEARER_TOKEN_BEDROCK`, sent as a bearer token) when set, else SigV4 with the standard AWS variables' keys
 * or the AWS SDK's credential chain (aws-credential-chain.ts).
 */
import { classifyHttpError, describeUrl } from "../classify-http-error.js";
import { clientHeaders } from "../client-headers.js";
import { isProviderError } from "../errors.js";
import { runStream, type WireAdapter } from "../stream-driver.js";
import type { AwsSettings, Provider, ProviderSettings } from "../types.js";
import { awsCredentialSource } from "./aws-credential-chain.js";
import { BedrockAssembler, isContextOverflow } from "./assembler.js";
import { createEventStreamDecoder } from "./event-stream.js";
import { buildConverseRequestBody } from "./request.js";
import { signRequest } from "./sigv4.js";

/**
 * Builds the provider. Without a Bedrock API key, each request is signed with the credentials of `auth` (the
 * environment's keys, else the SDK's chain, asked on every request so that expiring ones are renewed), for the
 * base URL's region, else the configured one, else the profile's `region`, else us-east-1.
 */
export function createBedrockProvider(settings: ProviderSettings, auth: AwsSettings, now: () => Date = () => new Date()): Provider {
  const source = awsCredentialSource(auth);
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/vnd.amazon.eventstream", ...clientHeaders(settings) };
  const requestSettings = { model: settings.model, maxTokens: settings.maxTokens, thinking: settings.thinking };
  const path = `/model/${encodeURIComponent(settings.model)}/converse-stream`;
  const fixedUrl = new URL(`${settings.baseUrl.replace(/\/+$/, "")}${path}`);
  let endpoint: Promise<{ url: URL; region: string }> | undefined;
  /** The URL and signing region, found once (the profile's region needs `~/.aws/config` read). */
  const where = async (): Promise<{ url: URL; region: string }> => {
    const hostRegion = auth.regionalEndpoint ? undefined : /^bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com$/.exec(fixedUrl.hostname)?.[1];
    const region = hostRegion ?? auth.region ?? (await source.profileRegion()) ?? "us-east-1";
    return { url: auth.regionalEndpoint ? new URL(`https://bedrock-runtime.${region}.amazonaws.com${path}`) : fixedUrl, region };
  };
  let described = describeUrl(fixedUrl.href);

  const adapter: WireAdapter = {
    terminalMarker: "messageStop and metadata",
    async buildRequest(conversation, options) {
      const body = buildConverseRequestBody(conversation, options.tools ?? [], { ...requestSettings, system: options.system });
      if (isProviderError(body)) return body;
      if (settings.apiKey) {
        const url = auth.regionalEndpoint ? (await (endpoint ??= where())).url : fixedUrl;
        described = describeUrl(url.href);
        return { url: url.href, headers: { ...headers, authorization: `Bearer ${settings.apiKey}` }, body };
      }
      const credentials = await source.credentials();
      if (isProviderError(credentials)) return credentials;
      const { url, region } = await (endpoint ??= where());
      described = describeUrl(url.href);
      return { url: url.href, headers: signRequest({ method: "POST", url, headers, body, region, service: "bedrock", credentials, now: now() }), body };
    },
    createAssembler: (receiver) => new BedrockAssembler(receiver, described),
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
