/**
 * The hooks around one turn (Runtime.runTurn): `session_start` / SessionStart before a session's first prompt, then
 * `user_prompt` / UserPromptSubmit (block, rewrite, context), and after the agent's turn `turn_end` / Stop, which may
 * ask for one more model call, at most {@link MAX_CONTINUES_PER_TURN} times in a turn.
 */
import type { TurnResult } from "../agent/agent.js";
import type { ContentBlock } from "../model/blocks.js";
import { addUsage } from "../model/message.js";
import type { Message } from "../model/message.js";
import type { Hooks, SessionSource } from "./dispatcher.js";
import { MAX_CONTINUES_PER_TURN } from "./events.js";

/** The prompt as the hooks leave it, or why it was blocked. */
export async function promptThroughHooks(
  hooks: Hooks,
  content: ContentBlock[],
  started: SessionSource | undefined,
  signal: AbortSignal,
): Promise<{ block: string } | { content: ContentBlock[] }> {
  const context: string[] = started ? await hooks.sessionStart(started, signal) : [];
  const index = content.findIndex((b) => b.type === "text");
  const text = index >= 0 ? (content[index] as { text: string }).text : "";
  const attachments = content.filter((_, i) => i !== index).flatMap((b): Record<string, string>[] => (b.type === "text" ? [{ type: "text", text: b.text }] : b.type === "image" ? [{ type: "image", media_type: b.media_type }] : []));
  const verdict = await hooks.userPrompt(text, attachments, signal);
  if (verdict.block !== undefined) return { block: verdict.block };
  const out = [...content];
  if (verdict.prompt !== text) {
    if (index >= 0) out[index] = { type: "text", text: verdict.prompt };
    else out.unshift({ type: "text", text: verdict.prompt });
  }
  for (const c of [...context, ...verdict.context]) out.push({ type: "text", text: `Context from a hook:\n${c}` });
  return { content: out };
}

/**
 * After the agent's turn: while a `turn_end` handler or Stop hook asks for one more model call (and the cap
 * allows), its message is added and the agent runs again; the results are summed into one.
 */
export async function continueThroughHooks(
  hooks: Hooks,
  first: TurnResult,
  again: (message: Message) => Promise<TurnResult>,
  signal: AbortSignal,
): Promise<TurnResult> {
  let result = first;
  for (let continues = 0; continues < MAX_CONTINUES_PER_TURN; continues++) {
    if (signal.aborted || ["cancelled", "error", "tool_crash"].includes(result.stop_reason)) break;
    const more = await hooks.turnEnd({ stop_reason: result.stop_reason, usage: result.usage, continues }, signal);
    if (more === undefined || signal.aborted) break;
    const next = await again({ role: "user", content: [{ type: "text", text: more }] });
    result = { ...next, messages: [...result.messages, ...next.messages], usage: addUsage(result.usage, next.usage), crashes: [...result.crashes, ...next.crashes], steps: result.steps + next.steps };
  }
  return result;
}
