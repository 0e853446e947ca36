/** awl's AWS event-stream decoder on frames the AWS SDK's codec encodes, split at every byte; corrupt frames stop it. */
import { describe, expect, it } from "vitest";
import { createEventStreamDecoder } from "../../../src/providers/bedrock/event-stream.js";
import type { SseEvent } from "../../../src/providers/sse.js";
import { frames } from "./support.js";

function decode(bytes: Buffer, piece: number): SseEvent[] {
  const events: SseEvent[] = [];
  const decoder = createEventStreamDecoder((e) => events.push(e));
  for (let i = 0; i < bytes.length; i += piece) decoder.push(bytes.subarray(i, i + piece));
  decoder.end();
  return events;
}

const STREAM = frames([
  ["messageStart", { role: "assistant", p: "abcdefgh" }],
  ["contentBlockDelta", { contentBlockIndex: 0, delta: { text: "Grüße 👋" }, p: "ab" }],
  ["!throttlingException", { message: "Too many tokens, please wait before trying again." }],
]);

describe("the AWS event stream", () => {
  it.each([1, 3, 7, STREAM.length])("frames from the SDK's codec, in pieces of %i bytes: each an event with its type and JSON payload", (piece) => {
    expect(decode(STREAM, piece)).toEqual([
      { event: "messageStart", data: '{"role":"assistant","p":"abcdefgh"}' },
      { event: "contentBlockDelta", data: '{"contentBlockIndex":0,"delta":{"text":"Grüße 👋"},"p":"ab"}' },
      { event: "exception:throttlingException", data: '{"message":"Too many tokens, please wait before trying again."}' },
    ]);
  });

  it("a flipped payload byte fails the message CRC: one :corrupt event, nothing after it", () => {
    const bad = Buffer.from(STREAM);
    bad[40] ^= 0xff;
    const events = decode(bad, 5);
    expect(events).toEqual([{ event: ":corrupt", data: "a frame's message CRC does not match" }]);
  });

  it("a broken prelude is corrupt at once; a frame cut at the end is not an event", () => {
    const bad = Buffer.from(STREAM);
    bad[2] ^= 0x01;
    expect(decode(bad, 4)).toEqual([{ event: ":corrupt", data: "a frame's prelude CRC does not match" }]);
    expect(decode(STREAM.subarray(0, STREAM.length - 3), 4).map((e) => e.event)).toEqual(["messageStart", "contentBlockDelta"]);
  });
});
