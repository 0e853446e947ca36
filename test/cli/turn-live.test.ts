/**
 * What a running turn shows in a real terminal (tmux): the spinner of running tool blocks and of the waiting line
 * (turning with colour, a still `…` without); under the live output, what is typed for the next prompt (with its
 * cursor, and the prompts queued) and the status line, updated as usage arrives.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openaiToolCalls } from "../e2e/support.js";
import { openaiAnswer } from "./openai-answer.js";
import { tempDir } from "./run-awl.js";
import { tmuxTest } from "./tmux-terminal.js";
import { WAIT_FOR_GATE } from "./lua-gate.js";
import { bodyGate, sseData, type ScriptedResponse } from "../support/replay-server.js";

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
    const held = bodyGate();
    tty.server.enqueue({ body: [{ data: Buffer.concat(openaiAnswer("Finally.").body), after: held.until }] });
    await tty.start();
    await tty.send("wait");
    const first = /([⠀-⣿]) waiting for the model…/.exec(await tty.terminal.waitFor(/[⠀-⣿] waiting for the model…/))![1]!;
    await tty.terminal.waitFor(new RegExp(`(?!${first})[⠀-⣿] waiting for the model…`));
    held.open();
    expect(await tty.terminal.waitFor(/Finally\.\n>/)).not.toContain("waiting for the model");
  });

  it("stays a still … without colour (NO_COLOR), on the waiting line and in a tool block", async () => {
    const gate = await runGated(["NO_COLOR=1"]);
    // Redrawn as its elapsed seconds tick, the mark still the same.
    await tty.terminal.waitFor(/\n… gated [^\n]* \d+s\n/);
    expect(await tty.terminal.screen()).not.toMatch(/[⠀-⣿]/);
    writeFileSync(gate, "");
    await tty.terminal.waitFor(/Opened\.\n>/);

    const held = bodyGate();
    tty.server.enqueue({ body: [{ data: Buffer.concat(openaiAnswer("Later.").body), after: held.until }] });
    await tty.send("wait");
    await tty.terminal.waitFor(/\n… waiting for the model… \d+s/);
    expect(await tty.terminal.screen()).not.toMatch(/[⠀-⣿]/);
    held.open();
    await tty.terminal.waitFor(/Later\.\n>/);
  });
});

/**
 * An answer streamed one word every `delayMs`, then held before its "END." until `release()`: the test sees the
 * answer mid-way however slow the machine.
 */
function slowAnswer(words: number, delayMs: number, usage = { prompt_tokens: 9, completion_tokens: words }): { response: ScriptedResponse; release: () => void } {
  const chunk = (delta: object, finish_reason: string | null = null) => ({ choices: [{ index: 0, delta, finish_reason }] });
  const streamed = [chunk({ role: "assistant", content: "" }), ...Array.from({ length: words }, (_, i) => chunk({ content: `word${i + 1} ` }))];
  const end = sseData([chunk({ content: "END." }), chunk({}, "stop"), { choices: [], usage }, "[DONE]"]);
  const held = bodyGate();
  const pieces = sseData(streamed).split(/(?=data: )/).map((data) => ({ data, delayMs }));
  return { response: { body: [...pieces, { data: end, after: held.until }] }, release: held.open };
}

/** The screen's lines, trailing spaces cut. */
const lines = (screen: string): string[] => screen.split("\n").map((l) => l.trimEnd());

describe("a batch of calls", () => {
  it("leaves no frozen copy of a block when the calls of one answer run one after another", async () => {
    // Each call ran alone, so between two of them none was running: the waiting line came back there, was written
    // under the blocks, and the next drawing of the blocks went below it, the running block's old drawing left above.
    const todo = { todos: [{ content: "read the parser", status: "in_progress" }] };
    tty.server.enqueue(
      { body: openaiToolCalls([{ id: "t1", name: "todo", input: todo }, { id: "b1", name: "bash", input: { command: "sleep 0.5; echo first" } }, { id: "b2", name: "bash", input: { command: "echo second" } }]) },
      openaiAnswer("Both ran."),
    );
    await tty.start({ args: ["--allow", "bash"], rows: 40 });
    await tty.send("run them");
    const screen = await tty.terminal.waitFor(/Both ran\.\n/);
    expect(screen).not.toMatch(/[⠀-⣿] bash/);
    expect(screen.match(/✓ bash/g)).toHaveLength(2);
    expect(screen.match(/✓ todo/g)).toHaveLength(1);
  }, 60_000);
});

