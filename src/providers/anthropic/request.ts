/**
 * The HTTP request for one Anthropic Messages call: `POST {baseUrl}/v1/messages` with `stream: true`.
 * Pure and deterministic: the same conversation, settings and tools give the same bytes, so the prompt
 * cache keeps hitting. Prompt caching puts `cache_control` breakpoints (at most 4, the API's limit) on
 * - the last tool (caches every tool definition),
 * - the system prompt,
 * - the last block of the last message (this request's whole prefix is written to the cache),
 * - the last block of the user message before it (the previous request's breakpoint, so a tool loop step
 *   reads the cache even when the newest turn adds more blocks than the API's 20-block look-back).
 */
import type { Conversation } from "../../model/conversation.js";
import { providerError, type ProviderError } from "../errors.js";
import type { ProviderSettings, ToolSpec } from "../types.js";
import { convertMessages, type WireBlock, type WireMessage } from "./convert-messages.js";
import { THINKING_ANSWER_TOKENS } from "./limits.js";
import { RawJson, stringifyWithRaw } from "./raw-json.js";

export const ANTHROPIC_VERSION = "2023-06-01";
export const ANTHROPIC_BASE_URL = "https://api.anthropic.com";

export { THINKING_ANSWER_TOKENS } from "./limits.js";

export type AnthropicRequestSettings = Pick<ProviderSettings, "model" | "baseUrl" | "apiKey" | "maxTokens" | "thinkingBudget">;

export interface AnthropicRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

const EPHEMERAL = { type: "ephemeral" } as const;

export function buildMessagesRequest(
  conversation: Conversation,
  settings: AnthropicRequestSettings,
  tools: readonly ToolSpec[] = [],
): AnthropicRequest | ProviderError {
  const { system, messages } = convertMessages(conversation.messages);
  if (messages.length === 0)
    return providerError("bad_request", "the conversation has no user or assistant message to send to Anthropic");
  for (const tool of tools)
    if (!isJsonObjectText(tool.schema))
      return providerError("bad_request", `the tool "${tool.name}" has a schema that is not a JSON object, so it cannot be offered to the model`);
  markCacheBreakpoints(messages);

  let maxTokens = settings.maxTokens ?? defaultMaxTokens(settings.model);
  const budget = settings.thinkingBudget;
  const thinking = budget !== undefined && budget > 0 ? { type: "enabled", budget_tokens: budget } : undefined;
  if (thinking && maxTokens <= thinking.budget_tokens) maxTokens = thinking.budget_tokens + THINKING_ANSWER_TOKENS;

  const body = {
    model: settings.model,
    max_tokens: maxTokens,
    stream: true,
    system: system === "" ? undefined : [{ type: "text", text: system, cache_control: EPHEMERAL }],
    messages,
    tools: tools.length === 0 ? undefined : tools.map((tool, i) => wireTool(tool, i === tools.length - 1)),
    thinking,
  };
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "text/event-stream",
    "anthropic-version": ANTHROPIC_VERSION,
  };
  if (settings.apiKey) headers["x-api-key"] = settings.apiKey;
  return { url: messagesUrl(settings.baseUrl), headers, body: stringifyWithRaw(body) };
}

/**
 * Output room when none is configured, by model family: the Claude 3 models' own limits, and 32000 for
 * later Claude models (what Claude Code uses; their limits are 32k–128k). An unknown model name (a proxy
 * routing to something else) gets 8192, which every current model accepts.
 */
export function defaultMaxTokens(model: string): number {
  const name = model.toLowerCase();
  if (/claude-3-(opus|sonnet|haiku)|claude-2|claude-instant/.test(name)) return 4096;
  if (name.includes("claude-3-5")) return 8192;
  if (name.includes("claude")) return 32000;
  return 8192;
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

function markCacheBreakpoints(messages: WireMessage[]): void {
  const last = messages.length - 1;
  markLastCacheableBlock(messages[last]!);
  for (let i = last - 1; i >= 0; i--) {
    if (messages[i]!.role === "user") {
      markLastCacheableBlock(messages[i]!);
      return;
    }
  }
}

/** Thinking blocks cannot carry `cache_control`; the breakpoint goes on the last block that can. */
function markLastCacheableBlock(message: WireMessage): void {
  for (let i = message.content.length - 1; i >= 0; i--) {
    const block = message.content[i]!;
    if (block.type !== "thinking" && block.type !== "redacted_thinking") {
      block.cache_control = EPHEMERAL;
      return;
    }
  }
}
