/**
 * What a compaction does to the messages sent to the model (docs/compaction.md), as plain data, so the live
 * conversation and a session read back from its file apply exactly the same change:
 * 1. each tool_result whose `tool_use_id` is in `pruned` keeps its block (the call stays answered, SPEC §5) but its
 *    content becomes a fixed note saying how long it was, and its images go;
 * 2. the first `replaces` messages give way to one user message holding `summary` (system messages among them stay,
 *    before it).
 */
import type { Message } from "./message.js";

export interface CompactionChange {
  /** The model-written summary of the replaced messages; absent when only tool outputs were pruned. */
  summary?: string;
  /** How many leading messages the summary replaces (0: none). */
  replaces: number;
  /** tool_use ids whose results are pruned. */
  pruned?: readonly string[];
}

/** The text a pruned tool output becomes. */
export function prunedOutputText(characters: number): string {
  return `[awl: this tool output (${characters} characters) was pruned to save context; run the tool again if it is needed]`;
}

/** The text of the summary message. */
export function summaryMessageText(summary: string): string {
  return `[awl: the conversation before this point was compacted; this is the model's summary of it]\n\n${summary}`;
}

/** The messages with the change applied; the messages given are left as they are (changed ones are copies). */
export function applyCompaction(messages: readonly Message[], change: CompactionChange): Message[] {
  const pruned = new Set(change.pruned ?? []);
  const out = pruned.size === 0 ? [...messages] : messages.map((message) => pruneMessage(message, pruned));
  if (change.replaces === 0 || change.summary === undefined) return out;
  const replaced = out.slice(0, change.replaces);
  const summary: Message = { role: "user", content: [{ type: "text", text: summaryMessageText(change.summary) }] };
  return [...replaced.filter((m) => m.role === "system"), summary, ...out.slice(change.replaces)];
}

function pruneMessage(message: Message, pruned: ReadonlySet<string>): Message {
  if (message.role !== "user" || !message.content.some((b) => b.type === "tool_result" && pruned.has(b.tool_use_id))) return message;
  return {
    ...message,
    content: message.content.map((block) =>
      block.type === "tool_result" && pruned.has(block.tool_use_id)
        ? { type: "tool_result", tool_use_id: block.tool_use_id, content: prunedOutputText(block.content.length), ...(block.is_error ? { is_error: true } : {}) }
        : block,
    ),
  };
}
