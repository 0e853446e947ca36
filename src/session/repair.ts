/**
 * Makes a conversation read from a damaged file one that providers accept (in memory only; the file is
 * never rewritten). A skipped line can leave tool results whose call is gone: OpenAI and Anthropic refuse
 * a tool result that does not follow the assistant message asking for it, on every resume. Such a result
 * becomes a plain-text note in its message, and a conversation that no longer starts with a user message
 * gets one when a line was skipped. (Calls left without results are answered by SessionStore.open, SPEC §5.)
 */
import type { ContentBlock, ToolResultBlock } from "../model/blocks.js";
import type { Conversation } from "../model/conversation.js";
import type { Message } from "../model/message.js";
import type { SessionWarning } from "./errors.js";

/** The note that stands in for a result whose call is missing. */
export function orphanNote(result: ToolResultBlock): string {
  const images = result.images?.length ? ` (${result.images.length} image(s) left out)` : "";
  return `[The result of tool call ${result.tool_use_id}, whose call is missing from the saved session (a damaged line was skipped)${images}:]\n${result.content}`;
}

/**
 * Repairs `conversation` in place (its messages are replaced, not changed, so the transcript keeps what was
 * saved). `lineOf` gives the file line of a message, for the warnings.
 */
export function repairConversation(
  conversation: Conversation,
  path: string,
  lineOf: (message: Message) => number | undefined,
  /** A line was skipped: a conversation starting with the assistant lost its start (a library may save one on purpose). */
  damaged: boolean,
): SessionWarning[] {
  const warnings: SessionWarning[] = [];
  const messages = conversation.messages;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role !== "user" || !message.content.some((b) => b.type === "tool_result")) continue;
    const previous = messages[i - 1];
    const asked = new Set(previous?.role === "assistant" ? previous.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : [])) : []);
    const results: ContentBlock[] = [];
    const rest: ContentBlock[] = [];
    const orphans: string[] = [];
    for (const block of message.content) {
      if (block.type !== "tool_result") rest.push(block);
      else if (asked.delete(block.tool_use_id)) results.push(block);
      else {
        orphans.push(block.tool_use_id);
        rest.push({ type: "text", text: orphanNote(block) });
      }
    }
    if (orphans.length === 0) continue;
    // Results first, then text: Anthropic wants a message's tool_result blocks before anything else.
    messages[i] = { ...message, content: [...results, ...rest] };
    const line = lineOf(message);
    warnings.push({
      kind: "invalid_line",
      message: `${path}${line === undefined ? "" : `:${line}`}: tool result(s) ${orphans.join(", ")} answer a call that is not in the session (its line was skipped?); they are sent to the model as plain text, and the file is left as it is`,
      path,
      ...(line === undefined ? {} : { line }),
    });
  }
  if (damaged && messages[0]?.role === "assistant") {
    messages.unshift({ role: "user", content: [{ type: "text", text: "[The start of this saved session could not be read (a damaged line was skipped).]" }] });
    warnings.push({ kind: "invalid_line", message: `${path}: the session's first message could not be read; a note stands in for it in the conversation sent to the model`, path });
  }
  return warnings;
}