describe("under the live output", () => {
  it("shows what is typed during a turn, with its cursor, while a tool runs and the answer streams; sent once the turn is over", async () => {
    const gate = join(tempDir("awl-gate-"), "gate");
    const answer = slowAnswer(20, 30);
    tty.server.enqueue({ body: openaiToolCalls([{ id: "g1", name: "gated", input: { gate } }]) }, answer.response, openaiAnswer("Second answer."));
    await tty.start({ extensions: { "gated.lua": GATED }, args: ["--allow", "*"] });
    await tty.send("first");
    await tty.terminal.waitFor(/[⠀-⣿] gated/);
    await tty.terminal.type("next questio");
    await tty.terminal.keys("Left");
    // Under the running block (past the output's own empty row), then the status line.
    await tty.terminal.waitFor(/[⠀-⣿] gated[^\n]*\n\n> next questio\nopenai gpt-test/);
    await tty.terminal.waitForStyled(/\n> next questi\x1b\[7mo\n/); // the cursor, on the "o" (after Left): reverse video
    await tty.terminal.keys("End");
    await tty.terminal.type("n");
    writeFileSync(gate, "");
    // The answer streams above it.
    await tty.terminal.waitFor(/word20\n\n> next question\nopenai gpt-test/);
    answer.release();
    const screen = await tty.terminal.waitFor(/END\.\n> next question\n/);
    // Once the turn is over the text is at the prompt, unsent, the pane gone.
    expect(lines(screen).filter((l) => l.includes("next question"))).toHaveLength(1);
    expect(lines(screen).filter((l) => l.startsWith("openai gpt-test"))).toHaveLength(1);
    expect(tty.server.requests).toHaveLength(2);
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/> next question\nSecond answer\.\n>/);
    expect(tty.server.requests).toHaveLength(3);
  }, 60_000);

  it("shows the prompts queued by Enter during a turn (past three, counted), then runs them in order", async () => {
    const answer = slowAnswer(10, 30);
    tty.server.enqueue(answer.response, ...["two", "three", "four", "five"].map((n) => openaiAnswer(`Answer ${n}.`)));
    await tty.start();
    await tty.send("one");
    await tty.terminal.waitFor(/word2 /);
    await tty.send("two");
    await tty.send("three");
    await tty.terminal.waitFor(/word\d+ [^\n]*\n\n↳ queued: two\n↳ queued: three\nopenai gpt-test/);
    await tty.send("four");
    await tty.send("five");
    await tty.terminal.waitFor(/\n\n↳ queued: two\n↳ queued: three\n↳ queued: … and 2 more\nopenai gpt-test/);
    answer.release();
    const screen = await tty.terminal.waitFor(/> five\nAnswer five\.\n>/);
    expect(screen).toMatch(/END\.\n> two\nAnswer two\.\n> three\nAnswer three\.\n> four\nAnswer four\.\n> five\n/);
    expect(screen).not.toContain("queued");
  }, 60_000);

  it("keeps the status line under the output while it streams and a tool runs, updated as each call's usage arrives", async () => {
    const gate = join(tempDir("awl-gate-"), "gate");
    const call = sseData([
      { choices: [{ index: 0, delta: { role: "assistant", tool_calls: [{ index: 0, id: "g1", type: "function", function: { name: "gated", arguments: JSON.stringify({ gate }) } }] } }] },
      { choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
      { choices: [], usage: { prompt_tokens: 1500, completion_tokens: 20 } },
      "[DONE]",
    ]);
    const answer = slowAnswer(30, 20, { prompt_tokens: 2600, completion_tokens: 31 });
    tty.server.enqueue({ body: call }, answer.response);
    await tty.start({ extensions: { "gated.lua": GATED }, args: ["--allow", "*"], rows: 20 });
    await tty.send("go");
    // While the tool runs: the first call's figures, on the screen's last line.
    let screen = await tty.terminal.waitFor(/[⠀-⣿] gated[^\n]*\n\nopenai gpt-test · [^\n]*↑1\.5k ↓20/);
    expect(lines(screen.trimEnd()).at(-1)).toMatch(/^openai gpt-test · .*↑1\.5k ↓20/);
    writeFileSync(gate, "");
    // While the answer streams (filling the screen: the status line stays last), then with both calls' usage.
    screen = await tty.terminal.waitFor(/word30\n/);
    expect(lines(screen.trimEnd()).at(-1)).toMatch(/^openai gpt-test · .*↑1\.5k ↓20/);
    answer.release();
    screen = await tty.terminal.waitFor(/END\.\n>\nopenai gpt-test · .*↑4\.1k ↓51/);
    const all = await tty.terminal.screen({ history: true });
    expect(lines(all).filter((l) => l.startsWith("openai gpt-test"))).toHaveLength(1); // never scrolled into the history
  }, 60_000);
});

describe("thinking", () => {
  it("streams dimmed, collapses to one line once the answer starts, and Ctrl-O shows it whole", async () => {
    const chunk = (delta: object, finish_reason: string | null = null) => ({ choices: [{ index: 0, delta, finish_reason }] });
    const thoughts = Array.from({ length: 30 }, (_, i) => chunk({ reasoning_content: `idea${i + 1} ` }));
    const thinking = sseData([chunk({ role: "assistant", content: "" }), ...thoughts]).split(/(?=data: )/).map((data) => ({ data, delayMs: 30 }));
    const answer = sseData([chunk({ content: "The answer." }), chunk({}, "stop"), "[DONE]"]);
    const held = bodyGate();
    tty.server.enqueue({ body: [...thinking, { data: answer, after: held.until }] });
    await tty.start();
    await tty.send("think");
    await tty.terminal.waitFor(/idea3 /);
    expect(await tty.terminal.screen({ styled: true })).toMatch(/\x1b\[2mi?d?e?a?[^\n]*idea2 /); // dimmed
    held.open();
    const screen = await tty.terminal.waitFor(/The answer\.\n>/);
    expect(screen).toMatch(/> think\n▸ thought for \d+s · ctrl-o to expand\nThe answer\./);
    expect(screen).not.toContain("idea");
    await tty.terminal.keys("C-o");
    const expanded = await tty.terminal.waitFor(/\(the last thinking, expanded: printed again below\)\n▾ thought for \d+s\nidea1 idea2 [\s\S]*idea30\n>/);
    expect(expanded).toContain("idea30");
  }, 60_000);
});
