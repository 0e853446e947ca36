/**
 * A turn that ends before the model answered the prompt at all (cancelled, failed, or awl was killed) leaves
 * the user's prompt as the conversation's last message. The user's words are kept, and the next prompt carries
 * a short note first, saying what happened, so the model reads an honest history; providers send consecutive
 * user messages as one (Anthropic's API joins them; the OpenAI-compatible request joins them itself), so the
 * next request keeps user and assistant turns alternating. The note is saved with the prompt, so a resumed
 * session sends exactly the same. (A turn stopped among tool calls ends with their results, which say what
 * happened to each call: no note is needed there.)
 */
import type { TurnResult } from "../agent/agent.js";

const PREFIX = "[awl: ";

/** The note for a conversation whose last turn got no answer; `ended` is how it ended, when this run saw it. */
export function unansweredNote(ended: Pick<TurnResult, "stop_reason" | "error"> | undefined): string {
  switch (ended?.stop_reason) {
    case "cancelled":
      return `${PREFIX}the request above got no answer: the user cancelled it]`;
    case "error":
      // The kind and status say enough; the message may name local addresses.
      return `${PREFIX}the request above got no answer: it failed${ended.error ? ` (${ended.error.kind}${ended.error.status ? `, HTTP ${ended.error.status}` : ""})` : ""}]`;
    default:
      return `${PREFIX}the request above got no answer (awl stopped before it came)]`;
  }
}

/** Whether a text block of a user message is such a note (shown apart from the user's words). */
export function isUnansweredNote(text: string): boolean {
  return text.startsWith(PREFIX) && text.endsWith("]");
}
