/**
 * The status line under the prompt (tmux): provider and model, tokens, cost, the permission mode, MCP servers
 * still starting; fitted to the width, plain under NO_COLOR, never left in the output, gone at exit.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EVERYTHING } from "../extensions/mcp/servers.js";
import { openaiAnswer } from "./openai-answer.js";
import { tempDir } from "./run-awl.js";
import { awlCommand, tmuxTest } from "./tmux-terminal.js";

const tty = tmuxTest();

/** The screen's lines, trailing spaces cut. */
const lines = (screen: string): string[] => screen.split("\n").map((l) => l.trimEnd());

describe("the status line", () => {
  it("sits under the prompt with the session's figures, is never scrolled into the output, and is gone at exit", async () => {
    tty.server.enqueue(openaiAnswer("First answer."), openaiAnswer("Second answer."));
    await tty.start({ rows: 12 });
    const first = lines(await tty.terminal.waitFor(/^>\n.*gpt-test/m));
    expect(first[first.indexOf(">") + 1]).toBe("openai gpt-test · ↑0 ↓0");

    await tty.send("one");
    await tty.terminal.waitFor(/First answer\.\n>\n.*↑9 ↓2 · cost unknown/);
    await tty.send("two");
    // Below the prompt, the session's totals; the screen scrolled (12 rows), and no earlier status line is left above.
    const screen = await tty.terminal.waitFor(/Second answer\.\n>\n.*↑18 ↓4 · cost unknown/);
    expect(lines(screen).filter((l) => l.startsWith("openai gpt-test"))).toHaveLength(1);
    const all = await tty.terminal.screen({ history: true });
    expect(lines(all).filter((l) => l.startsWith("openai gpt-test"))).toEqual(["openai gpt-test · context 0% of 128k · ↑18 ↓4 · cost unknown"]);

    await tty.terminal.keys("C-d");
    const after = await tty.terminal.waitFor(/\[awl exited 0\]/);
    expect(after).toMatch(/Second answer\.\n>\n\[awl exited 0\]/);
    expect(lines(after).filter((l) => l.startsWith("openai gpt-test"))).toEqual([]);
  }, 60_000);

  it("shows a mode other than the default, bypass loudly, and stays plain under NO_COLOR", async () => {
    await tty.start({ args: ["--dangerously-skip-permissions"] });
    const styled = await tty.terminal.screen({ styled: true });
    expect(styled).toMatch(/\x1b\[[0-9;]*41m[^\n]*BYPASS: no permission checks/);
    await tty.send("/mode plan");
    await tty.terminal.waitFor(/^>\nmode plan · openai gpt-test · ↑0 ↓0/m);
    await tty.terminal.keys("C-d");
    await tty.terminal.waitFor(/\[awl exited 0\]/);

    await tty.reopen();
    await tty.start({ args: ["--permission-mode", "accept-edits"], extraEnv: ["NO_COLOR=1"] });
    const plain = await tty.terminal.waitFor(/^>\nmode accept-edits · openai gpt-test/m);
    expect(plain).toBeTruthy();
    expect(await tty.terminal.screen({ styled: true })).not.toMatch(/\x1b\[/);
  }, 60_000);

  it("is cut by display width and follows a resize without leaving lines behind", async () => {
    await tty.start({ args: ["--permission-mode", "accept-edits"], columns: 100 });
    await tty.terminal.waitFor(/^>\nmode accept-edits · openai gpt-test · ↑0 ↓0$/m);
    await tty.terminal.resize(24, 30);
    const narrow = lines(await tty.terminal.waitFor(/^>\nmode accept-edits · op…$/m));
    // One status line, one prompt: nothing of the wide drawing is left.
    expect(narrow.filter((l) => l.startsWith("mode"))).toHaveLength(1);
    expect(narrow.filter((l) => l.startsWith(">"))).toHaveLength(1);
    await tty.terminal.resize(100, 30);
    await tty.terminal.type("x");
    const wide = lines(await tty.terminal.waitFor(/^> x\nmode accept-edits · openai gpt-test · ↑0 ↓0$/m));
    expect(wide.filter((l) => l.startsWith("mode") || l.startsWith("openai"))).toHaveLength(1);
  }, 60_000);

  it("names MCP servers still starting until they are ready", async () => {
    const project = tempDir("awl-project-");
    const gate = join(project, "gate");
    // The server starts only once the test creates the gate file.
    const slow = `while [ ! -f ${gate} ]; do sleep 0.05; done; exec ${EVERYTHING}`;
    writeFileSync(join(project, ".mcp.json"), JSON.stringify({ mcpServers: { slowpoke: { command: "sh", args: ["-c", slow] } } }));
    const { command } = awlCommand(tty.server, { args: ["--allow", "*"] });
    await tty.terminal.start(`cd ${project} && ${command}; echo "[awl exited $?]"; sleep 60`);
    await tty.terminal.waitFor(/\[y\/N\]/);
    await tty.terminal.type("y");
    await tty.terminal.waitFor(/^>\nopenai gpt-test · ↑0 ↓0 · starting slowpoke$/m);
    writeFileSync(gate, "");
    await tty.terminal.waitFor(/^>\nopenai gpt-test · ↑0 ↓0$/m, 30_000);
  }, 60_000);
});
