/** The first-run demo as a new user sees it in a terminal: the set-up commands it shows are the ones to copy. */
import { tmpdir } from "node:os";
import { afterEach, expect, it } from "vitest";
import { AWL, tempDir } from "./run-awl.js";
import { Terminal } from "./tmux-terminal.js";

let terminal: Terminal | undefined;
afterEach(async () => {
  await terminal?.stop();
});

it("shows each set-up command of the offline demo on a line of its own, as it is to be copied", async () => {
  terminal = new Terminal();
  const home = tempDir("awl-home-");
  await terminal.start(`env -i PATH=${process.env.PATH} TMPDIR=${tmpdir()} HOME=${home} TERM=xterm-256color ${process.execPath} ${AWL} --demo; sleep 60`, 100, 45);
  const screen = await terminal.waitFor(/that was a replayed demo/);
  const lines = screen.split("\n").map((line) => line.trimEnd());
  expect(lines).toContain("export OPENAI_API_KEY=sk-...    # or ANTHROPIC_API_KEY with AWL_PROVIDER=anthropic");
  expect(lines).toContain("export AWL_MODEL=gpt-4o-mini");
  expect(lines.some((line) => line.startsWith("npm start ") && line.includes("# interactive"))).toBe(true);
});
