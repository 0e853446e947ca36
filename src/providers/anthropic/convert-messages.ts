/**
 * awl messages → Anthropic Messages API `system` and `messages` (SPEC §3 rule 8), including the rules for
 * a conversation that started on another provider (issue 3 item 5; docs/providers.md, "Anthropic"):
 * - every system message, wherever it is, joins the top-level `system` text (blank line between);
 * - thinking with a signature goes back as `thinking`, redacted thinking as opaque `redacted_thinking`;
 *   thinking without a signature (an OpenAI-compatible reasoning model's) is dropped: Anthropic rejects
 *   unsigned thinking, and replaying it as text would put words in the model's mouth;
 * - tool ids are rewritten to fit Anthropic ({@link ToolIdMap}), the same way for a tool_use and its result;
 * - empty text blocks are dropped (the API rejects them), then messages left empty are dropped and
 *   consecutive same-role messages merged; in a user message tool_result blocks come first, as the API requires.
 */
import type { ContentBlock, ToolResultBlock } from "../../model/blocks.js";
import type { Message } from "../../model/message.js";
import { RawJson } from "./raw-json.js";
import { ToolIdMap } from "./tool-ids.js";

/** One content block as sent; `tool_use.input` is a {@link RawJson} so the model's own bytes go back. */
export type WireBlock = Record<string, unknown>;

export interface WireMessage {
  role: "user" | "assistant";
  content: WireBlock[];
}

export interface ConvertedConversation {
  /** All system text, joined; empty when there is none. */
  system: string;
  messages: WireMessage[];
}

export function convertMessages(messages: readonly Message[]): ConvertedConversation {
  const ids = new ToolIdMap();
  const system: string[] = [];
  const out: WireMessage[] = [];
  for (const message of messages) {
    if (message.role === "system") {
      const text = systemText(message);
      if (text !== "") system.push(text);
      continue;
    }
    const content: WireBlock[] = [];
    for (const block of message.content) {
      const wire = convertBlock(block, message.role, ids);
      if (wire) content.push(wire);
    }
    if (content.length === 0) continue;
    const previous = out[out.length - 1];
    if (previous?.role === message.role) previous.content.push(...content);
    else out.push({ role: message.role, content });
  }
  for (const message of out) if (message.role === "user") message.content = toolResultsFirst(message.content);
  return { system: system.join("\n\n"), messages: out };
}

function systemText(message: Message): string {
  let text = "";
  for (const block of message.content) if (block.type === "text" && block.text !== "") text += (text === "" ? "" : "\n\n") + block.text;
  return text;
}

function convertBlock(block: ContentBlock, role: "user" | "assistant", ids: ToolIdMap): WireBlock | undefined {
  switch (block.type) {
    case "text":
      return block.text === "" ? undefined : { type: "text", text: block.text };
    case "thinking":
      // Only the assistant thinks; a thinking block elsewhere is not something the API could accept.
      if (role !== "assistant") return undefined;
      if (block.redacted !== undefined) return { type: "redacted_thinking", data: block.redacted };
      if (block.signature) return { type: "thinking", thinking: block.thinking, signature: block.signature };
      return undefined;
    case "tool_use":
      return { type: "tool_use", id: ids.forToolUse(block.id), name: block.name, input: toolInput(block.input) };
    case "tool_result":
      return toolResult(block, ids.forToolResult(block.tool_use_id));
  }
}

/**
 * The model's input as a JSON object, its bytes unchanged when they already are one (no number rounding,
 * no reordering). Empty input is `{}`; input that is not a JSON object (a model's broken JSON from another
 * provider) goes as `{}` too, since the API accepts nothing else; its tool_result already told the model.
 */
function toolInput(input: string): RawJson {
  const trimmed = input.trim();
  if (trimmed.startsWith("{")) {
    try {
      JSON.parse(trimmed);
      return new RawJson(trimmed);
    } catch {
      /* not JSON: falls through to {} */
    }
  }
  return new RawJson("{}");
}

function toolResult(block: ToolResultBlock, id: string): WireBlock {
  const wire: WireBlock = { type: "tool_result", tool_use_id: id };
  if (block.images && block.images.length > 0) {
    const content: WireBlock[] = [];
    if (block.content !== "") content.push({ type: "text", text: block.content });
    for (const image of block.images)
      content.push({ type: "image", source: { type: "base64", media_type: image.media_type, data: image.data } });
    wire.content = content;
  } else if (block.content !== "") {
    wire.content = block.content;
  }
  if (block.is_error) wire.is_error = true;
  return wire;
}

/** Stable: tool_result blocks in their order, then everything else in its order. */
function toolResultsFirst(content: WireBlock[]): WireBlock[] {
  const results = content.filter((b) => b.type === "tool_result");
  if (results.length === 0 || results.length === content.length) return content;
  return [...results, ...content.filter((b) => b.type !== "tool_result")];
}
