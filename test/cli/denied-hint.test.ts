/**
 * A call denied in print mode ends with the `--allow` rule that would allow it. That hint is the line a user
 * needs: written whole when stderr is a file or a pipe, and never the part cut away on a terminal.
 */
import { tmpdir } from "node:os";
import { afterEach, expect, it } from "vitest";
import { AWL, runAwl, tempDir, writeScript } from "./run-awl.js";
import { Terminal } from "./tmux-terminal.js";

const COMMAND = "echo a very long command line that goes on and on past a hundred columns for sure, yes it does indeed";
const HINT = `--allow 'bash(${COMMAND})'`;

function deniedCallScript(): string {
  return writeScript(tempDir(), [
    { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "bash", input: { command: COMMAND } }], stop_reason: "tool_use" },
    { role: "assistant", content: [{ type: "text", text: "done" }], stop_reason: "end_turn" },
  ]);
}

let terminal: Terminal | undefined;
afterEach(async () => {
  await terminal?.stop();
});

it("writes a denied call's block whole when stderr is not a terminal: the header and the --allow hint uncut", async () => {
  const run = await runAwl(["-p", "hi", "--provider", "replay", "--replay", deniedCallScript()]);
  expect(run.code).toBe(0);
  expect(run.stderr).toContain(HINT);
  expect(run.stderr).toContain(`✗ bash ${COMMAND}\n`);
});

it("wraps a denied call's message at words on a terminal, so the --allow hint is all on screen", async () => {
  terminal = new Terminal();
  const script = deniedCallScript();
  await terminal.start(`env -i PATH=${process.env.PATH} TMPDIR=${tmpdir()} HOME=${tempDir("awl-home-")} TERM=xterm-256color ${process.execPath} ${AWL} -p hi --provider replay --replay ${script}; sleep 60`, 80, 30);
  await terminal.waitFor(/^done/m);
  const screen = await terminal.screen();
  const lines = screen.split("\n");
  expect(lines.every((line) => line.length <= 80)).toBe(true);
  // The message's lines joined back: the hint is there, word for word.
  const message = lines.filter((line) => line.startsWith("  ")).map((line) => line.trim()).join(" ");
  expect(message).toContain(HINT);
});
