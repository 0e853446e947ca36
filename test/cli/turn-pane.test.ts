/** The pane under a turn's live output (turn-pane.ts) and the cell diff that keeps spinner redraws small (cell-diff.ts). */
import { beforeAll, describe, expect, it } from "vitest";
import { changedCells } from "../../src/ui/output/cell-diff.js";
import { OutputOrder } from "../../src/ui/output/output-order.js";
import { TurnPane } from "../../src/ui/output/turn-pane.js";
import { loadDisplayWidth } from "../../src/ui/output/width.js";

beforeAll(() => loadDisplayWidth());

describe("TurnPane", () => {
  const setup = (rows: string[]) => {
    const written: string[] = [];
    const terminal = { columns: 40, write: (text: string) => written.push(text) };
    return { written, terminal, pane: new TurnPane(terminal, () => rows) };
  };

  it("draws its rows below the cursor and puts the cursor back, making room first", () => {
    const { written, pane } = setup(["> typed", "status"]);
    pane.attach();
    expect(written).toEqual(["\x1b[?2026h\x1bD\x1bD\x1b[2A\x1b7\r\n> typed\x1b[K\r\nstatus\x1b[K\x1b8\x1b[?2026l"]);
    expect(pane.height).toBe(2);
  });

  it("leaves the pane alone for text on the cursor's row and for a redraw that comes back to it", () => {
    const { written, terminal, pane } = setup(["status"]);
    pane.attach();
    written.length = 0;
    pane.write(terminal, "word ");
    pane.write(terminal, "\x1b[?2026h\x1b[1Fline\x1b[K\n\x1b[?2026l");
    pane.write(terminal, "\x1b[2F\x1b[5Gmore\x1b[K\nnext \x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\\n");
    expect(written).toEqual(["word ", "\x1b[?2026h\x1b[1Fline\x1b[K\n\x1b[?2026l", "\x1b[2F\x1b[5Gmore\x1b[K\nnext \x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\\n"]);
    pane.detach();
    expect(written[3]).toBe("\x1b[J");
    pane.write(terminal, "after\n");
    expect(written[4]).toBe("after\n");
  });

  it("moves the pane down by the rows a write adds, with lines inserted above it (not drawn again)", () => {
    const { written, terminal, pane } = setup(["> typed", "status"]);
    pane.attach();
    written.length = 0;
    pane.write(terminal, "\x1b[?2026h\x1b[1Fline\x1b[K\nnew line\x1b[K\nand one more\x1b[K\n\x1b[?2026l");
    expect(written).toEqual(["\x1b[?2026h\x1bD\x1bD\x1bD\x1bD\x1b[4A\x1b7\x1b[B\x1b[2L\x1b8\x1b[1Fline\x1b[K\nnew line\x1b[K\nand one more\x1b[K\n\x1b[?2026l"]);
    pane.write(terminal, "\r\nplain\n");
    expect(written[1]).toBe("\x1bD\x1bD\x1bD\x1bD\x1b[4A\x1b7\x1b[B\x1b[2L\x1b8\r\nplain\n");
  });

  it("erases and draws the pane again around a write it cannot follow, in one frame", () => {
    const { written, terminal, pane } = setup(["status"]);
    pane.attach();
    const redrawn = (text: string) => `\x1b[?2026h\x1b[J${text}\x1bD\x1b[1A\x1b7\r\nstatus\x1b[K\x1b8\x1b[?2026l`;
    // An erase below; a line that reaches the last column; the cursor left above; text at a column not known may wrap.
    for (const text of ["\x1b[1Fline\x1b[K\n\x1b[J", `\r${"x".repeat(40)}\n`, "\r\n\n\x1b[2A", "\x1b7\r\n\x1b8", "tail of a line\n"]) {
      // (Before the last: a line that wrapped, so the column is not known.)
      if (text.startsWith("tail")) pane.write(terminal, `\r${"x".repeat(45)}`);
      written.length = 0;
      pane.write(terminal, text);
      expect(written).toEqual([redrawn(text)]);
    }
  });

  it("follows the cursor's column, so text that goes on where the last write left off moves the pane only by its rows", () => {
    const { written, terminal, pane } = setup(["status"]);
    pane.attach();
    pane.write(terminal, "a line left open");
    written.length = 0;
    pane.write(terminal, " goes on\nand a new one");
    expect(written).toEqual(["\x1bD\x1bD\x1b[2A\x1b7\x1b[B\x1b[1L\x1b8 goes on\nand a new one"]);
    // Past the last column but one the text may have wrapped: the pane is drawn again.
    written.length = 0;
    pane.write(terminal, ` ${"y".repeat(30)}\n`);
    expect(written[0]).toContain("\x1b[J");
  });

  it("keeps the row under a line left open empty, as it will be once the line's newline comes", () => {
    const { written, terminal, pane } = setup(["status"]);
    pane.attach();
    written.length = 0;
    // A first line left open: the pane goes down one row (to keep the row under the line empty).
    pane.write(terminal, "Hello", true);
    expect(written).toEqual(["\x1bD\x1bD\x1b[2A\x1b7\x1b[B\x1b[1L\x1b8Hello"]);
    // More on the open line: nothing else is written.
    pane.write(terminal, " world", true);
    expect(written[1]).toBe(" world");
    // A line added and left open: the pane goes down by it (counted from below the empty row).
    pane.write(terminal, "\nnext", true);
    expect(written[2]).toBe("\x1bD\x1bD\x1bD\x1b[3A\x1b7\x1b[2B\x1b[1L\x1b8\nnext");
    // The line ended: the row under it was kept for that, the pane stays.
    pane.write(terminal, "\n");
    expect(written[3]).toBe("\n");
    // Drawn again from there: right below the cursor.
    pane.refresh();
    expect(written[4]).toBe("\x1b[?2026h\x1b[J\x1bD\x1b[1A\x1b7\r\nstatus\x1b[K\x1b8\x1b[?2026l");
    pane.write(terminal, "open", true);
    pane.refresh();
    expect(written[6]).toBe("\x1b[?2026h\x1b[J\x1bD\x1bD\x1b[2A\x1b7\r\n\r\nstatus\x1b[K\x1b8\x1b[?2026l");
  });

  it("keeps another stream's writes (stderr) inside the same frame", () => {
    const { written, pane } = setup(["status"]);
    pane.attach();
    written.length = 0;
    pane.write({ write: (text: string) => written.push(`[stderr]${text}`) }, "[ext] log\n");
    expect(written).toEqual(["\x1b[?2026h\x1b[J", "[stderr][ext] log\n", "\x1bD\x1b[1A\x1b7\r\nstatus\x1b[K\x1b8\x1b[?2026l"]);
  });
});

