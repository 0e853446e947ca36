/**
 * Conversation → Bedrock Converse request body (`POST /model/{modelId}/converse-stream`). Pure and deterministic;
 * each tool's schema text is spliced in verbatim as `inputSchema.json`.
 *
 * - `system`: the system prompt, then the conversation's system messages; `messages` alternate user/assistant
 *   (consecutive messages of one role merge); empty text is never sent (the API refuses it).
 * - text → `{text}`; images → `{image: {format, source: {bytes}}}` (base64); tool_use → `{toolUse: {toolUseId,
 *   name, input}}` (input as a JSON object); tool_result → `{toolResult: {toolUseId, content: [{text}, {image}...],
 *   status}}`; Bedrock's own reasoning (`origin: "bedrock"`, signed) → `{reasoningContent: {reasoningText: {text,
 *   signature}}}` or `{redactedContent}`; other APIs' thinking is dropped. Tool ids outside `[a-zA-Z0-9_-]` are
 *   rewritten the same way on the call and its result.
 * - Anthropic models (`anthropic.` in the id, inference profiles included) get prompt caching: a `cachePoint` after
 *   the system prompt, after the tools and at the end of the last message.
 */
import type { ContentBlock, ImageData } from "../../model/blocks.js";
import type { Conversation } from "../../model/conversation.js";
import { parseToolInput } from "../../model/blocks.js";
import { isProviderError, type ProviderError } from "../errors.js";
import { toolSpecsJSON } from "../tool-specs.js";
import type { ThinkingSetting, ToolSpec } from "../types.js";

export interface BedrockRequestSettings {
  model: string;
  maxTokens?: number | undefined;
  system?: string | undefined;
  thinking?: ThinkingSetting | undefined;
}

type Part = Record<string, unknown>;
const CACHE_POINT: Part = { cachePoint: { type: "default" } };

/** The JSON text of the request body, or a `bad_request` error for a tool whose schema is not a JSON object. */
export function buildConverseRequestBody(conversation: Conversation, tools: readonly ToolSpec[], settings: BedrockRequestSettings): string | ProviderError {
  const caching = /(^|[.:/])anthropic\./.test(settings.model);
  const system: string[] = settings.system ? [settings.system] : [];
  const messages: Array<{ role: "user" | "assistant"; content: Part[] }> = [];
  for (const message of conversation.messages) {
    if (message.role === "system") {
      const text = message.content.flatMap((b) => (b.type === "text" && b.text !== "" ? [b.text] : [])).join("\n\n");
      if (text !== "") system.push(text);
      continue;
    }
    const content = message.content.flatMap((block) => part(block, message.role));
    if (content.length === 0) continue;
    const last = messages.at(-1);
    if (last?.role === message.role) last.content.push(...content);
    else messages.push({ role: message.role === "assistant" ? "assistant" : "user", content });
  }
  if (caching && messages.length > 0) messages.at(-1)!.content.push(CACHE_POINT);
  let body = `{"messages":${JSON.stringify(messages)}`;
  if (system.length > 0) body += `,"system":${JSON.stringify([{ text: system.join("\n\n") }, ...(caching ? [CACHE_POINT] : [])])}`;
  if (tools.length > 0) {
    const specs = toolSpecsJSON(tools, (tool, schema) => `{"toolSpec":{"name":${JSON.stringify(tool.name)},"description":${JSON.stringify(tool.description)},"inputSchema":{"json":${schema}}}}`);
    if (isProviderError(specs)) return specs;
    body += `,"toolConfig":{"tools":[${[...specs, ...(caching ? [JSON.stringify(CACHE_POINT)] : [])].join(",")}]}`;
  }
  if (settings.maxTokens !== undefined) body += `,"inferenceConfig":{"maxTokens":${Math.trunc(settings.maxTokens)}}`;
  if (caching && typeof settings.thinking === "number")
    body += `,"additionalModelRequestFields":{"thinking":{"type":"enabled","budget_tokens":${Math.trunc(settings.thinking)}}}`;
  return body + "}";
}

function part(block: ContentBlock, role: string): Part[] {
  switch (block.type) {
    case "text":
      return block.text.trim() === "" ? [] : [{ text: block.text }];
    case "image":
      return role === "user" ? [image(block)] : [];
    case "tool_use": {
      const parsed = parseToolInput(block.input);
      const input = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? parsed : {};
      return [{ toolUse: { toolUseId: toolId(block.id), name: block.name, input } }];
    }
    case "tool_result": {
      const content: Part[] = [{ text: block.content === "" ? "(no output)" : block.content }, ...(block.images ?? []).map(image)];
      return [{ toolResult: { toolUseId: toolId(block.tool_use_id), content, ...(block.is_error ? { status: "error" } : {}) } }];
    }
    case "thinking":
      if (role !== "assistant" || block.origin !== "bedrock") return [];
      if (block.redacted !== undefined) return [{ reasoningContent: { redactedContent: block.redacted } }];
      return block.signature ? [{ reasoningContent: { reasoningText: { text: block.thinking, signature: block.signature } } }] : [];
  }
}

function image(data: ImageData): Part {
  return { image: { format: data.media_type.replace(/^image\//, "").replace("jpg", "jpeg"), source: { bytes: data.data } } };
}

/** Converse tool ids match `[a-zA-Z0-9_-]+`; another API's id (`functions.read:0`) is rewritten alike on both sides. */
function toolId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, "_") || "tooluse_awl";
}
