import { describe, expect, it } from "vitest";
import { createSseDecoder, type SseEvent } from "../../src/providers/sse.js";
import { crlfOffsets, splitAt, splitEveryByte, utf8InteriorOffsets } from "../support/replay-server.js";

function decode(pieces: Buffer[]): SseEvent[] {
  const events: SseEvent[] = [];
  const decoder = createSseDecoder((e) => events.push(e));
  for (const piece of pieces) decoder.push(piece);
  decoder.end();
  return events;
}

const whole = (text: string): Buffer[] => [Buffer.from(text, "utf8")];

/** Every way to cut `text` in two, plus every byte alone. */
function everySplit(text: string): Buffer[][] {
  const bytes = Buffer.from(text, "utf8");
  const ways: Buffer[][] = [splitEveryByte(bytes)];
  for (let i = 1; i < bytes.length; i++) ways.push(splitAt(bytes, [i]));
  return ways;
}

describe("SSE framing (SPEC §3 rule 1)", () => {
  it("dispatches data events in order with the optional space stripped", () => {
    expect(decode(whole("data: a\n\ndata:b\n\ndata:  c\n\n"))).toEqual([
      { event: undefined, data: "a" },
      { event: undefined, data: "b" },
      { event: undefined, data: " c" },
    ]);
  });

  it("accepts LF, CRLF and CR line endings, mixed", () => {
    expect(decode(whole("data: a\r\n\r\ndata: b\r\rdata: c\n\ndata: d\r\n\n")).map((e) => e.data)).toEqual(["a", "b", "c", "d"]);
  });

  it("joins several data lines with LF and keeps the event name", () => {
    expect(decode(whole("event: message_delta\ndata: {\"a\":\ndata: 1}\n\n"))).toEqual([{ event: "message_delta", data: '{"a":\n1}' }]);
  });

  it("ignores comments, id, retry and unknown fields; an event without data dispatches nothing", () => {
    const text = ": keep-alive\n\nid: 7\nretry: 100\nfoo: bar\n\nevent: ping\n\ndata: x\nid: 8\nweird\n\n";
    expect(decode(whole(text))).toEqual([{ event: undefined, data: "x" }]);
  });

  it("dispatches an empty data field as an empty payload", () => {
    expect(decode(whole("data:\n\n"))).toEqual([{ event: undefined, data: "" }]);
  });

  it("drops an unterminated event at EOF", () => {
    expect(decode(whole("data: a\n\ndata: b\n")).map((e) => e.data)).toEqual(["a"]);
    expect(decode(whole("data: a\n\ndata: [DONE]")).map((e) => e.data)).toEqual(["a"]);
  });

  it("strips a leading byte-order mark", () => {
    expect(decode(whole("\uFEFFdata: a\n\n")).map((e) => e.data)).toEqual(["a"]);
  });

  const sample =
    ': hi\r\nevent: x\r\ndata: {"text":"héllo — 日本 🎉"}\r\n\r\ndata: line1\rdata: line2\r\rdata: ü\n\ndata: [DONE]\r\n\r\n';
  const expected = decode(whole(sample));

  it("the sample decodes as expected in one piece", () => {
    expect(expected).toEqual([
      { event: "x", data: '{"text":"héllo — 日本 🎉"}' },
      { event: undefined, data: "line1\nline2" },
      { event: undefined, data: "ü" },
      { event: undefined, data: "[DONE]" },
    ]);
  });

  it("gives the same events at every split point and byte by byte", () => {
    for (const pieces of everySplit(sample)) expect(decode(pieces)).toEqual(expected);
  });

  it("gives the same events when cut inside every UTF-8 sequence and between every CR and LF at once", () => {
    const offsets = [...utf8InteriorOffsets(sample), ...crlfOffsets(sample)];
    expect(utf8InteriorOffsets(sample).length).toBeGreaterThan(5);
    expect(crlfOffsets(sample).length).toBe(6);
    expect(decode(splitAt(sample, offsets))).toEqual(expected);
  });

  it("a CR at the end of a read followed by LF in the next is one line ending", () => {
    // If CR and LF were two terminators, the second would end the event early and the next data line would be a new event.
    expect(decode([Buffer.from("data: a\r"), Buffer.from("\ndata: b\r\n\r\n")])).toEqual([{ event: undefined, data: "a\nb" }]);
  });
});
