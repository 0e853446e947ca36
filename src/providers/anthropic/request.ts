/**
 * The HTTP request for one Anthropic Messages call: `POST {baseUrl}/v1/messages` with `stream: true`.
 * Pure and deterministic: the same conversation, settings and tools give the same bytes, so the prompt
 * cache keeps hitting. Prompt caching puts `cache_control` breakpoints (at most 4, the API's limit) on
 * - the last tool (caches every tool definition),
 * - the system prompt,
 * - the last block of the last message (this request's whole prefix is written to the cache),
 * - the last block of the user message before it (the previous request's breakpoint, so a tool loop step
 *   reads the cache even when the newest turn adds more blocks than the API's 20-block look-back).
 * Each message's blocks are serialised once and cached ({@link AnthropicWireCache}), so a long session's request
 * costs the serialising of its new messages, not of the whole history.
 */
import type { Conversation } from "../../model/conversation.js";
import { clientHeaders } from "../client-headers.js";
import { providerError, type ProviderError } from "../errors.js";
import type { ProviderSettings, ToolSpec } from "../types.js";
import { convertMessages, createAnthropicWireCache, type AnthropicWireCache, type WireBlock } from "./convert-messages.js";
import { defaultMaxTokens, MIN_THINKING_BUDGET } from "./limits.js";
import { RawJson, stringifyWithRaw } from "./raw-json.js";
import { withoutSearchTool } from "../tool-specs.js";

export const ANTHROPIC_VERSION = "2023-06-01";
export const ANTHROPIC_BASE_URL = "https://api.anthropic.com";
/** The beta that lets Claude 4 models think between tool calls with budget thinking (`anthropic-beta` header). */
export const INTERLEAVED_THINKING_BETA = "interleaved-thinking-2025-05-14";

export { defaultMaxTokens } from "./limits.js";

export type AnthropicRequestSettings = Pick<
  ProviderSettings,
  "model" | "baseUrl" | "apiKey" | "maxTokens" | "thinking" | "interleavedThinking" | "headers" | "webSearch"
> & {
  /** A platform's `anthropic_version` (Vertex AI: `vertex-2023-10-16`): sent in the body in place of the model and header. */
  bodyVersion?: string;
};

/** Anthropic's server-side web search tool (`webSearch`), offered before awl's tools. */
const WEB_SEARCH_TOOL = { type: "web_search_20250305", name: "web_search", max_uses: 5 };

export interface AnthropicRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

const EPHEMERAL = { type: "ephemeral" } as const;

/**
 * The request for the conversation. With a `cache` that earlier requests filled, only messages that are new or
 * changed since are serialised; the bytes are the same either way.
 */
export function buildMessagesRequest(
  conversation: Conversation,
  settings: AnthropicRequestSettings,
  offered: readonly ToolSpec[] = [],
  prompt?: string,
  cache: AnthropicWireCache = createAnthropicWireCache(),
): AnthropicRequest | ProviderError {
  const tools = settings.webSearch ? withoutSearchTool(offered) : offered;
  const converted = convertMessages(conversation.messages, cache);
  const system = [prompt ?? "", converted.system].filter((text) => text !== "").join("\n\n");
  if (converted.count === 0)
    return providerError("bad_request", "the conversation has no user or assistant message to send to Anthropic");
  for (const tool of tools)
    if (!isJsonObjectText(tool.schema))
      return providerError("bad_request", `the tool "${tool.name}" has a schema that is not a JSON object, so it cannot be offered to the model`);
  const maxTokens = settings.maxTokens ?? defaultMaxTokens(settings.model);
  const problem = thinkingProblem(settings.thinking, maxTokens);
  if (problem) return providerError("config", problem);

  const body = {
    ...(settings.bodyVersion ? { anthropic_version: settings.bodyVersion } : { model: settings.model }),
    max_tokens: maxTokens,
    stream: true,
    system: system === "" ? undefined : [{ type: "text", text: system, cache_control: EPHEMERAL }],
    messages: new RawJson(`[${converted.messagesJSON}]`),
    tools: tools.length === 0 && !settings.webSearch ? undefined : [...(settings.webSearch ? [WEB_SEARCH_TOOL] : []), ...tools.map((tool, i) => wireTool(tool, i === tools.length - 1))],
    thinking: thinkingParam(settings.thinking),
  };
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "text/event-stream",
    ...(settings.bodyVersion ? {} : { "anthropic-version": ANTHROPIC_VERSION }),
    ...clientHeaders(settings),
  };
  if (settings.apiKey) headers["x-api-key"] = settings.apiKey;
  // Adaptive thinking interleaves by itself (Anthropic: no beta header required); budget thinking needs the beta.
  if (typeof settings.thinking === "number" && tools.length > 0 && settings.interleavedThinking !== false)
    headers["anthropic-beta"] = INTERLEAVED_THINKING_BETA;
  return { url: messagesUrl(settings.baseUrl), headers, body: stringifyWithRaw(body) };
}

/**
 * Why the API would refuse this thinking setting with these max tokens, in words for the user; undefined when
 * it is fine. A budget must be a whole number of at least 1024 and below `max_tokens` (the API lifts the last
 * rule for interleaved thinking with tools, but tools come and go between calls: awl keeps the rule that always
 * holds, so a setting never works on one call and fails on the next).
 */
export function thinkingProblem(thinking: ProviderSettings["thinking"], maxTokens: number): string | undefined {
  if (thinking === undefined || thinking === "off" || thinking === "adaptive") return undefined;
  if (typeof thinking !== "number" || !Number.isSafeInteger(thinking) || thinking < MIN_THINKING_BUDGET)
    return `the thinking setting ${JSON.stringify(thinking)} is not "off", "adaptive" or a budget of at least ${MIN_THINKING_BUDGET} tokens`;
  if (thinking >= maxTokens)
    return `the thinking budget ${thinking} is not below max_tokens ${maxTokens}, which Anthropic rejects: raise maxTokens above the budget or lower the budget`;
  return undefined;
}

/** The `thinking` request field; undefined (left out) when the setting is unset, so the model's default applies. */
function thinkingParam(thinking: ProviderSettings["thinking"]): Record<string, unknown> | undefined {
  if (thinking === undefined) return undefined;
  if (thinking === "off") return { type: "disabled" };
  if (thinking === "adaptive") return { type: "adaptive" };
  return { type: "enabled", budget_tokens: thinking };
}

/** `{baseUrl}/v1/messages`; a base URL that already ends in `/v1` is not doubled. */
export function messagesUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "")}/v1/messages`;
}

function wireTool(tool: ToolSpec, last: boolean): WireBlock {
  const wire: WireBlock = { name: tool.name, description: tool.description, input_schema: new RawJson(tool.schema) };
  if (last) wire.cache_control = EPHEMERAL;
  return wire;
}

/** A cheap shape check (the registry already validated the schema): splicing anything else would break the body. */
function isJsonObjectText(text: string): boolean {
  const trimmed = text.trim();
  return trimmed.startsWith("{") && trimmed.endsWith("}");
}
