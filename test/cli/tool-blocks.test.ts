/** Live tool blocks: coalesced redraws in place, bracketed by synchronized-output escapes; or once at the end. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { outputOrder } from "../../src/ui/output/output-order.js";
import { LineSink } from "../../src/ui/output/sink.js";
import { ToolBlocks } from "../../src/ui/output/tool-blocks.js";
import { screenRows } from "../../src/ui/output/width.js";
import { SPIN_MS } from "../../src/ui/output/spinner.js";
import type { ToolCall, ToolSet } from "../../src/tools/types.js";

const call: ToolCall = { id: "t1", name: "tick", input: '{"n":1}' };
let chunks: string[];
let renders: unknown[];
const tools: ToolSet = {
  definitions: () => [],
  execute: () => Promise.reject(new Error("a block must never run the tool")),
  render: async (_name, state) => {
    renders.push(state);
    return `LIVE ${(state as { i: number }).i}`;
  },
};

beforeEach(() => {
  chunks = [];
  renders = [];
  vi.useFakeTimers();
});
afterEach(() => vi.useRealTimers());

function blocks(redraw: boolean): { blocks: ToolBlocks; sink: LineSink } {
  const sink = new LineSink({ write: (t: string) => chunks.push(t) }, false);
  return { blocks: new ToolBlocks(sink, { tools, redraw, columns: 40, rows: 20 }), sink };
}

async function settle(): Promise<void> {
  await vi.runAllTimersAsync();
  await outputOrder.idle();
}

/**
 * What the terminal shows after `text`: text (one cell a character), newlines and the cursor (`ESC[nF`, `ESC[nE`,
 * `ESC[nG`) and clearing (`ESC[K`, `ESC[J`) escapes applied, styles ignored.
 */
