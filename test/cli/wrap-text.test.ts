/** awl's own text on a terminal: wrapped at words by display width, continuation lines indented under their text. */
import { beforeAll, describe, expect, it } from "vitest";
import { loadDisplayWidth } from "../../src/ui/output/width.js";
import { forTerminal, wrapText } from "../../src/ui/output/wrap-text.js";

beforeAll(() => loadDisplayWidth());

describe("wrapText", () => {
  it("wraps at words, never inside one, each line within the width", () => {
    const text = "awl: no API key for anthropic: set ANTHROPIC_API_KEY or AWL_API_KEY, or pass --api-key";
    const wrapped = wrapText(text, 30).split("\n");
    for (const line of wrapped) expect(line.length).toBeLessThanOrEqual(30);
    expect(wrapped).toEqual(["awl: no API key for anthropic:", "     set ANTHROPIC_API_KEY or", "     AWL_API_KEY, or pass", "     --api-key"]);
  });

  it("keeps a hint under its arrow and a second column under itself", () => {
    expect(wrapText("  → run awl --demo to see a replayed turn", 24)).toBe("  → run awl --demo to\n    see a replayed turn");
    expect(wrapText("  /model NAME   switch the model for the next turns", 36)).toBe("  /model NAME   switch the model for\n                the next turns");
  });

  it("counts wide characters by their columns and leaves a word longer than the line whole", () => {
    expect(wrapText("日本語 日本語 日本語", 14)).toBe("日本語 日本語\n日本語");
    const url = "https://example.com/a/very/long/path/that/does/not/fit";
    expect(wrapText(`see ${url} now`, 20)).toBe(`see\n${url}\nnow`);
  });

  it("leaves lines that fit as they are", () => {
    expect(wrapText("short\n  indented   columns\n", 80)).toBe("short\n  indented   columns\n");
  });

  it("wraps for 80 columns on a terminal that reports no size (a pseudo-terminal nobody sized), not one word a line", () => {
    const text = 'awl: no model chosen for provider "openai": set AWL_MODEL or pass --model NAME';
    expect(forTerminal({ isTTY: true, columns: 0 }, text)).toBe(text);
    expect(forTerminal({ isTTY: true }, text)).toBe(text);
  });
});
