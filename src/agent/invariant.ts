/**
 * The SPEC §5 invariant: every tool_use is answered by exactly one tool_result before the next request.
 * `answerUnansweredToolUses` repairs a conversation that broke off mid-turn (crash, kill, resumed session)
 * by inserting synthetic `is_error` results right after the assistant message that asked for them.
 */
import { toolResult } from "../model/conversation.js";
import type { Conversation } from "../model/conversation.js";
import type { ToolResultBlock } from "../model/blocks.js";

export const UNANSWERED_RESULT = "no result: the turn ended before this tool call ran or finished";

/** Returns the synthetic results it added (empty when the conversation was already whole). */
export function answerUnansweredToolUses(conversation: Conversation, reason = UNANSWERED_RESULT): ToolResultBlock[] {
  const added: ToolResultBlock[] = [];
  const messages = conversation.messages;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role !== "assistant") continue;
    const ids = message.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : []));
    if (ids.length === 0) continue;
    const next = messages[i + 1];
    const answered = new Set(
      next?.role === "user" ? next.content.flatMap((b) => (b.type === "tool_result" ? [b.tool_use_id] : [])) : [],
    );
    const missing = ids.filter((id) => !answered.has(id)).map((id) => toolResult(id, reason, true));
    if (missing.length === 0) continue;
    added.push(...missing);
    if (next?.role === "user" && answered.size > 0) next.content.push(...missing);
    else if (next?.role === "user") next.content.unshift(...missing);
    else messages.splice(i + 1, 0, { role: "user", content: missing });
  }
  return added;
}
