/**
 * What a running turn shows in a real terminal (tmux): the spinner of running tool blocks and of the waiting line
 * (turning with colour, a still `…` without).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openaiToolCalls } from "../e2e/support.js";
import { openaiAnswer } from "./openai-answer.js";
import { tempDir } from "./run-awl.js";
import { tmuxTest } from "./tmux-terminal.js";
import { WAIT_FOR_GATE } from "./lua-gate.js";

const tty = tmuxTest();

/** `gated` waits until the file `gate` exists. */
const GATED = `
awl.register_tool {
  name = "gated", description = "Waits for the file gate.",
  parameters = { type = "object", properties = { gate = { type = "string" } } },
  run = function(args, ctx)${WAIT_FOR_GATE}
    return "opened"
  end,
}`;

/** Starts awl with `gated` and sends a prompt whose answer calls it; returns the gate to open. */
async function runGated(extraEnv: string[] = []): Promise<string> {
  const gate = join(tempDir("awl-gate-"), "gate");
  tty.server.enqueue({ body: openaiToolCalls([{ id: "g1", name: "gated", input: { gate } }]) }, openaiAnswer("Opened."));
  await tty.start({ extensions: { "gated.lua": GATED }, args: ["--allow", "*"], extraEnv });
  await tty.send("open it");
  return gate;
}

describe("the spinner", () => {
  it("turns in a running tool block's header, and the block ends with its mark", async () => {
    const gate = await runGated();
    const first = /([⠀-⣿]) gated/.exec(await tty.terminal.waitFor(/[⠀-⣿] gated/))![1]!;
    await tty.terminal.waitFor(new RegExp(`(?!${first})[⠀-⣿] gated`));
    writeFileSync(gate, "");
    const screen = await tty.terminal.waitFor(/Opened\.\n>/);
    expect(screen).toMatch(/> open it\n✓ gated [^\n]*\n {2}opened\nOpened\./);
    expect(screen).not.toMatch(/[⠀-⣿]/);
  });

  it("turns on the waiting line until the first token arrives", async () => {
    tty.server.enqueue({ body: [{ data: Buffer.concat(openaiAnswer("Finally.").body), delayMs: 4000 }] });
    await tty.start();
    await tty.send("wait");
    const first = /([⠀-⣿]) waiting for the model…/.exec(await tty.terminal.waitFor(/[⠀-⣿] waiting for the model…/))![1]!;
    await tty.terminal.waitFor(new RegExp(`(?!${first})[⠀-⣿] waiting for the model…`));
    expect(await tty.terminal.waitFor(/Finally\.\n>/)).not.toContain("waiting for the model");
  });

  it("stays a still … without colour (NO_COLOR), on the waiting line and in a tool block", async () => {
    const gate = await runGated(["NO_COLOR=1"]);
    // Redrawn as its elapsed seconds tick, the mark still the same.
    await tty.terminal.waitFor(/\n… gated [^\n]* \d+s\n/);
    expect(await tty.terminal.screen()).not.toMatch(/[⠀-⣿]/);
    writeFileSync(gate, "");
    await tty.terminal.waitFor(/Opened\.\n>/);

    tty.server.enqueue({ body: [{ data: Buffer.concat(openaiAnswer("Later.").body), delayMs: 2500 }] });
    await tty.send("wait");
    await tty.terminal.waitFor(/\n… waiting for the model… \d+s/);
    expect(await tty.terminal.screen()).not.toMatch(/[⠀-⣿]/);
    await tty.terminal.waitFor(/Later\.\n>/);
  });
});
