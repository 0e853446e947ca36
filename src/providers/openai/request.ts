/**
 * Conversation → OpenAI `chat/completions` request body (SPEC §3 rule 8). Pure and deterministic: the same
 * conversation and tools give the same bytes, and each tool's schema text is spliced in verbatim, so prompt
 * caches hit. Each message's wire JSON is cached between requests ({@link ChatWireCache}), so a long session's
 * request costs the serialising of its new messages, not of the whole history.
 */
import type { ImageBlock, ImageData, ToolResultBlock, ToolUseBlock } from "../../model/blocks.js";
import type { Conversation } from "../../model/conversation.js";
import type { Message } from "../../model/message.js";
import { flatJSON, MessageMemo } from "../../model/message-memo.js";
import { isProviderError, type ProviderError } from "../errors.js";
import { toolSpecsJSON } from "../tool-specs.js";
import { markedErrorText } from "../tool-error-text.js";
import type { ToolSpec } from "../types.js";
import type { Compat } from "./compat.js";

export interface ChatRequestSettings {
  model: string;
  maxTokens?: number;
  /** The system prompt, sent first as its own message (before any system message of the conversation). */
  system?: string | undefined;
}

type WireMessage = Record<string, unknown>;

/**
 * The wire JSON of each message, kept between requests of one provider (a conversation mostly grows at its end, so a
 * request serialises only its new messages). Entries are valid for one {@link Compat}: another one rebuilds them.
 */
export type ChatWireCache = MessageMemo<ChatFragment>;

/** A fresh, empty {@link ChatWireCache}. */
export function createChatWireCache(): ChatWireCache {
  return new MessageMemo<ChatFragment>();
}

/** What one awl message becomes on the wire. */
interface ChatFragment {
  compat: Compat;
  /** Its wire messages' JSON, comma-separated ("" for none), except the user text below. */
  lead: string;
  /** A user message's text, sent last; it joins a user text right before it, a blank line between. */
  text?: string;
  /** A user message's images, sent after its text (and joining with it). */
  images?: ImageData[];
  /** `text` (and `images`) as a wire message of its own. */
  textJSON?: string;
}

/**
 * The JSON text of the request body, or a `bad_request` error for a tool whose schema is not a JSON object. With a
 * `cache` that earlier requests filled, only messages that are new or changed since are serialised; the bytes are
 * the same either way.
 */
export function buildChatRequestBody(
  conversation: Conversation,
  tools: readonly ToolSpec[],
  settings: ChatRequestSettings,
  compat: Compat,
  cache: ChatWireCache = createChatWireCache(),
): string | ProviderError {
  let body = `{"model":${JSON.stringify(settings.model)},"stream":true`;
  if (compat.includeUsage) body += `,"stream_options":{"include_usage":true}`;
  if (settings.maxTokens !== undefined) body += `,"${compat.maxTokensField}":${Math.trunc(settings.maxTokens)}`;
  body += `,"messages":[${messagesJSON(conversation.messages, compat, cache, settings.system)}]`;
  if (tools.length > 0) {
    const specs = toolSpecsJSON(tools, toolJSON);
    if (isProviderError(specs)) return specs;
    body += `,"tools":[${specs.join(",")}]`;
  }
  return body + "}";
}

/** One tool as it goes into the request's `tools` array (also what `awl tools` counts as its cost per request). */
export function toolJSON(tool: ToolSpec): string {
  return `{"type":"function","function":{"name":${JSON.stringify(tool.name)},"description":${JSON.stringify(tool.description)},"parameters":${tool.schema.trim()}}}`;
}

