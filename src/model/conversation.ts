import type { ContentBlock, ImageData, ToolResultBlock, ToolUseBlock } from "./blocks.js";
import type { Message } from "./message.js";

/**
 * An ordered list of messages: the whole history sent to the model.
 * Plain data with the seed's `add*` helpers; it knows nothing of providers or I/O.
 */
export class Conversation {
  readonly messages: Message[];

  constructor(messages: Message[] = []) {
    this.messages = messages;
  }

  addSystemMessage(text: string): Message {
    return this.addMessage({ role: "system", content: [{ type: "text", text }] });
  }

  addUserMessage(text: string): Message {
    return this.addMessage({ role: "user", content: [{ type: "text", text }] });
  }

  /** Appends an assistant message (e.g. one assembled elsewhere, or a scripted reply). */
  addAssistantMessage(content: ContentBlock[], details: Omit<Message, "role" | "content"> = {}): Message {
    return this.addMessage({ ...details, role: "assistant", content });
  }

  /** Appends one user message carrying tool results (SPEC §5: one message per batch). */
  addToolResults(results: ToolResultBlock[]): Message {
    return this.addMessage({ role: "user", content: results });
  }

  addMessage(message: Message): Message {
    this.messages.push(message);
    return message;
  }

  get length(): number {
    return this.messages.length;
  }

  get lastMessage(): Message | undefined {
    return this.messages[this.messages.length - 1];
  }

  /** tool_use blocks of the last assistant message that no later tool_result answers. */
  unansweredToolUses(): ToolUseBlock[] {
    const answered = new Set<string>();
    for (let i = this.messages.length - 1; i >= 0; i--) {
      const message = this.messages[i]!;
      if (message.role === "assistant") {
        return message.content.filter((b): b is ToolUseBlock => b.type === "tool_use" && !answered.has(b.id));
      }
      for (const block of message.content) if (block.type === "tool_result") answered.add(block.tool_use_id);
    }
    return [];
  }
}

/** Makes a tool_result block; `images` only when there are some. */
export function toolResult(toolUseId: string, content: string, isError = false, images?: ImageData[]): ToolResultBlock {
  const block: ToolResultBlock = { type: "tool_result", tool_use_id: toolUseId, content };
  if (isError) block.is_error = true;
  if (images && images.length > 0) block.images = images;
  return block;
}

export function textOf(message: Message, type: "text" | "thinking" = "text"): string {
  let out = "";
  for (const block of message.content as ContentBlock[]) {
    if (block.type === "text" && type === "text") out += block.text;
    else if (block.type === "thinking" && type === "thinking") out += block.thinking;
  }
  return out;
}
