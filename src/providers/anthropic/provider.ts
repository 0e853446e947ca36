/**
 * The Anthropic Messages API as a {@link Provider}: the request builder and the assembler of this folder,
 * run by the shared stream driver (HTTP, SSE framing, truncation, stalls, retries; HTTP 529 is `overloaded`).
 */
import type { Conversation } from "../../model/conversation.js";
import { providerError, ProviderConfigError } from "../errors.js";
import { runStream, type WireAdapter } from "../stream-driver.js";
import type { Provider, ProviderSettings, Receiver, StepResult, StreamOptions } from "../types.js";
import { AnthropicAssembler } from "./assembler.js";
import { createAnthropicWireCache } from "./convert-messages.js";
import { buildMessagesRequest, defaultMaxTokens, thinkingProblem } from "./request.js";

/** Builds the provider; throws {@link ProviderConfigError} for a thinking setting the API would refuse. */
export function createAnthropicProvider(settings: ProviderSettings): Provider {
  const problem = thinkingProblem(settings.thinking, settings.maxTokens ?? defaultMaxTokens(settings.model));
  if (problem) throw new ProviderConfigError(providerError("config", problem));
  const cache = createAnthropicWireCache();
  const adapter: WireAdapter = {
    terminalMarker: "message_stop",
    buildRequest: (conversation, options) => buildMessagesRequest(conversation, settings, options.tools, options.system, cache),
    createAssembler: (receiver) => new AnthropicAssembler(receiver),
  };
  return {
    name: "anthropic",
    model: settings.model,
    streamStep: (conversation: Conversation, receiver: Receiver, options?: StreamOptions): Promise<StepResult> =>
      runStream(adapter, settings, conversation, receiver, options),
  };
}
