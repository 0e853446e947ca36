/**
 * The request that asks the model for a summary (docs/compaction.md shows the prompt): the messages to be replaced,
 * written out as a plain transcript inside one user message (so no tool pairing rule of any provider applies and no
 * tool is offered), long tool outputs and inputs cut, the oldest parts left out if the transcript would not fit.
 */
import type { ContentBlock } from "../model/blocks.js";
import { Conversation } from "../model/conversation.js";
import type { Message } from "../model/message.js";
import { CHARS_PER_TOKEN } from "./estimate.js";

/** What the model is asked to do (the system prompt of the summary request). */
export const SUMMARY_SYSTEM_PROMPT =
  "You summarise a conversation between a user and an AI coding agent, so that the agent can continue the work " +
  "with only your summary and the most recent messages. Write for the agent, not for the user.";

/** The instructions after the transcript. */
export const SUMMARY_INSTRUCTIONS = `Write the summary of the conversation above now, in Markdown, under these headings:
## Goal — what the user wants, in their words where they matter, and any constraints or preferences they stated.
## Done — what was decided and done so far: files read, created or changed (with paths), commands run and their outcomes.
## Learned — facts about the code, the environment and the problem that the work depends on; errors met and how they were resolved.
## Open — what is unfinished, the exact next steps, and any question still waiting for the user.
Keep every name, path, number and error message the work needs; leave out pleasantries and anything already superseded. Be concise: at most about 1500 words.`;

/** Tool outputs and inputs longer than this are cut in the transcript (their beginning and end kept). */
const BLOCK_CHARS = 2000;

/**
 * The conversation that asks for the summary of `messages`. `budgetTokens` bounds the transcript: when it is longer,
 * the oldest messages are left out (an earlier summary, the first message, is always kept).
 */
export function summaryRequest(messages: readonly Message[], budgetTokens: number, instructions?: string): Conversation {
  const parts = messages.filter((m) => m.role !== "system").map(transcriptOf);
  const budget = Math.max(1000, budgetTokens * CHARS_PER_TOKEN);
  let total = parts.reduce((n, p) => n + p.length, 0);
  let omitted = 0;
  // Leave out the oldest messages after the first until the transcript fits.
  while (total > budget && parts.length > 2) {
    total -= parts.splice(1, 1)[0]!.length;
    omitted++;
  }
  if (omitted > 0) parts.splice(1, 0, `[${omitted} older messages left out here so the transcript fits]`);
  const extra = instructions?.trim() ? `\n\nAlso, as the user asks: ${instructions.trim()}` : "";
  const conversation = new Conversation();
  conversation.addSystemMessage(SUMMARY_SYSTEM_PROMPT);
  conversation.addUserMessage(`<conversation>\n${parts.join("\n\n")}\n</conversation>\n\n${SUMMARY_INSTRUCTIONS}${extra}`);
  return conversation;
}

function transcriptOf(message: Message): string {
  const lines = message.content.map(blockText).filter((t) => t !== "");
  return `${message.role === "assistant" ? "Agent" : "User"}:\n${lines.join("\n")}`;
}

function blockText(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "thinking":
      return ""; // the reasoning behind what was said and done; the summary keeps the outcome
    case "tool_use":
      return `[called tool ${block.name} (${block.id}) with ${cut(block.input)}]`;
    case "tool_result":
      return `[result of ${block.tool_use_id}${block.is_error ? " (error)" : ""}: ${cut(block.content)}]`;
    case "image":
      return `[an image (${block.media_type})]`;
  }
}

function cut(text: string): string {
  if (text.length <= BLOCK_CHARS) return text;
  const half = BLOCK_CHARS / 2;
  return `${text.slice(0, half)} […${text.length - BLOCK_CHARS} characters cut…] ${text.slice(-half)}`;
}
