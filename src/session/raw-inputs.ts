/**
 * The message JSON form writes a tool_use input as a JSON value, which reads back in compact form; the text
 * the provider sent may differ (spaces, key escapes, empty input). So that a resumed conversation is sent
 * byte for byte as before (prompt caches, SPEC §7), a message entry keeps those few raw inputs beside the
 * message, in `raw_inputs` (tool_use id → raw text), only where they differ.
 */
import type { MessageJSON } from "../model/json.js";
import type { Message } from "../model/message.js";

/** Raw inputs of `message` that its JSON form `json` would not give back, or undefined when there are none. */
export function rawInputsOf(message: Message, json: MessageJSON): Record<string, string> | undefined {
  let raw: Record<string, string> | undefined;
  const blocks = json.content as { type: string; input?: unknown }[];
  message.content.forEach((block, i) => {
    if (block.type !== "tool_use") return;
    const written = blocks[i]!.input;
    const readBack = typeof written === "string" ? written : JSON.stringify(written);
    if (readBack !== block.input) (raw ??= {})[block.id] = block.input;
  });
  return raw;
}

/** Restores raw inputs into a message just read. Entries that are not strings are ignored. */
export function applyRawInputs(message: Message, raw: unknown): void {
  if (typeof raw !== "object" || raw === null) return;
  const inputs = raw as Record<string, unknown>;
  for (const block of message.content) {
    if (block.type === "tool_use" && typeof inputs[block.id] === "string") block.input = inputs[block.id] as string;
  }
}
