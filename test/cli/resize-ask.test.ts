/**
 * A terminal resized while a permission question waits (tmux, the built awl, a scripted server): narrower and
 * shorter, then wider again, the question and the status line are each on screen once, and after the answer
 * the scrollback holds the question once and no stale status row.
 */
import { describe, expect, it } from "vitest";
import { openaiToolCalls } from "../e2e/support.js";
import { openaiAnswer } from "./openai-answer.js";
import { tempDir } from "./run-awl.js";
import { awlCommand, tmuxTest } from "./tmux-terminal.js";

const tty = tmuxTest();

const RUN = `awl.register_tool("run", { type = "object", properties = { command = { type = "string" } }, required = { "command" } },
  function(input) return "ran " .. input.command end)\n`;

const count = (text: string, pattern: RegExp): number => text.match(new RegExp(pattern.source, "g"))?.length ?? 0;

describe("a resize during a permission question", () => {
  it("leaves no stale row: the question and the status line are on screen once, during and after", async () => {
    const project = tempDir("awl-proj-");
    const { command } = awlCommand(tty.server, { extensions: { "run.lua": RUN }, args: ["--no-std-tools"] });
    tty.server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "run", input: { command: "ls -la /some/where/long/enough" } }]) }, openaiAnswer("Done."));
    await tty.terminal.start(`cd ${project} && ${command}; sleep 60`);
    await tty.terminal.waitFor(/^>\s*$/m);
    await tty.send("go");
    await tty.terminal.waitFor(/y allow once/);
    for (const [columns, rows] of [[70, 12], [40, 20], [100, 30]] as const) {
      await tty.terminal.resize(columns, rows);
      // The status line is redrawn for the new size (it holds the whole model name again once wide enough).
      const screen = await tty.terminal.waitFor(columns >= 70 ? /context 0% of 128k · ↑10 ↓5 · cost unknown/ : /openai gpt-test · context/);
      expect(count(screen, /openai gpt-test · context/), screen).toBe(1);
      expect(count(await tty.terminal.screen({ history: true, joined: true }), /y allow once/)).toBe(1);
    }
    await tty.terminal.type("y");
    await tty.terminal.waitFor(/Done\.\n>/);
    const history = await tty.terminal.screen({ history: true, joined: true });
    expect(count(history, /run wants to run/), history).toBe(1);
    expect(count(history, /openai gpt-test · context/), history).toBe(1);
    expect(history).toMatch(/allowed once\n✓ run ls -la \/some\/where\/long\/enough\n {2}ran ls -la/);
  });
});
