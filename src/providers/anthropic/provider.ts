/**
 * The Anthropic Messages API as a {@link Provider}: the request builder and the assembler of this folder,
 * run by the shared stream driver (HTTP, SSE framing, truncation, stalls, retries; HTTP 529 is `overloaded`).
 */
import type { Conversation } from "../../model/conversation.js";
import { providerError, ProviderConfigError } from "../errors.js";
import { classifyHttpError } from "../classify-http-error.js";
import { onPlatform, type WirePlatform } from "../platform.js";
import { runStream, type WireAdapter } from "../stream-driver.js";
import type { Provider, ProviderSettings, Receiver, StepResult, StreamOptions } from "../types.js";
import { AnthropicAssembler } from "./assembler.js";
import { createAnthropicWireCache } from "./convert-messages.js";
import { buildMessagesRequest, defaultMaxTokens, thinkingProblem } from "./request.js";

/**
 * Builds the provider; throws {@link ProviderConfigError} for a thinking setting the API would refuse. On a
 * `platform` (Claude on Vertex AI) the same requests go to its URL with its sign-in, the model named there instead of
 * in the body, which carries the platform's `anthropic_version`.
 */
export function createAnthropicProvider(settings: ProviderSettings, platform?: WirePlatform & { anthropicVersion: string }): Provider {
  const problem = thinkingProblem(settings.thinking, settings.maxTokens ?? defaultMaxTokens(settings.model));
  if (problem) throw new ProviderConfigError(providerError("config", problem));
  const cache = createAnthropicWireCache();
  const build = (conversation: Conversation, options: StreamOptions) =>
    buildMessagesRequest(conversation, platform ? { ...settings, apiKey: undefined, bodyVersion: platform.anthropicVersion } : settings, options.tools, options.system, cache);
  const adapter: WireAdapter = {
    terminalMarker: "message_stop",
    buildRequest: platform ? (conversation, options) => onPlatform(platform, build(conversation, options)) : build,
    createAssembler: (receiver) => new AnthropicAssembler(receiver),
    ...(platform?.explainHttpError ? { classifyHttpError: (failure) => platform.explainHttpError!(classifyHttpError(failure)) } : {}),
  };
  return {
    name: platform?.name ?? "anthropic",
    model: settings.model,
    streamStep: (conversation: Conversation, receiver: Receiver, options?: StreamOptions): Promise<StepResult> =>
      runStream(adapter, settings, conversation, receiver, options),
  };
}