function screenOf(text: string): string[] {
  const rows: string[][] = [];
  let row = 0;
  let column = 0;
  for (const token of text.replace(/\x1b\[\?2026[hl]|\x1b\[[0-9;]*m/g, "").split(/(\x1b\[\d*[FEGKJ]|\n|\r)/)) {
    const csi = /^\x1b\[(\d*)([FEGKJ])$/.exec(token);
    const n = Number(csi?.[1] || 1);
    const line = (rows[row] ??= []);
    if (token === "\n") [row, column] = [row + 1, 0];
    else if (token === "\r") column = 0;
    else if (csi?.[2] === "F") [row, column] = [row - n, 0];
    else if (csi?.[2] === "E") [row, column] = [row + n, 0];
    else if (csi?.[2] === "G") column = n - 1;
    else if (csi?.[2] === "K") line.length = Math.min(line.length, column);
    else if (csi?.[2] === "J") {
      line.length = Math.min(line.length, column);
      rows.length = row + 1;
    } else for (const c of token) line[column++] = c;
  }
  return rows.map((r) => Array.from(r, (c) => c ?? " ").join("")).filter((r) => r !== "");
}

const SYNC = /^\x1b\[\?2026h[\s\S]*\x1b\[\?2026l$/;

describe("ToolBlocks (redraw)", () => {
  it("coalesces a burst of updates into one render and one redraw, then redraws in place", async () => {
    const { blocks: b } = blocks(true);
    b.start(call);
    b.update(call, { kind: "title", text: "ticking" });
    for (let i = 0; i < 100; i++) b.update(call, { kind: "show", state: { i } });
    await settle();
    expect(renders).toEqual([{ i: 99 }]);
    expect(chunks).toEqual(["\x1b[?2026h… tick ticking\n  LIVE 99\n\x1b[?2026l"]);

    b.update(call, { kind: "show", state: { i: 100 } });
    b.update(call, { kind: "show", state: { i: 101 } });
    await settle();
    expect(renders).toEqual([{ i: 99 }, { i: 101 }]);
    // Draws again over the line that changed only (cursor up 1; the line clears the rest of its row, then what is below).
    expect(chunks[1]).toBe("\x1b[?2026h\x1b[1F  LIVE 101\x1b[K\n\x1b[J\x1b[?2026l");

    b.end(call, { status: "result", content: "done", is_error: false, summary: "ticked" }, { type: "tool_result", tool_use_id: "t1", content: "done" });
    await settle();
    expect(chunks).toHaveLength(3);
    // The mark is the only cell that changed: only it is written (cursor up 2, to column 1, then down 2 again).
    expect(chunks[2]).toBe("\x1b[?2026h\x1b[2F\x1b[1G✓\x1b[2E\x1b[?2026l");
    expect(screenOf(chunks.join(""))).toEqual(["✓ tick ticking", "  LIVE 101"]);
    for (const chunk of chunks) expect(chunk).toMatch(SYNC);
  });

  it("keeps the header live while a render is slow, then shows the rendered body", async () => {
    let release!: () => void;
    const slow: ToolSet = { ...tools, render: (_name, state) => new Promise((resolve) => (release = () => resolve(`LIVE ${(state as { i: number }).i}`))) };
    const sink = new LineSink({ write: (t: string) => chunks.push(t) }, false);
    const b = new ToolBlocks(sink, { tools: slow, redraw: true, columns: 40, rows: 20 });
    b.start(call);
    b.update(call, { kind: "show", state: { i: 1 } });
    await vi.advanceTimersByTimeAsync(300);
    expect(chunks.join("")).toContain('… tick {"n":1}\n  {"i":1}\n');
    b.update(call, { kind: "progress", fraction: 0.5 });
    await vi.advanceTimersByTimeAsync(300);
    expect(chunks.at(-1)).toBe("\x1b[?2026h\x1b[2F… tick {\"n\":1} 50%\x1b[K\n\x1b[J\x1b[?2026l".replace("\x1b[J", '  {"i":1}\x1b[K\n\x1b[J'));
    release();
    await settle();
    expect(chunks.at(-1)).toBe("\x1b[?2026h\x1b[1F  LIVE 1\x1b[K\n\x1b[J\x1b[?2026l");
  });

  it("draws an ended block's final body even when the call ends while a slower render of its last state runs", async () => {
    const pending: Array<() => void> = [];
    const slow: ToolSet = { ...tools, render: (_name, state) => new Promise((resolve) => pending.push(() => resolve(`LIVE ${(state as { i: number }).i}`))) };
    const sink = new LineSink({ write: (t: string) => chunks.push(t) }, false);
    const b = new ToolBlocks(sink, { tools: slow, redraw: true, columns: 40, rows: 20 });
    b.start(call);
    b.update(call, { kind: "show", state: { i: 1 } });
    await vi.advanceTimersByTimeAsync(60);
    pending.shift()!();
    await vi.advanceTimersByTimeAsync(300);
    b.update(call, { kind: "show", state: { i: 2 } });
    await vi.advanceTimersByTimeAsync(60); // the render of state 2 has started
    b.end(call, { status: "result", content: "done", is_error: false }, { type: "tool_result", tool_use_id: "t1", content: "done" });
    await vi.advanceTimersByTimeAsync(300); // the running drawing's grace is over while state 2 still renders
    while (pending.length > 0) {
      pending.shift()!();
      await vi.advanceTimersByTimeAsync(100);
    }
    await settle();
    expect(screenOf(chunks.join(""))).toEqual(['✓ tick {"n":1}', "  LIVE 2"]);
  });

  it("does not erase what was written below the block: it draws the running block again under it", async () => {
    const { blocks: b, sink } = blocks(true);
    b.start(call);
    b.update(call, { kind: "show", state: { i: 1 } });
    await settle();
    sink.write("something else\n");
    b.update(call, { kind: "show", state: { i: 2 } });
    await settle();
    expect(chunks.slice(1)).toEqual(["something else\n", "\x1b[?2026h… tick {\"n\":1}\n  LIVE 2\n\x1b[?2026l"]);
  });

  it("turns a running block's spinner (with colour), writing only the cell of the mark each time", async () => {
    const sink = new LineSink({ write: (t: string) => chunks.push(t) }, true);
    const b = new ToolBlocks(sink, { tools, redraw: true, spinner: true, columns: 40, rows: 20 });
    b.start(call);
    b.update(call, { kind: "show", state: { i: 1 } });
    await vi.advanceTimersByTimeAsync(60);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toContain("\x1b[2m⠋\x1b[22m tick");
    await vi.advanceTimersByTimeAsync(SPIN_MS);
    await vi.advanceTimersByTimeAsync(SPIN_MS);
    // Each turn: up to the header's row, to its first column, the next mark (dimmed), back below the block.
    expect(chunks.slice(1, 3)).toEqual(["\x1b[?2026h\x1b[2F\x1b[1G\x1b[2m⠙\x1b[0m\x1b[2E\x1b[?2026l", "\x1b[?2026h\x1b[2F\x1b[1G\x1b[2m⠹\x1b[0m\x1b[2E\x1b[?2026l"]);
    b.end(call, { status: "result", content: "done", is_error: false }, { type: "tool_result", tool_use_id: "t1", content: "done" });
    await settle();
    const frames = chunks.length;
    await vi.advanceTimersByTimeAsync(5 * SPIN_MS);
    expect(chunks).toHaveLength(frames); // an ended block no longer turns
    expect(screenOf(chunks.join(""))).toEqual(['✓ tick {"n":1}', "  LIVE 1"]);
  });

  it("keeps a still mark without the spinner option (no colour), redrawn only as its elapsed second ticks", async () => {
    const sink = new LineSink({ write: (t: string) => chunks.push(t) }, false);
    const b = new ToolBlocks(sink, { tools, redraw: true, elapsed: true, columns: 40, rows: 20 });
    b.start(call);
    await vi.advanceTimersByTimeAsync(900);
    expect(chunks).toEqual(['\x1b[?2026h… tick {"n":1}\n\x1b[?2026l']);
    await vi.advanceTimersByTimeAsync(1200);
    expect(screenOf(chunks.join(""))).toEqual(['… tick {"n":1} 2s']);
    expect(chunks).toHaveLength(3);
  });

  it("shows the state as short JSON while running when the tool cannot render", async () => {
    const sink = new LineSink({ write: (t: string) => chunks.push(t) }, false);
    const b = new ToolBlocks(sink, { redraw: true, columns: 40, rows: 20 });
    b.start(call);
    b.update(call, { kind: "show", state: { i: 7 } });
    await settle();
    expect(chunks).toEqual(['\x1b[?2026h… tick {"n":1}\n  {"i":7}\n\x1b[?2026l']);
  });
});

describe("ToolBlocks (once)", () => {
  it("writes nothing until the call ends, then the block once, keeping its place before later output", async () => {
    const { blocks: b, sink } = blocks(false);
    b.start(call);
    b.update(call, { kind: "show", state: { i: 3 } });
    await settle();
    expect(chunks).toEqual([]);
    b.end(call, { status: "result", content: "bad", is_error: true }, { type: "tool_result", tool_use_id: "t1", content: "bad", is_error: true });
    sink.write("after\n"); // written while the body renders: it waits
    await settle();
    expect(chunks).toEqual(['✗ tick {"n":1}\n  LIVE 3\n  bad\n', "after\n"]);
  });

  it("prints parallel calls in the order they started, whichever ends first", async () => {
    const { blocks: b } = blocks(false);
    const first: ToolCall = { id: "a", name: "first", input: "{}" };
    const second: ToolCall = { id: "b", name: "second", input: "{}" };
    b.start(first);
    b.start(second);
    b.end(second, { status: "result", content: "two", is_error: false }, { type: "tool_result", tool_use_id: "b", content: "two" });
    await settle();
    expect(chunks).toEqual([]);
    b.end(first, { status: "result", content: "one", is_error: false }, { type: "tool_result", tool_use_id: "a", content: "one" });
    await settle();
    expect(chunks).toEqual(["✓ first {}\n  one\n", "✓ second {}\n  two\n"]);
  });
});

describe("screenRows", () => {
  it("counts one row per line that fits, and the rows a narrowed terminal re-wraps a line into", () => {
    expect(screenRows([10, 0, 80], 80)).toBe(3);
    expect(screenRows([79, 79], 50)).toBe(4);
    expect(screenRows([100], 40)).toBe(3);
  });
});
