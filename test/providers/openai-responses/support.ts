/** Helpers for the Responses provider tests: fixtures, and feeding bytes through the real SSE decoder into an assembler. */
import { readFileSync } from "node:fs";
import type { Message } from "../../../src/model/message.js";
import { ResponsesAssembler } from "../../../src/providers/openai-responses/assembler.js";
import type { ProviderError } from "../../../src/providers/errors.js";
import { createSseDecoder } from "../../../src/providers/sse.js";
import type { EventVerdict } from "../../../src/providers/stream-driver.js";
import { recordingReceiver } from "../../support/recording-receiver.js";

export function fixture(name: string): Buffer {
  return readFileSync(new URL(`../../fixtures/openai-responses/${name}`, import.meta.url));
}

export type AssemblyOutcome = { message: Message; calls: string[]; unknown: string[] } | { error: ProviderError; calls: string[]; unknown: string[] } | { incomplete: true; calls: string[]; unknown: string[] };

/** Feeds `bytes` in pieces of `pieceSize` through the SSE decoder into a fresh assembler, as the driver does. */
export function assemble(bytes: Uint8Array, pieceSize = bytes.length): AssemblyOutcome {
  const receiver = recordingReceiver();
  const unknown: string[] = [];
  const assembler = new ResponsesAssembler(receiver, "the test server", (type) => unknown.push(type));
  let verdict: EventVerdict;
  const decoder = createSseDecoder((event) => (verdict ??= assembler.onEvent(event)));
  for (let i = 0; i < bytes.length && verdict === undefined; i += pieceSize) decoder.push(bytes.subarray(i, i + pieceSize));
  if (verdict === undefined) decoder.end();
  if (verdict === "done") return { message: assembler.finish(), calls: receiver.calls, unknown };
  if (verdict !== undefined) return { error: verdict, calls: receiver.calls, unknown };
  return { incomplete: true, calls: receiver.calls, unknown };
}

export function assembleMessage(bytes: Uint8Array, pieceSize?: number): Message {
  const outcome = assemble(bytes, pieceSize);
  if (!("message" in outcome)) throw new Error(`expected a message, got ${JSON.stringify(outcome)}`);
  return outcome.message;
}
