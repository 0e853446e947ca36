/** Thinking on a live terminal (thinking-region.ts): its last lines redrawn in place, then one line once it ends. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { outputOrder } from "../../src/ui/output/output-order.js";
import { LineSink } from "../../src/ui/output/sink.js";
import { FRAME_MS, ThinkingRegion } from "../../src/ui/output/thinking-region.js";

let chunks: string[];
beforeEach(() => {
  chunks = [];
  vi.useFakeTimers();
});
afterEach(() => vi.useRealTimers());

const region = (color: boolean, rows = 6) => new ThinkingRegion(new LineSink({ write: (t: string) => chunks.push(t) }, color), { columns: () => 20, rows: () => rows });

async function frame(): Promise<void> {
  await vi.advanceTimersByTimeAsync(FRAME_MS);
  await outputOrder.idle();
}

describe("ThinkingRegion", () => {
  it("draws the words so far, then only what changed, and collapses to one line in place", async () => {
    const thinking = region(false);
    thinking.push("one two three ");
    await frame();
    expect(chunks).toEqual(["(thinking) one two\x1b[K\n(thinking) three\x1b[K\n"]);
    thinking.push("four ");
    await frame();
    // Only the line that grew is drawn again.
    expect(chunks[1]).toBe("\x1b[?2026h\x1b[1F(thinking) three four\x1b[K\n\x1b[J\x1b[?2026l");
    thinking.push("five ");
    await frame();
    // A new line is added below the ones on screen.
    expect(chunks[2]).toBe("(thinking) five\x1b[K\n");
    vi.advanceTimersByTime(2000);
    const ended = thinking.end();
    await outputOrder.idle();
    expect(ended).toEqual({ kind: "thinking", text: "one two three four five ", seconds: 2 });
    expect(chunks.at(-1)).toBe("\x1b[?2026h\x1b[3F▸ thought for 2s · ctrl-o to expand\x1b[K\n\x1b[J\x1b[?2026l");
  });

  it("shows at most half the rows, the last ones, dimmed with colour", async () => {
    const thinking = region(true, 4);
    thinking.push("a\nb\nc\nd\n");
    await frame();
    expect(chunks).toEqual(["\x1b[2mc\x1b[22m\x1b[K\n\x1b[2md\x1b[22m\x1b[K\n"]);
  });
});
