/** The model's text on a terminal: made safe, wrapped at words by display width, as it streams. */
import { beforeAll, describe, expect, it } from "vitest";
import { FlowText } from "../../src/ui/output/flow-text.js";
import { SafeStream, stripControls } from "../../src/ui/safe-text.js";
import { timeAgo } from "../../src/ui/output/time-text.js";
import { displayWidth, fitWidth, loadDisplayWidth } from "../../src/ui/output/width.js";

beforeAll(() => loadDisplayWidth());

/** Streams `text` through a FlowText in pieces of `size` characters. */
function flow(text: string, width: number, size: number, prefix = ""): string {
  const f = new FlowText(() => width, prefix);
  const chars = Array.from(text);
  let out = "";
  for (let i = 0; i < chars.length; i += size) out += f.push(chars.slice(i, i + size).join(""));
  return out + f.end();
}

describe("stripControls / SafeStream", () => {
  it("drops escape sequences and control characters, keeping newlines and tabs", () => {
    expect(stripControls("a\x1b[2Jb\x1b]0;title\x07c\x1b]8;;http://x\x1b\\d\re\x00f\x9b31mg\x1b7h\ti\n")).toBe("abcde" + "f31mgh\ti\n");
  });

  it("removes a sequence split across pieces whole", () => {
    const s = new SafeStream();
    expect(s.push("red \x1b[3")).toBe("red ");
    expect(s.push("1mtext\x1b]0;ti")).toBe("text");
    expect(s.push("tle\x07 end")).toBe(" end");
  });
});

describe("FlowText", () => {
  const text = "The quick brown fox jumps over the lazy dog, then naps under the old oak tree until dusk.";

  it("wraps at word boundaries whatever the pieces, never past the width", () => {
    const expected = flow(text, 20, 1000);
    for (const size of [1, 2, 3, 7]) expect(flow(text, 20, size)).toBe(expected);
    const lines = expected.split("\n");
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(20);
    expect(lines.join(" ")).toBe(text);
  });

  it("counts wide characters by columns, and cuts a word wider than a line", () => {
    const out = flow("漢字 かな 日本語の長い単語です ok", 10, 2);
    for (const line of out.split("\n")) expect(displayWidth(line)).toBeLessThanOrEqual(10);
    expect(out).toBe("漢字 かな\n日本語の長\nい単語です\nok");
  });

  it("keeps newlines and indentation, marks every line with the prefix", () => {
    expect(flow("first line\n  indented code\n\nlast", 40, 3, "(thinking) ")).toBe("(thinking) first line\n(thinking)   indented code\n\n(thinking) last");
  });

  it("lets no escape sequence through", () => {
    expect(flow("clear \x1b[2Jscreen \x1b]0;pwned\x07now\r!", 40, 2)).toBe("clear screen now!");
  });
});

describe("fitWidth", () => {
  it("cuts to display columns", () => {
    expect(fitWidth("日本語のテキスト", 7)).toBe("日本語…");
    expect(displayWidth(fitWidth("日本語のテキスト", 7))).toBeLessThanOrEqual(7);
    expect(fitWidth("short", 7)).toBe("short");
  });
});

describe("timeAgo", () => {
  it("says how long ago, in words people read", () => {
    const now = new Date(2025, 2, 14, 16, 30);
    const at = (d: Date) => timeAgo(d.toISOString(), now);
    expect(at(new Date(2025, 2, 14, 16, 29, 40))).toBe("just now");
    expect(at(new Date(2025, 2, 14, 16, 5))).toBe("25 min ago");
    expect(at(new Date(2025, 2, 14, 13, 0))).toBe("3 h ago");
    expect(at(new Date(2025, 2, 14, 2, 7))).toBe("today 02:07");
    expect(at(new Date(2025, 2, 13, 14, 2))).toBe("yesterday 14:02");
    expect(at(new Date(2025, 0, 2, 9, 5))).toBe("2025-01-02 09:05");
  });
});
