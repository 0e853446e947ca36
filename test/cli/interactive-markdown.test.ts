/**
 * Answers drawn as Markdown in a real terminal (tmux) while they stream: headings, tables fitted, code lines
 * never broken, quotes unlike an echoed prompt, a resize re-laying the answer at one width, NO_COLOR plain.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { renderMarkdown } from "../../src/ui/markdown/render-markdown.js";
import { displayWidth, loadDisplayWidth } from "../../src/ui/output/width.js";
import { openaiAnswer } from "./openai-answer.js";
import { tmuxTest } from "./tmux-terminal.js";

const tty = tmuxTest();
beforeAll(() => loadDisplayWidth());

/** One SSE event per piece, each after `delayMs`. */
function paced(text: string, delayMs: number): { body: { data: string; delayMs: number }[] } {
  const events = Buffer.concat(openaiAnswer(text).body).toString().split(/(?=data: )/);
  return { body: events.map((data) => ({ data, delayMs })) };
}

const COMMAND = `npm install ${Array.from({ length: 12 }, (_, i) => `package-number-${i}`).join(" ")} --save-exact`;
const ANSWER = [
  "# The plan",
  "",
  "Some **bold** words, then a table:",
  "",
  "| name | what it does |",
  "|------|--------------|",
  "| read | reads a file from the workspace and returns its text with line numbers |",
  "| ls   | lists a folder |",
  "",
  "```sh",
  COMMAND,
  "```",
  "",
  "> a quote from the model",
  "",
  "Done.",
].join("\n");

/** The screen's lines between the prompt line `> marker` and the next prompt. */
function answerLines(screen: string, marker: string): string[] {
  const lines = screen.split("\n");
  const from = lines.indexOf(`> ${marker}`);
  const to = lines.findIndex((line, i) => i > from && /^>/.test(line));
  return lines.slice(from + 1, to);
}

describe("Markdown answers on the terminal", () => {
  it("renders headings, a table fitted to the width, a code line kept whole and a quote unlike a prompt", async () => {
    tty.server.enqueue(paced(ANSWER, 5));
    await tty.start({ columns: 60, rows: 40 });
    await tty.send("plan");
    await tty.terminal.waitFor(/^Done\.\n>/m);
    const screen = await tty.terminal.screen();
    const lines = answerLines(screen, "plan");
    expect(lines[0]).toBe("The plan");
    expect(lines).toContain("Some bold words, then a table:");
    expect(lines.find((l) => l.startsWith("name"))).toMatch(/^name +│ what it does$/);
    for (const line of lines.filter((l) => l.includes("│") && !l.startsWith("│"))) expect(displayWidth(line)).toBeLessThanOrEqual(60);
    expect(lines.join(" ").replace(/[│ ─┼]+/g, " ")).toContain("reads a file from the");
    expect(lines).toContain("│ a quote from the model");
    expect(screen).not.toMatch(/^> a quote/m);
    // The code line is wider than the screen: the terminal wraps it, a copy gives it back whole.
    expect(answerLines(await tty.terminal.screen({ joined: true }), "plan")).toContain(COMMAND);
    const styled = await tty.terminal.screen({ styled: true });
    expect(styled).toMatch(/\x1b\[1;4mThe\b/);
  });

  it("bad input: 20 columns, a table wider than the screen, escape sequences in the answer: a usable screen", async () => {
    const text = "\x1b]2;PWNED\x07| first column | second column | third |\n|---|---|---|\n| alpha beta gamma | delta | \x1b[31mred\x1b[0m |\n\nAfter the table.";
    tty.server.enqueue(openaiAnswer(text));
    await tty.start({ columns: 20 });
    await tty.send("t");
    const screen = await tty.terminal.waitFor(/^After the table\.\n>/m);
    const lines = answerLines(screen, "t");
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(20);
    // Each column gets a few columns: cells wrap (a word cut) inside them, and nothing is lost.
    expect(lines.join("").replace(/[│─┼ ]+/g, "")).toMatch(/alph.*a.*beta/);
    expect(await tty.terminal.title()).not.toBe("PWNED");
    const styled = await tty.terminal.screen({ styled: true });
    expect(styled.split("\n").find((l) => l.includes("red"))).not.toMatch(/\x1b\[[\d;]*31m/);
  });

  it("with NO_COLOR: the same layout without a single escape sequence; headings keep their #", async () => {
    tty.server.enqueue(openaiAnswer(ANSWER));
    await tty.start({ columns: 60, rows: 40, extraEnv: ["NO_COLOR=1"] });
    await tty.send("plan");
    await tty.terminal.waitFor(/^Done\.\n>/m);
    const lines = answerLines(await tty.terminal.screen({ styled: true }), "plan");
    expect(lines[0]).toBe("# The plan");
    expect(lines.join("\n")).not.toContain("\x1b");
  });

  it("a resize mid-stream lays the whole answer out again at the new width", async () => {
    const text = `${Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ")}\n\nSecond paragraph ${Array.from({ length: 20 }, (_, i) => `more${i}`).join(" ")}`;
    tty.server.enqueue(paced(text, 25));
    await tty.start({ columns: 60 });
    await tty.send("go");
    await tty.terminal.waitFor(/word20 /);
    await tty.terminal.resize(40, 30);
    await tty.terminal.waitFor(/more5 /);
    await tty.terminal.resize(80, 30);
    await tty.terminal.waitFor(/more19\n>/);
    // Once more with nothing streaming, so the last width applies to all of it.
    const lines = answerLines(await tty.terminal.screen(), "go");
    expect(lines).toEqual(renderMarkdown(text, { width: 79, color: false }));
  });
});

describe("a resumed session", () => {
  it("is drawn as Markdown by awl -c, exactly as the answer was live (no raw #, ** or table pipes)", async () => {
    const answer = "# Plan\n\nThis is **important** text.\n\n> a quoted line\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n";
    tty.server.enqueue(openaiAnswer(answer));
    const home = await tty.start({ columns: 80, rows: 40 });
    await tty.send("make a plan");
    await tty.terminal.waitFor(/important[\s\S]*^>\s*$/m);
    const live = (await tty.terminal.screen()).split("\n");
    const drawn = live.slice(live.findIndex((line) => line.includes("Plan")), live.findIndex((line) => line.includes("2")) + 1);
    await tty.terminal.keys("C-d");
    await tty.terminal.waitFor(/\[awl exited 0\]/);
    await tty.reopen();
    await tty.launch({ home, args: ["-c"], columns: 80, rows: 40 });
    const resumed = await tty.terminal.waitFor(/continue below[\s\S]*^>\s*$/m);
    expect(resumed).not.toContain("# Plan");
    expect(resumed).not.toContain("**important**");
    expect(resumed).not.toContain("| --- |");
    expect(resumed).not.toMatch(/^> a quoted line/m); // a model's quote never looks like a user's prompt
    const lines = resumed.split("\n");
    const start = lines.findIndex((line) => line.includes("Plan"));
    expect(lines.slice(start, start + drawn.length)).toEqual(drawn);
  });
});
