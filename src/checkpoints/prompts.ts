/** The user prompts of a conversation (not its tool-result messages), which checkpoints and rewind count from 1. */
import type { Message } from "../model/message.js";

/** A user message that the user wrote (it holds something besides tool results). */
export function isPrompt(message: Message): boolean {
  return message.role === "user" && message.content.some((b) => b.type !== "tool_result");
}

/** The number (from 1) of `prompt` among `messages`' prompts; without it, of the last prompt. */
export function promptNumber(messages: readonly Message[], prompt?: Message): number {
  let n = 0;
  for (const message of messages) {
    if (isPrompt(message)) n++;
    if (message === prompt) return n;
  }
  return n;
}

/** The index in `messages` of prompt number `n` (from 1), or -1. */
export function promptIndex(messages: readonly Message[], n: number): number {
  let seen = 0;
  for (let i = 0; i < messages.length; i++) {
    if (isPrompt(messages[i]!) && ++seen === n) return i;
  }
  return -1;
}
