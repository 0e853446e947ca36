/** Markdown as the terminal shows it: layout, plain without colour, code never wrapped, tables fitted; streamed frames. */
import { beforeAll, describe, expect, it } from "vitest";
import { addedText, completePart, MarkdownStream, shownSoFar } from "../../src/ui/markdown/markdown-stream.js";
import { renderMarkdown } from "../../src/ui/markdown/render-markdown.js";
import { outputOrder } from "../../src/ui/output/output-order.js";
import { stripControls } from "../../src/ui/safe-text.js";
import { LineSink } from "../../src/ui/output/sink.js";
import { displayWidth, loadDisplayWidth } from "../../src/ui/output/width.js";

beforeAll(() => loadDisplayWidth());

const plain = (source: string, width = 40) => renderMarkdown(source, { width, color: false });

describe("renderMarkdown", () => {
  it("lays out headings, emphasis, lists, quotes and links; without colour the marks that carry meaning stay", () => {
    const lines = plain("# Title\n\nSome **bold** and *em* and `code` text.\n\n- one\n- two\n  1. nested\n\n> quoted words\n\nSee [the docs](https://example.com/docs).");
    expect(lines).toEqual([
      "# Title",
      "",
      "Some bold and em and `code` text.",
      "",
      "• one",
      "• two",
      "  1. nested",
      "",
      "│ quoted words",
      "",
      "See the docs (https://example.com/docs).",
    ]);
  });

  it("styles with colour, each line self-contained", () => {
    const lines = renderMarkdown("Some **bold words that wrap onto the next line** here.", { width: 20, color: true });
    for (const line of lines) {
      const opens = (line.match(/\x1b\[1m/g) ?? []).length;
      expect((line.match(/\x1b\[22m/g) ?? []).length).toBe(opens);
      expect(displayWidth(line)).toBeLessThanOrEqual(20);
    }
    expect(lines.map(stripControls).join(" ")).toBe("Some bold words that wrap onto the next line here.");
  });

  it("never wraps a code line, and keeps its text exact", () => {
    const long = `npm install ${"some-package ".repeat(10).trim()} --save-exact`;
    const lines = plain(`Run:\n\n\`\`\`sh\n${long}\n\tindented\n\`\`\``, 30);
    expect(lines).toEqual(["Run:", "", "```sh", long, "        indented", "```"]);
  });

  it("fits a table wider than the screen into the width, cells wrapped inside their columns", () => {
    const row = "| a very long cell of text that goes on | short | another long cell with many words |";
    const lines = plain(`| one | two | three |\n|---|---|---|\n${row}`, 40);
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(40);
    expect(lines[0]).toMatch(/^one +│ two +│ three$/);
    expect(lines[1]).toMatch(/^─+┼─+┼─+$/);
    expect(lines.slice(2).join(" ").replace(/[│ ]+/g, " ")).toContain("a very");
  });
});

describe("completePart", () => {
  it("ends after the last blank line outside a code fence", () => {
    expect(completePart("one\n\ntwo")).toBe(5);
    expect(completePart("one\n\n```\na\n\nb")).toBe(5);
    expect(completePart("one\n\n```\na\n\nb\n```\n\nc")).toBe(19);
    expect(completePart("no blank line yet")).toBe(0);
  });
});

describe("MarkdownStream", () => {
  it("streams one 100 000-character line in bytes close to its own (appended, never drawn again whole)", async () => {
    const { md, chunks, frame } = stream(20, 10);
    const line = "x".repeat(100_000);
    for (let i = 0; i < line.length; i += 997) {
      md.push(line.slice(i, i + 997));
      frame();
    }
    md.end();
    await outputOrder.idle();
    const bytes = chunks.join("").length;
    expect(stripControls(chunks.join("")).replace(/\n/g, "")).toBe(line);
    expect(bytes).toBeLessThan(line.length * 1.5);
  });

  function stream(columns = 40, rows = 20) {
    const chunks: string[] = [];
    const sink = new LineSink({ write: (t: string) => chunks.push(t) }, false);
    const md = new MarkdownStream(sink, { columns: () => columns, rows: () => rows });
    return { md, chunks, frame: () => sink.writeNow(md.frameText()) };
  }

  it("appends what only grows the last line, and redraws from the first changed line otherwise", async () => {
    const { md, chunks, frame } = stream();
    md.push("Hello");
    frame();
    md.push(" world");
    frame();
    md.push("\n\n# Head");
    frame();
    md.push("\n\nTitle");
    frame();
    md.push("\n=====\n");
    frame();
    md.end();
    await outputOrder.idle();
    // The cursor stays at the end of the last line: what only grows it is written alone, with no move and no
    // synchronized-output brackets (text added after what is on screen cannot flicker).
    expect(chunks[0]).toBe("Hello\x1b[K");
    expect(chunks[1]).toBe(" world");
    // New lines go on rows nothing is on: not erased to their end.
    expect(chunks[2]).toBe("\n\n# Head");
    expect(chunks[3]).toBe("\n\nTitle");
    // The paragraph became a heading: drawn again over itself, bracketed (no erase below: it took no fewer rows).
    expect(chunks[4]).toBe("\x1b[?2026h\r# Title\x1b[K\x1b[?2026l");
    // The answer ended: its last line too.
    expect(chunks[5]).toBe("\n");
    expect(chunks).toHaveLength(6);
    expect(outputOrder.writes).toBeGreaterThan(0);
  });

  it("appends to a styled word that grows (the styles in force set again), not the whole line", () => {
    expect(addedText("\x1b[1mPart\x1b[22m \x1b[1m1\x1b[22m", "\x1b[1mPart\x1b[22m \x1b[1m12\x1b[22m")).toBe("\x1b[1m\x1b[22m\x1b[1m2\x1b[22m");
    expect(addedText("plain", "plain text")).toBe(" text");
    expect(addedText("\x1b[1mab\x1b[22m", "\x1b[3mab\x1b[23m")).toBeUndefined();
    expect(addedText("abc", "abd")).toBeUndefined();
  });

  it("leaves the screen as the whole answer laid out at once, however it streamed (lists across blank lines included)", async () => {
    const answer = [
      "# Title", "", "Some **bold** prose with `code` and a [link](https://example.com) that goes on.", "",
      "- a loose list", "", "- its second item", "", "  and its second paragraph", "",
      "1. first", "", "2. second", "", "    an indented code block", "", "    that goes on", "",
      "| name | value |", "|---|---|", "| row | 7 |", "", "> a quote", "", "```ts", "const a = 1;", "", "const b = 2;", "```", "",
      "The end.",
    ].join("\n");
    const { md, chunks, frame } = stream(100, 1000);
    const pieces = answer.match(/[\s\S]{1,4}/g)!;
    pieces.forEach((piece, i) => {
      md.push(piece);
      if (i % 7 === 6) frame();
    });
    md.end();
    await outputOrder.idle();
    expect(screenOf(chunks.join(""))).toEqual(renderMarkdown(answer, { width: 99, color: false }));
  });

  it("draws a code block still arriving without its closing fence, so each code line is only added", async () => {
    const { md, chunks, frame } = stream();
    md.push("```\n");
    frame();
    md.push("one\n");
    frame();
    md.push("two\n");
    frame();
    md.push("```\n");
    md.end();
    await outputOrder.idle();
    expect(chunks).toEqual(["```\x1b[K", "\none", "\ntwo", "\n```\n"]);
  });

  it("holds an unfinished line's open inline construct back, so its marks never flash raw", () => {
    expect(shownSoFar("Some **bo")).toBe("Some ");
    expect(shownSoFar("Some **bold** and `co")).toBe("Some **bold** and ");
    expect(shownSoFar("a [link](http://x")).toBe("a ");
    expect(shownSoFar("a [link](http://x) b")).toBe("a [link](http://x) b");
    expect(shownSoFar("* item *em")).toBe("* item ");
    expect(shownSoFar("* item")).toBe("* item");
    expect(shownSoFar("done\n`x` and `y")).toBe("done\n`x` and ");
  });

  it("holds an unfinished table row or code line until its newline, and shows it when the answer ends", async () => {
    expect(shownSoFar("| a | b |\n|---|---|\n| 1 ")).toBe("| a | b |\n|---|---|\n");
    expect(shownSoFar("```ts\nconst a = 1;\ncons")).toBe("```ts\nconst a = 1;\n");
    expect(shownSoFar("```ts\nx\n```\nSome te")).toBe("```ts\nx\n```\nSome te");
    expect(shownSoFar("Some te")).toBe("Some te");
    // A first row alone is a paragraph until the separator row comes: it waits for it.
    expect(shownSoFar("Text\n\n| a | b |\n")).toBe("Text\n\n");
    expect(shownSoFar("Text\n\n| a | b |\n|--")).toBe("Text\n\n");
    expect(shownSoFar("Text\n\n| a | b |\n|---|---|\n")).toBe("Text\n\n| a | b |\n|---|---|\n");
    expect(shownSoFar("| a | b\nmore")).toBe("| a | b\nmore");
    expect(shownSoFar("```\n| a |\n")).toBe("```\n| a |\n");
    const { md, chunks, frame } = stream();
    md.push("| name | value |\n|---|---|\n| row 1 | 7 |\n| row 1");
    frame();
    expect(stripControls(chunks.join(""))).not.toContain("row 10");
    expect(stripControls(chunks.join("")).match(/row 1/g)).toHaveLength(1);
    md.push("0 | 70 |");
    md.end();
    await outputOrder.idle();
    expect(stripControls(chunks.join(""))).toContain("row 10");
  });
});

/** The rows a terminal shows after `output` (a screen tall enough never to scroll; the moves Markdown frames use). */
function screenOf(output: string): string[] {
  const rows: string[] = [""];
  let row = 0;
  let column = 0;
  const put = (text: string) => {
    const line = (rows[row] ?? "").padEnd(column);
    rows[row] = line.slice(0, column) + text + line.slice(column + text.length);
    column += text.length;
  };
  for (const [, params, final, lf, cr, text] of output.matchAll(/\x1b\[([\d;?]*)([@-~])|(\n)|(\r)|([^\x1b\n\r]+)/g)) {
    const n = Number.parseInt(params || "1", 10) || 1;
    if (text !== undefined) put(text);
    else if (lf !== undefined) [row, column] = [row + 1, 0];
    else if (cr !== undefined) column = 0;
    else if (final === "F") [row, column] = [row - n, 0];
    else if (final === "G") column = n - 1;
    else if (final === "K") rows[row] = (rows[row] ?? "").slice(0, column);
    else if (final === "J") rows.splice(row + 1), (rows[row] = (rows[row] ?? "").slice(0, column));
    rows[row] ??= "";
  }
  while (rows.length > 0 && rows.at(-1) === "") rows.pop();
  return rows.map((line) => line.trimEnd());
}
