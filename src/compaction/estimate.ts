/**
 * A token estimate of the next request, cheap enough to run before every model call (bench: 10 000 messages,
 * ~50 MB, well under 50 ms): about 4 characters a token for text, a fixed size per image and per message, plus the
 * system prompt and the tool definitions. When the provider reported the size of an earlier request of the same conversation, that
 * figure replaces the estimate of everything up to it (so the estimate is off only by the newest messages).
 */
import type { Message } from "../model/message.js";
import type { ToolSpec } from "../providers/types.js";
import type { RequestShape } from "../agent/context-layer.js";

/** Characters per token for English text and code with the models' tokenizers (bench/estimate: the measured ratio). */
export const CHARS_PER_TOKEN = 4;
/** What an image costs, roughly (Anthropic: ~1600 tokens for a 1 MP image; OpenAI's high detail similar). */
const IMAGE_TOKENS = 1600;
/** Role markers and separators per message. */
const MESSAGE_OVERHEAD_TOKENS = 4;

/** The characters of one message that count towards tokens. */
export function messageChars(message: Message): number {
  let chars = 0;
  for (const block of message.content) {
    switch (block.type) {
      case "text":
        chars += block.text.length;
        break;
      case "thinking":
        chars += block.thinking.length + (block.redacted?.length ?? 0) / 2;
        break;
      case "tool_use":
        chars += block.name.length + block.input.length + 16;
        break;
      case "tool_result":
        chars += block.content.length + 16 + (block.images?.length ?? 0) * IMAGE_TOKENS * CHARS_PER_TOKEN;
        break;
      case "image":
        chars += IMAGE_TOKENS * CHARS_PER_TOKEN;
        break;
    }
  }
  return chars;
}

/** The estimated tokens of these messages alone. */
export function estimateMessages(messages: readonly Message[]): number {
  let chars = 0;
  for (const message of messages) chars += messageChars(message);
  return Math.ceil(chars / CHARS_PER_TOKEN) + messages.length * MESSAGE_OVERHEAD_TOKENS;
}

/** The estimated tokens of the tool definitions a request offers. */
export function estimateTools(tools: readonly ToolSpec[]): number {
  let chars = 0;
  for (const tool of tools) chars += tool.name.length + tool.description.length + tool.schema.length + 16;
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** The estimated tokens of what a request sends besides its messages. */
export function estimateShape(shape: RequestShape): number {
  return estimateTools(shape.tools) + Math.ceil((shape.system?.length ?? 0) / CHARS_PER_TOKEN);
}

/**
 * The estimated input tokens of a request holding `messages`, with `shape`'s tools and system prompt. `reported` is
 * the provider's own count of the request that ended with `messages[reported.index]` (its input and output tokens,
 * the cache included): it stands for everything up to that message, the tools and system prompt included.
 */
export function estimateRequest(messages: readonly Message[], shape: RequestShape, reported?: { index: number; tokens: number }): number {
  if (reported && reported.index < messages.length) return reported.tokens + estimateMessages(messages.slice(reported.index + 1));
  return estimateMessages(messages) + estimateShape(shape);
}
