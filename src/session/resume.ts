/** Resuming a session that stopped mid-turn (SPEC §5: every tool_use is answered before the next request). */
import { toolResult } from "../model/conversation.js";
import type { Message } from "../model/message.js";

/** The result an unanswered tool call gets when its session is resumed. */
export const SESSION_ENDED_RESULT =
  "The session ended before this tool ran or finished (awl was stopped mid-turn), so its result is unknown. Nothing was re-run on resume.";

/** One user message answering `toolUseIds` with synthetic `is_error` results, or undefined when there are none. */
export function syntheticResults(toolUseIds: readonly string[]): Message | undefined {
  if (toolUseIds.length === 0) return undefined;
  return { role: "user", content: toolUseIds.map((id) => toolResult(id, SESSION_ENDED_RESULT, true)) };
}