/** The wire messages, comma-separated: the system prompt first, then each message's cached fragment. */
function messagesJSON(messages: readonly Message[], compat: Compat, cache: ChatWireCache, system: string | undefined): string {
  let out = system ? JSON.stringify({ role: compat.systemRole, content: system }) : "";
  const emit = (json: string): void => {
    out += out === "" ? json : `,${json}`;
  };
  // A user text waits here until it is known whether the next message's text joins it: consecutive user texts (a
  // prompt whose turn got no answer, then the next) go as one message, since many chat templates (Mistral, Gemma,
  // DeepSeek's reasoner) reject two user messages in a row.
  let pending: { text: string; images: ImageData[]; json: string | undefined } | undefined;
  const flush = (): void => {
    if (pending) emit(pending.json ?? userJSON(pending.text, pending.images));
    pending = undefined;
  };
  for (const message of messages) {
    let fragment = cache.get(message);
    if (fragment?.compat !== compat) {
      fragment = convertMessage(message, compat);
      cache.set(message, fragment);
    }
    if (fragment.lead !== "") {
      flush();
      emit(fragment.lead);
    }
    if (fragment.text === undefined) continue;
    const images = fragment.images ?? [];
    if (pending && fragment.lead === "") pending = { text: [pending.text, fragment.text].filter((t) => t !== "").join("\n\n"), images: [...pending.images, ...images], json: undefined };
    else {
      flush();
      pending = { text: fragment.text, images, json: fragment.textJSON };
    }
  }
  flush();
  return out;
}

/** One awl message → its OpenAI messages: tool results become one `role: "tool"` message each, placed first. */
function convertMessage(message: Message, compat: Compat): ChatFragment {
  if (message.role === "system") return { compat, lead: flatJSON(JSON.stringify({ role: compat.systemRole, content: joinedText(message) })) };
  if (message.role === "assistant") return { compat, lead: flatJSON(JSON.stringify(convertAssistant(message, compat))) };
  const out: WireMessage[] = [];
  const results = message.content.filter((b): b is ToolResultBlock => b.type === "tool_result");
  const images: ImageData[] = [];
  for (const result of results) {
    let content = result.content;
    if (result.images && result.images.length > 0) {
      if (compat.toolResultImages) images.push(...result.images);
      else content += `\n[${result.images.length} image(s) from this tool were left out: this endpoint does not accept images]`;
    }
    // Tool messages carry no error flag: a failed call says so in its text, or the model takes it for a result.
    if (result.is_error) content = markedErrorText(content);
    out.push({ role: "tool", tool_call_id: result.tool_use_id, content });
  }
  // Tool messages take text only, so their images follow as one user message.
  if (images.length > 0)
    out.push({ role: "user", content: [{ type: "text", text: "Images returned by the tool calls above:" }, ...images.map(imagePart)] });
  const lead = flatJSON(out.map((wire) => JSON.stringify(wire)).join(","));
  let prompted = message.content.filter((b): b is ImageBlock => b.type === "image");
  if (!message.content.some((b) => b.type === "text") && prompted.length === 0) return { compat, lead };
  let text = joinedText(message, "\n\n");
  if (prompted.length > 0 && !compat.toolResultImages) {
    text = [text, `[${prompted.length} image(s) of this message were left out: this endpoint does not accept images]`].filter((t) => t !== "").join("\n\n");
    prompted = [];
  }
  const textJSON = flatJSON(userJSON(text, prompted));
  // Every field at once: one object of its own size (fields added later would go to a store of their own).
  return prompted.length > 0 ? { compat, lead, text, images: prompted, textJSON } : { compat, lead, text, textJSON };
}

/** A user message: its text as a string, or, with images, as content parts (text first). */
function userJSON(text: string, images: readonly ImageData[]): string {
  if (images.length === 0) return JSON.stringify({ role: "user", content: text });
  return JSON.stringify({ role: "user", content: [...(text === "" ? [] : [{ type: "text", text }]), ...images.map(imagePart)] });
}

function imagePart(image: ImageData): { type: "image_url"; image_url: { url: string } } {
  return { type: "image_url", image_url: { url: `data:${image.media_type};base64,${image.data}` } };
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