describe("changedCells", () => {
  it("gives the cells that changed, with the styles in force there set again", () => {
    expect(changedCells("\x1b[2m⠋\x1b[22m tick 1s", "\x1b[2m⠙\x1b[22m tick 1s")).toEqual({ column: 0, text: "\x1b[2m⠙\x1b[0m" });
    expect(changedCells("… tick 1s", "… tick 2s")).toEqual({ column: 7, text: "2" });
    expect(changedCells("漢字 a", "漢字 b")).toEqual({ column: 5, text: "b" });
  });

  it("is undefined when nothing changed or the change moves what follows", () => {
    expect(changedCells("same", "same")).toBeUndefined();
    expect(changedCells("tick 9s", "tick 10s")).toBeUndefined();
  });
});

describe("OutputOrder's open line", () => {
  it("ends a line a frame left open before anything else is written, on the stream that left it", () => {
    const order = new OutputOrder();
    const out: string[] = [];
    const answer = { write: (text: string) => out.push(`[out]${text}`) };
    const aside = { write: (text: string) => out.push(`[err]${text}`) };
    order.direct(answer, "Hello", true);
    order.resumeLine();
    order.direct(answer, " world", true);
    order.direct(answer, "✓ block\n");
    order.direct(answer, "again", true);
    order.direct(aside, "[ext] log\n");
    expect(out).toEqual(["[out]Hello", "[out] world", "[out]\n✓ block\n", "[out]again", "[out]\n", "[err][ext] log\n"]);
  });
});
