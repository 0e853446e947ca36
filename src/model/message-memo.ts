/**
 * One remembered value per message (e.g. a provider's wire JSON of it), forgotten as soon as the message is edited.
 * Messages are plain data that code may change in place (a tool_result appended to a message, a block replaced), so
 * an entry keeps the exact field values it was computed from and counts only while every one of them is still the
 * same (`===`: the same string is found equal at once, so checking an unchanged message costs a few comparisons per
 * block). Entries are weak: a message dropped from every conversation frees its value.
 */
import type { Message } from "./message.js";

interface Entry<T> {
  fields: unknown[];
  value: T;
}

export class MessageMemo<T> {
  private readonly entries = new WeakMap<Message, Entry<T>>();

  /** The value remembered for `message`, or undefined when there is none or the message changed since. */
  get(message: Message): T | undefined {
    const entry = this.entries.get(message);
    return entry && sameFields(message, entry.fields) ? entry.value : undefined;
  }

  /** Remembers `value` for `message` as it is now. */
  set(message: Message, value: T): void {
    this.entries.set(message, { fields: fieldsOf(message), value });
  }
}

/** Every field a message's wire form can depend on, flat, in a fixed order. */
function fieldsOf(message: Message): unknown[] {
  const fields: unknown[] = [];
  pushFields(message, fields);
  return fields;
}

/** Reused by {@link sameFields}, so checking a message allocates nothing. */
const scratch: unknown[] = [];

function sameFields(message: Message, fields: readonly unknown[]): boolean {
  scratch.length = 0;
  pushFields(message, scratch);
  let same = scratch.length === fields.length;
  for (let i = 0; same && i < fields.length; i++) same = scratch[i] === fields[i];
  scratch.length = 0;
  return same;
}

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
