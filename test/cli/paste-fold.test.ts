/** A long paste at the prompt (tmux, the built awl, a scripted server): shown folded, sent whole, unfolded by Ctrl-O. */
import { describe, expect, it } from "vitest";
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
