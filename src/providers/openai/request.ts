/**
 * Conversation → OpenAI `chat/completions` request body (SPEC §3 rule 8). Pure and deterministic: the same
 * conversation and tools give the same bytes, and each tool's schema text is spliced in verbatim, so prompt
 * caches hit.
 */
import type { ImageData, ToolResultBlock, ToolUseBlock } from "../../model/blocks.js";
import type { Conversation } from "../../model/conversation.js";
import type { Message } from "../../model/message.js";
import { providerError, type ProviderError } from "../errors.js";
import type { ToolSpec } from "../types.js";
import type { Compat } from "./compat.js";

export interface ChatRequestSettings {
  model: string;
  maxTokens?: number;
  /** The system prompt, sent first as its own message (before any system message of the conversation). */
  system?: string | undefined;
}

type WireMessage = Record<string, unknown>;

/** What a failed tool call's text starts with on the wire (OpenAI-compatible tool messages have no `is_error`). */
export const TOOL_ERROR_PREFIX = "Error: ";

/** The JSON text of the request body, or a `bad_request` error for a tool whose schema is not a JSON object. */
export function buildChatRequestBody(
  conversation: Conversation,
  tools: readonly ToolSpec[],
  settings: ChatRequestSettings,
  compat: Compat,
): string | ProviderError {
  let body = `{"model":${JSON.stringify(settings.model)},"stream":true`;
  if (compat.includeUsage) body += `,"stream_options":{"include_usage":true}`;
  if (settings.maxTokens !== undefined) body += `,"${compat.maxTokensField}":${Math.trunc(settings.maxTokens)}`;
  const messages = convertMessages(conversation.messages, compat);
  if (settings.system) messages.unshift({ role: compat.systemRole, content: settings.system });
  body += `,"messages":${JSON.stringify(messages)}`;
  if (tools.length > 0) {
    const specs: string[] = [];
    for (const tool of tools) {
      const schema = tool.schema.trim();
      if (!schema.startsWith("{") || !schema.endsWith("}"))
        return providerError("bad_request", `the tool "${tool.name}" has a schema that is not a JSON object, so it cannot be offered to the model`);
      specs.push(toolJSON(tool));
    }
    body += `,"tools":[${specs.join(",")}]`;
  }
  return body + "}";
}

/** One tool as it goes into the request's `tools` array (also what `awl tools` counts as its cost per request). */
export function toolJSON(tool: ToolSpec): string {
  return `{"type":"function","function":{"name":${JSON.stringify(tool.name)},"description":${JSON.stringify(tool.description)},"parameters":${tool.schema.trim()}}}`;
}

/** awl messages → OpenAI messages: tool results become one `role: "tool"` message each, placed first. */
export function convertMessages(messages: readonly Message[], compat: Compat): WireMessage[] {
  const out: WireMessage[] = [];
  for (const message of messages) {
    if (message.role === "system") out.push({ role: compat.systemRole, content: joinedText(message) });
    else if (message.role === "assistant") out.push(convertAssistant(message, compat));
    else {
      const results = message.content.filter((b): b is ToolResultBlock => b.type === "tool_result");
      const images: ImageData[] = [];
      for (const result of results) {
        let content = result.content;
        if (result.images && result.images.length > 0) {
          if (compat.toolResultImages) images.push(...result.images);
          else content += `\n[${result.images.length} image(s) from this tool were left out: this endpoint does not accept images]`;
        }
        // Tool messages carry no error flag: a failed call says so in its text, or the model takes it for a result.
        if (result.is_error) content = `${TOOL_ERROR_PREFIX}${content}`;
        out.push({ role: "tool", tool_call_id: result.tool_use_id, content });
      }
      // Tool messages take text only, so their images follow as one user message.
      if (images.length > 0)
        out.push({
          role: "user",
          content: [
            { type: "text", text: "Images returned by the tool calls above:" },
            ...images.map((image) => ({ type: "image_url", image_url: { url: `data:${image.media_type};base64,${image.data}` } })),
          ],
        });
      if (message.content.some((b) => b.type === "text")) pushUserText(out, joinedText(message, "\n\n"));
    }
  }
  return out;
}

/**
 * Consecutive user texts (a prompt whose turn got no answer, then the next) go as one message: many
 * chat templates (Mistral, Gemma, DeepSeek's reasoner) reject two user messages in a row.
 */
function pushUserText(out: WireMessage[], text: string): void {
  const previous = out[out.length - 1];
  if (previous?.role === "user" && typeof previous.content === "string") previous.content += `\n\n${text}`;
  else out.push({ role: "user", content: text });
}

function convertAssistant(message: Message, compat: Compat): WireMessage {
  const toolCalls = message.content
    .filter((b): b is ToolUseBlock => b.type === "tool_use")
    .map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.input.trim() === "" ? "{}" : call.input },
    }));
  const text = joinedText(message);
  // With tool calls and no text, `content: null` is what OpenAI itself sends.
  const wire: WireMessage = { role: "assistant", content: text === "" && toolCalls.length > 0 ? null : text };
  if (compat.sendReasoningContent) {
    const reasoning = message.content.map((b) => (b.type === "thinking" ? b.thinking : "")).join("");
    if (reasoning !== "") wire.reasoning_content = reasoning;
  }
  if (toolCalls.length > 0) wire.tool_calls = toolCalls;
  return wire;
}

/** The message's text blocks joined (a user message's with a blank line between, so each stays apart). */
function joinedText(message: Message, separator = ""): string {
  return message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join(separator);
}
