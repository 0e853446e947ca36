// StreamScrubber: keys replaced in bytes that come piece by piece (bash's saved output), wherever the pieces split.
import { describe, expect, it } from "vitest";
import { StreamScrubber } from "../../src/util/secrets.js";

/** `text` through a scrubber of `secrets` in pieces of `size` bytes. */
function scrubbed(secrets: string[], text: string, size: number): string {
  const scrubber = new StreamScrubber(secrets);
  const bytes = Buffer.from(text);
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(scrubber.push(bytes.subarray(at, at + size)));
  out.push(scrubber.end());
  return Buffer.concat(out).toString();
}

describe("StreamScrubber", () => {
  it("replaces a key wherever the pieces split it, and leaves everything else as it came", () => {
    const text = "é start sk-0123456789 mid sk-0123456789sk-0123456789 end sk-01234";
    for (const size of [1, 2, 3, 5, 8, 13, 64]) {
      expect(scrubbed(["sk-0123456789"], text, size), `pieces of ${size}`).toBe("é start [REDACTED] mid [REDACTED][REDACTED] end sk-01234");
    }
  });

  it("replaces the longer of two keys that begin alike, whole", () => {
    const text = "a abcdefgh-longer b abcdefgh c";
    for (const size of [1, 4, 9, 100]) {
      expect(scrubbed(["abcdefgh", "abcdefgh-longer"], text, size), `pieces of ${size}`).toBe("a [REDACTED] b [REDACTED] c");
    }
  });

  it("passes pieces through as they are when no key is long enough to scrub", () => {
    const scrubber = new StreamScrubber(["short", ""]);
    const piece = Buffer.from("short text");
    expect(scrubber.push(piece)).toBe(piece);
    expect(scrubber.end()).toHaveLength(0);
  });
});
