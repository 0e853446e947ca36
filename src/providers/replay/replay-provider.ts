/**
 * The replay provider: plays a scripted conversation (docs/replay-format.md) through the real agent loop,
 * one script step per model call, streamed through the Receiver in the same callback order as a live
 * provider, with deltas in small pieces so the terminal UI behaves as it does with a real model.
 */
import type { ContentBlock } from "../../model/blocks.js";
import type { Conversation } from "../../model/conversation.js";
import type { Message } from "../../model/message.js";
import { providerError } from "../errors.js";
import type { Provider, Receiver, StepResult, StreamOptions } from "../types.js";
import type { Pacing, ReplayScript } from "./script.js";
import { abortableSleep } from "../../util/abortable-sleep.js";

export class ReplayProvider implements Provider {
  readonly name = "replay";
  private next = 0;

  constructor(
    readonly script: ReplayScript,
    readonly model = "replay",
  ) {}

  /** Steps not yet played. */
  get remaining(): number {
    return this.script.steps.length - this.next;
  }

  async streamStep(_conversation: Conversation, receiver: Receiver, options: StreamOptions = {}): Promise<StepResult> {
    const step = this.script.steps[this.next];
    if (step === undefined) {
      const error = providerError(
        "config",
        `the replay script ${this.script.path} has run out: it scripts ${this.script.steps.length} model response(s) and the agent asked for another`,
      );
      receiver.onError?.(error);
      return { ok: false, error };
    }
    this.next++;
    if (step.kind === "error") {
      receiver.onError?.(step.error);
      return { ok: false, error: step.error };
    }
    const played = await play(step.message, step.pacing, receiver, options.signal);
    if (!played) {
      const error = providerError("aborted", "cancelled");
      receiver.onError?.(error);
      return { ok: false, error };
    }
    return { ok: true, message: copyMessage(step.message) };
  }
}

/** Streams one message; false if the signal aborted it part-way. */
async function play(message: Message, pacing: Pacing, receiver: Receiver, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return false;
  receiver.onMessageStart?.("assistant");
  for (let index = 0; index < message.content.length; index++) {
    const block = message.content[index]!;
    if (block.type === "tool_use") receiver.onBlockStart?.("tool_use", index, { tool_id: block.id, tool_name: block.name });
    else receiver.onBlockStart?.(block.type, index);
    for (const piece of pieces(streamedText(block), pacing.chunk)) {
      if (pacing.delay_ms > 0 && !(await abortableSleep(pacing.delay_ms, signal))) return false;
      if (signal?.aborted) return false;
      receiver.onContentDelta?.(index, piece);
    }
    receiver.onBlockComplete?.(index, { ...block });
  }
  receiver.onMessageComplete?.(copyMessage(message));
  return true;
}

function streamedText(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "thinking":
      return block.thinking;
    case "tool_use":
      return block.input;
    case "tool_result":
      return block.content;
    case "image":
      return ""; // a model does not stream images
  }
}

/** Splits text into pieces of `size` code points (never inside a surrogate pair). */
function* pieces(text: string, size: number): Generator<string> {
  let piece = "";
  let count = 0;
  for (const ch of text) {
    piece += ch;
    if (++count === size) {
      yield piece;
      piece = "";
      count = 0;
    }
  }
  if (piece !== "") yield piece;
}

/** Each play hands out its own copy, so the script stays intact whatever the caller does with the message. */
function copyMessage(message: Message): Message {
  const copy: Message = { ...message, content: message.content.map((b) => ({ ...b })) };
  if (message.usage) copy.usage = { ...message.usage };
  return copy;
}
