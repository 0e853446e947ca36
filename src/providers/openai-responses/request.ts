/**
 * Conversation → OpenAI Responses API request body (`POST {baseUrl}/responses`, docs/providers.md "OpenAI
 * Responses"). Pure and deterministic: the same conversation and tools give the same bytes, each tool's schema
 * text spliced in verbatim, so prompt caches hit.
 *
 * - `store: false`: nothing is kept server-side; instead every reasoning item comes back with its
 *   `encrypted_content` (`include: ["reasoning.encrypted_content"]`) and is sent back in the next request, without
 *   its id (an id names a stored item, and none is stored).
 * - awl's thinking becomes a reasoning item only when it is an OpenAI reasoning item (`origin: "openai-responses"`,
 *   the encrypted content in `signature`); anyone else's thinking is dropped, as the API could not read it. A
 *   reasoning item needs an item after it (the API rejects one that ends the output), so a trailing one is dropped.
 * - assistant text → an assistant message; tool_use → `function_call` (`call_id` = the tool id);
 *   tool_result → `function_call_output` (a failed call's text marked, images as `input_image` parts).
 * - system prompt → `instructions`; the conversation's own system messages stay in place as `system` messages.
 * - `prompt_cache_key`: a hash of the model, system prompt and first message, the same for every request of one
 *   conversation, so OpenAI routes them to the same cache.
 */
import { createHash } from "node:crypto";
import type { ContentBlock, ImageData } from "../../model/blocks.js";
import type { Conversation } from "../../model/conversation.js";
import type { Message } from "../../model/message.js";
import { flatJSON, MessageMemo } from "../../model/message-memo.js";
import { isProviderError, type ProviderError } from "../errors.js";
import { toolSpecsJSON, withoutSearchTool } from "../tool-specs.js";
import { markedErrorText } from "../tool-error-text.js";
import type { ToolSpec } from "../types.js";

export interface ResponsesRequestSettings {
  model: string;
  maxTokens?: number | undefined;
  /** Sent as `instructions`. */
  system?: string | undefined;
  /** Ask for reasoning summaries (`reasoning: {summary: "auto"}`) and encrypted reasoning; only reasoning models accept it. */
  reasoning: boolean;
  /** Offer OpenAI's web search tool (`{"type": "web_search"}`) instead of awl's `search` tool. */
  webSearch?: boolean;
}

/** Each message's input items as JSON, remembered between requests of one provider. */
export type ResponsesWireCache = MessageMemo<string[]>;

export function createResponsesWireCache(): ResponsesWireCache {
  return new MessageMemo<string[]>();
}

/** The JSON text of the request body, or a `bad_request` error for a tool whose schema is not a JSON object. */
export function buildResponsesRequestBody(
  conversation: Conversation,
  offered: readonly ToolSpec[],
  settings: ResponsesRequestSettings,
  cache: ResponsesWireCache = createResponsesWireCache(),
): string | ProviderError {
  const tools = settings.webSearch ? withoutSearchTool(offered) : offered;
  let body = `{"model":${JSON.stringify(settings.model)},"stream":true,"store":false`;
  if (settings.system) body += `,"instructions":${JSON.stringify(settings.system)}`;
  if (settings.reasoning) body += `,"reasoning":{"summary":"auto"},"include":["reasoning.encrypted_content"]`;
  if (settings.maxTokens !== undefined) body += `,"max_output_tokens":${Math.trunc(settings.maxTokens)}`;
  body += `,"prompt_cache_key":${JSON.stringify(promptCacheKey(conversation.messages, settings))}`;
  const items: string[] = [];
  for (const message of conversation.messages) {
    let json = cache.get(message);
    if (json === undefined) {
      json = messageItems(message).map(flatJSON);
      cache.set(message, json);
    }
    items.push(...json);
  }
  body += `,"input":[${items.join(",")}]`;
  if (tools.length > 0 || settings.webSearch) {
    const specs = toolSpecsJSON(
      tools,
      (tool, schema) => `{"type":"function","name":${JSON.stringify(tool.name)},"description":${JSON.stringify(tool.description)},"parameters":${schema},"strict":false}`,
    );
    if (isProviderError(specs)) return specs;
    body += `,"tools":[${[...(settings.webSearch ? ['{"type":"web_search"}'] : []), ...specs].join(",")}]`;
  }
  return body + "}";
}

/** Stable for one conversation: it depends only on what never changes once the conversation has begun. */
function promptCacheKey(messages: readonly Message[], settings: ResponsesRequestSettings): string {
  const hash = createHash("sha256").update(settings.model).update("\0").update(settings.system ?? "").update("\0");
  const head = messages[0];
  if (head) hash.update(JSON.stringify(head.content));
  return `awl-${hash.digest("hex").slice(0, 32)}`;
}

/** The input items of one message. */
function messageItems(message: Message): string[] {
  if (message.role === "system") {
    const text = textOf(message.content);
    return text === "" ? [] : [JSON.stringify({ role: "system", content: text })];
  }
  if (message.role === "user") return userItems(message.content);
  return assistantItems(message.content);
}

function userItems(blocks: readonly ContentBlock[]): string[] {
  const items: string[] = [];
  const parts: unknown[] = [];
  for (const block of blocks) {
    if (block.type === "tool_result") {
      const text = block.is_error ? markedErrorText(block.content) : block.content;
      const output = block.images?.length ? [{ type: "input_text", text }, ...block.images.map(imagePart)] : text;
      items.push(JSON.stringify({ type: "function_call_output", call_id: block.tool_use_id, output }));
    } else if (block.type === "text" && block.text !== "") parts.push({ type: "input_text", text: block.text });
    else if (block.type === "image") parts.push(imagePart(block));
  }
  if (parts.length > 0) items.push(JSON.stringify({ role: "user", content: parts }));
  return items;
}

function assistantItems(blocks: readonly ContentBlock[]): string[] {
  const items: string[] = [];
  let text = "";
  const flushText = (): void => {
    if (text !== "") items.push(JSON.stringify({ role: "assistant", content: text }));
    text = "";
  };
  for (const block of blocks) {
    if (block.type === "text") text += block.text;
    else if (block.type === "thinking") {
      if (block.origin !== "openai-responses" || !block.signature) continue;
      flushText();
      const summary = block.thinking === "" ? [] : [{ type: "summary_text", text: block.thinking }];
      items.push(JSON.stringify({ type: "reasoning", summary, encrypted_content: block.signature }));
    } else if (block.type === "tool_use") {
      flushText();
      const args = block.input.trim() === "" ? "{}" : block.input;
      items.push(JSON.stringify({ type: "function_call", call_id: block.id, name: block.name, arguments: args }));
    }
  }
  flushText();
  // A reasoning item must be followed by the item it led to.
  while (items.length > 0 && items[items.length - 1]!.startsWith('{"type":"reasoning"')) items.pop();
  return items;
}

function textOf(blocks: readonly ContentBlock[]): string {
  return blocks.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n\n");
}

function imagePart(image: ImageData): { type: "input_image"; image_url: string; detail: "auto" } {
  return { type: "input_image", image_url: `data:${image.media_type};base64,${image.data}`, detail: "auto" };
}
