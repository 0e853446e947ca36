/** Helpers for the Gemini provider tests: fixtures, and feeding bytes through the real SSE decoder into an assembler. */
import { readFileSync } from "node:fs";
import type { Message } from "../../../src/model/message.js";
import type { ProviderError } from "../../../src/providers/errors.js";
import { GeminiAssembler } from "../../../src/providers/gemini/assembler.js";
import { createSseDecoder } from "../../../src/providers/sse.js";
import type { EventVerdict } from "../../../src/providers/stream-driver.js";
import { recordingReceiver } from "../../support/recording-receiver.js";

export function fixture(name: string): Buffer {
  return readFileSync(new URL(`../../fixtures/gemini/${name}`, import.meta.url));
}

export type AssemblyOutcome = { message: Message; calls: string[] } | { error: ProviderError; calls: string[] } | { incomplete: true; calls: string[] };

/** Feeds `bytes` in pieces through the SSE decoder into a fresh assembler, then ends the stream, as the driver does. */
export function assemble(bytes: Uint8Array, pieceSize = bytes.length): AssemblyOutcome {
  const receiver = recordingReceiver();
  const assembler = new GeminiAssembler(receiver, "the test server");
  let verdict: EventVerdict;
  const decoder = createSseDecoder((event) => (verdict ??= assembler.onEvent(event)));
  for (let i = 0; i < bytes.length && verdict === undefined; i += pieceSize) decoder.push(bytes.subarray(i, i + pieceSize));
  if (verdict === undefined) decoder.end();
  verdict ??= assembler.endOfStream();
  if (verdict === "done") {
    const result = assembler.finish();
    return "kind" in result ? { error: result, calls: receiver.calls } : { message: result, calls: receiver.calls };
  }
  if (verdict !== undefined) return { error: verdict, calls: receiver.calls };
  return { incomplete: true, calls: receiver.calls };
}

export function assembleMessage(bytes: Uint8Array, pieceSize?: number): Message {
  const outcome = assemble(bytes, pieceSize);
  if (!("message" in outcome)) throw new Error(`expected a message, got ${JSON.stringify(outcome)}`);
  return outcome.message;
}
