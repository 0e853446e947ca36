/** A long paste at the prompt (tmux, the built awl, a scripted server): shown folded, sent whole, unfolded by Ctrl-O. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "./run-awl.js";
import { openaiAnswer } from "./openai-answer.js";
import { tmuxTest } from "./tmux-terminal.js";

const tty = tmuxTest();

/** The text of the last user message the server was sent. */
function lastUserText(): string {
  const body = tty.server.requests.at(-1)!.json() as { messages: Array<{ role: string; content: unknown }> };
  const content = body.messages.filter((m) => m.role === "user").at(-1)!.content;
  return typeof content === "string" ? content : (content as Array<{ text?: string }>).map((p) => p.text ?? "").join("\n");
}

const LINES = Array.from({ length: 300 }, (_, i) => `log line ${i + 1}`).join("\n");

describe("a long paste", () => {
  it("shows as [pasted 300 lines #1] in the prompt and the transcript, and the request carries all 300 lines", { timeout: 90_000 }, async () => {
    tty.server.enqueue(openaiAnswer("Read them."));
    await tty.start();
    await tty.terminal.type("why does this fail? ");
    await tty.terminal.paste(LINES);
    await tty.terminal.waitFor(/^> why does this fail\? \[pasted 300 lines #1\]\s*$/m);
    expect(await tty.terminal.screen()).not.toContain("log line 2");
    await tty.terminal.keys("Enter");
    const screen = await tty.terminal.waitFor(/Read them\.\n/);
    expect(screen).toMatch(/^> why does this fail\? \[pasted 300 lines #1\]$/m);
    expect(lastUserText()).toBe(`why does this fail? ${LINES}`);
  });

  it("a paste of 5 MB shows folded, keeps the prompt usable, and the request carries all of it", { timeout: 180_000 }, async () => {
    tty.server.enqueue(openaiAnswer("That is a lot."));
    const lines = Array.from({ length: 100_000 }, (_, i) => `line ${String(i + 1).padStart(6, "0")} ${"x".repeat(38)}`).join("\n");
    expect(Buffer.byteLength(lines)).toBeGreaterThanOrEqual(5_000_000);
    const file = join(tempDir("awl-paste-"), "big.txt");
    writeFileSync(file, lines);
    // A window that holds it (else awl first looks the model's up, and would compact before sending).
    await tty.start({ configFile: JSON.stringify({ models: { "gpt-test": { context_window: 4_000_000 } } }) });
    await tty.terminal.type("summarise ");
    await tty.terminal.pasteFile(file);
    await tty.terminal.waitFor(/^> summarise \[pasted 100000 lines #1\]\s*$/m, 120_000);
    // Still an editor: typing goes on after the folded paste.
    await tty.terminal.type(" please");
    await tty.terminal.waitFor(/^> summarise \[pasted 100000 lines #1\] please\s*$/m);
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/That is a lot\.\n/, 120_000);
    expect(lastUserText()).toBe(`summarise ${lines} please`);
  });

  it("a 5 MB paste on one line shows as [pasted 5000000 characters #1], so typing after it stays quick; it is sent whole", { timeout: 180_000 }, async () => {
    tty.server.enqueue(openaiAnswer("One long line."));
    const line = "y".repeat(5_000_000);
    const file = join(tempDir("awl-paste-"), "line.txt");
    writeFileSync(file, line);
    await tty.start({ configFile: JSON.stringify({ models: { "gpt-test": { context_window: 4_000_000 } } }) });
    await tty.terminal.pasteFile(file);
    await tty.terminal.waitFor(/^> \[pasted 5000000 characters #1\]\s*$/m, 120_000);
    expect(await tty.terminal.screen()).not.toContain("yyyy");
    await tty.terminal.type(" why");
    await tty.terminal.waitFor(/^> \[pasted 5000000 characters #1\] why\s*$/m);
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/One long line\.\n/, 120_000);
    expect(lastUserText()).toBe(`${line} why`);
  });

  it("a short paste goes in as it is; Ctrl-O puts a folded paste's text in the prompt", { timeout: 90_000 }, async () => {
    tty.server.enqueue(openaiAnswer("Fine."));
    await tty.start({ rows: 40 });
    await tty.terminal.paste("one\ntwo\nthree");
    await tty.terminal.waitFor(/^> one\n {2}two\n {2}three\s*$/m);
    await tty.terminal.keys("C-u", "C-u", "C-u");
    await tty.terminal.paste(Array.from({ length: 12 }, (_, i) => `row ${i + 1}`).join("\n"));
    await tty.terminal.waitFor(/\[pasted 12 lines #1\]/);
    await tty.terminal.keys("C-o");
    await tty.terminal.waitFor(/^ {2}row 12\s*$/m);
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/Fine\.\n/);
    expect(lastUserText()).toContain("row 1\nrow 2");
    expect(lastUserText()).toContain("row 12");
  });
});
