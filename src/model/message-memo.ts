/**
 * One remembered value per message (e.g. a provider's wire JSON of it), forgotten as soon as the message is edited.
 * Messages are plain data that code may change in place (a tool_result appended to a message, a block replaced), so
 * an entry keeps the exact field values it was computed from and counts only while every one of them is still the
 * same (`===`: the same string is found equal at once, so checking an unchanged message costs a few comparisons per
 * block). Entries are weak: a message dropped from every conversation frees its value.
 *
 * A session keeps one entry per message for its whole length, so an entry is one array of exactly its size (the
 * value, then the fields), nothing more: ≈ 100 bytes for a tool call or result beside the value itself.
 */
import type { Message } from "./message.js";

export class MessageMemo<T> {
  /** Per message: `[value, ...fields]`. */
  private readonly entries = new WeakMap<Message, unknown[]>();

  /** The value remembered for `message`, or undefined when there is none or the message changed since. */
  get(message: Message): T | undefined {
    const entry = this.entries.get(message);
    return entry && sameFields(message, entry) ? (entry[0] as T) : undefined;
  }

  /** Remembers `value` for `message` as it is now. */
  set(message: Message, value: T): void {
    scratch.length = 0;
    scratch.push(value);
    pushFields(message, scratch);
    // slice() allocates exactly the length; an array grown by push keeps spare room.
    this.entries.set(message, scratch.slice());
    scratch.length = 0;
  }
}

/**
 * `json` as one flat string. V8's JSON.stringify returns a rope of the pieces it wrote (≈ 90 bytes more than the
 * text for a short message); reading a character joins them, and the garbage collector then drops the rope. Wire
 * JSON kept for a whole session goes through this.
 */
export function flatJSON(json: string): string {
  json.charCodeAt(0);
  return json;
}

/** Reused by `set` and {@link sameFields}, so checking a message allocates nothing. */
const scratch: unknown[] = [];

/** Whether `message` still has the fields of `entry` (which holds them from its index 1). */
function sameFields(message: Message, entry: readonly unknown[]): boolean {
  scratch.length = 0;
  pushFields(message, scratch);
  let same = scratch.length === entry.length - 1;
  for (let i = 0; same && i < scratch.length; i++) same = scratch[i] === entry[i + 1];
  scratch.length = 0;
  return same;
}

/** Every field a message's wire form can depend on, flat, in a fixed order. */
function pushFields(message: Message, out: unknown[]): void {
  out.push(message.role, message.content, message.content.length);
  for (const block of message.content) {
    switch (block.type) {
      case "text":
        out.push(block, block.type, block.text);
        break;
      case "thinking":
        out.push(block, block.type, block.thinking, block.signature, block.redacted, block.origin);
        break;
      case "tool_use":
        out.push(block, block.type, block.id, block.name, block.input);
        break;
      case "tool_result":
        out.push(block, block.type, block.tool_use_id, block.content, block.is_error, block.images);
        for (const image of block.images ?? []) out.push(image, image.media_type, image.data);
        break;
      case "image":
        out.push(block, block.type, block.media_type, block.data);
        break;
    }
  }
}
