/** Shared helpers for the Anthropic provider tests: fixtures, a recording Receiver, and byte-level feeding. */
import { readFileSync } from "node:fs";
import { createParser } from "eventsource-parser";
import { AnthropicAssembler, type AssemblySignal } from "../../../src/providers/anthropic/assembler.js";
import type { Message } from "../../../src/model/message.js";
import type { ProviderError } from "../../../src/providers/errors.js";
import type { Receiver } from "../../../src/providers/types.js";

export function fixture(name: string): Buffer {
  return readFileSync(new URL(`../../fixtures/anthropic/${name}`, import.meta.url));
}

/** Records every Receiver call as a compact string, e.g. `start(tool_use,2,toolu_1,read)`. */
export function recordingReceiver(): Receiver & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    onMessageStart: (role) => calls.push(`message(${role})`),
    onBlockStart: (type, index, meta) => calls.push(`start(${[type, index, meta?.tool_id, meta?.tool_name].filter((x) => x !== undefined).join(",")})`),
    onContentDelta: (index, delta) => calls.push(`delta(${index},${delta})`),
    onBlockComplete: (index, block) => calls.push(`complete(${index},${block.type})`),
    onMessageComplete: () => calls.push("message_complete"),
    onError: (error) => calls.push(`error(${error.kind})`),
  };
}

export type AssemblyOutcome = { message: Message; calls: string[] } | { error: ProviderError; calls: string[] } | { incomplete: true; calls: string[] };

/** Feeds `bytes` in pieces of `pieceSize` through an SSE decoder into a fresh assembler, as the driver would. */
export function assemble(bytes: Uint8Array, pieceSize = bytes.length): AssemblyOutcome {
  const receiver = recordingReceiver();
  const assembler = new AnthropicAssembler(receiver);
  let signal: AssemblySignal;
  const parser = createParser({ onEvent: (e) => (signal ??= assembler.onEvent({ event: e.event, data: e.data })) });
  const text = new TextDecoder();
  for (let i = 0; i < bytes.length && signal === undefined; i += pieceSize)
    parser.feed(text.decode(bytes.subarray(i, i + pieceSize), { stream: true }));
  if (signal === "done") return { message: assembler.finish(), calls: receiver.calls };
  if (signal !== undefined) return { error: signal, calls: receiver.calls };
  return { incomplete: true, calls: receiver.calls };
}

export function assembleMessage(bytes: Uint8Array, pieceSize?: number): Message {
  const outcome = assemble(bytes, pieceSize);
  if (!("message" in outcome)) throw new Error(`expected a message, got ${JSON.stringify(outcome)}`);
  return outcome.message;
}

/** Builds an SSE body from `[event, payload]` pairs. */
export function sse(...events: Array<[string, unknown]>): Buffer {
  return Buffer.from(events.map(([event, data]) => `event: ${event}\ndata: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`).join(""));
}
