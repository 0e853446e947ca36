/**
 * How the interactive mode draws in a real terminal (tmux): the model's text made safe and wrapped at words,
 * tool blocks fitted by display width and relaid on resize, the waiting line, the elapsed time of a running
 * tool; and what the next request holds after a turn that got no answer.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { openaiToolCalls } from "../e2e/support.js";
import { bodyGate, sseData } from "../support/replay-server.js";
import { openaiAnswer } from "./openai-answer.js";
import { tempDir } from "./run-awl.js";
import { tmuxTest } from "./tmux-terminal.js";
import { slashHelp } from "../../src/cli/interactive/slash-commands.js";
import { displayWidth, loadDisplayWidth } from "../../src/ui/output/width.js";

const tty = tmuxTest();
beforeAll(() => loadDisplayWidth());

/** One SSE event per piece, each after `delayMs`. */
function paced(text: string, delayMs: number): { body: { data: string; delayMs: number }[] } {
  const events = Buffer.concat(openaiAnswer(text).body).toString().split(/(?=data: )/);
  return { body: events.map((data) => ({ data, delayMs })) };
}

/** The screen's lines between the prompt line `> marker` and the next prompt. */
function answerLines(screen: string, marker: string): string[] {
  const lines = screen.split("\n");
  const from = lines.indexOf(`> ${marker}`);
  const to = lines.findIndex((line, i) => i > from && /^>/.test(line));
  return lines.slice(from + 1, to);
}

const WORDS = "Wrapping keeps every word whole: extraordinarily long words like internationalization stay on one line, and 日本語の 文章も 正しく 折り返されます 🙂 done.";

/** A tool that shows a wide title, shows two states, and waits for the file `gate`. */
const WIDE = `
awl.register_tool {
  name = "wide", description = "Waits for a file.",
  parameters = { type = "object", properties = { gate = { type = "string" } } },
  run = function(args, ctx)
    ctx:title("漢字のタイトル" .. string.rep("長", 60))
    ctx:show { step = "one" }
    ctx:show { step = "two" }
    while true do
      local f = io.open(args.gate)
      if f then f:close() break end
      os.execute("sleep 0.05")
    end
    ctx:show { step = "done" }
    return "ok"
  end,
  render = function(state, view) return "STEP " .. state.step .. " " .. string.rep("界", 80) end,
}`;

describe("the model's text on the terminal", () => {
  it("has no effect beyond its characters: no clearing, no title, no colours, no overwriting", async () => {
    tty.server.enqueue(openaiAnswer("before \x1b[2J\x1b[H\x1b]2;PWNED\x07\x1b[31mred\r after\x1b[0m"));
    await tty.start();
    await tty.send("hi");
    const screen = await tty.terminal.waitFor(/> hi\nbefore red after\n>/);
    expect(screen).toMatch(/^awl · openai gpt-test/);
    expect(await tty.terminal.title()).not.toBe("PWNED");
    const styled = await tty.terminal.screen({ styled: true });
    expect(styled.split("\n").find((l) => l.includes("before"))).not.toMatch(/\x1b\[[\d;]*31/);
  });

  it("wraps at word boundaries for the width, wide characters counted by columns", async () => {
    tty.server.enqueue(openaiAnswer(WORDS));
    await tty.start({ columns: 40 });
    await tty.send("wrap");
    const screen = await tty.terminal.waitFor(/done\.\n>/);
    const lines = answerLines(screen, "wrap");
    expect(lines.length).toBeGreaterThan(2);
    expect(lines.join(" ").split(/\s+/)).toEqual(WORDS.split(/\s+/));
  });

  it("survives a resize while streaming: no text lost, no prompt drawn in the answer", async () => {
    const text = Array.from({ length: 30 }, (_, i) => `word${i}`).join(" ");
    tty.server.enqueue(paced(text, 60));
    await tty.start({ columns: 60 });
    await tty.send("go");
    await tty.terminal.waitFor(/word3 /);
    await tty.terminal.resize(40, 30);
    await tty.terminal.waitFor(/word12 /);
    await tty.terminal.resize(80, 30);
    const screen = await tty.terminal.waitFor(/word29\n>/);
    const lines = answerLines(screen, "go");
    expect(lines.join(" ").split(/\s+/)).toEqual(text.split(" "));
    expect(screen.match(/^>/gm)).toHaveLength(2);
  });

  it("wraps awl's own text at words by display width: /help and an error, at 40 columns", async () => {
    tty.server.enqueue({ status: 401, headers: { "content-type": "application/json" }, body: '{"error":{"message":"Incorrect API key provided: sk-test. You can find your API key at https://platform.example/account/api-keys."}}' });
    await tty.start({ columns: 40 });
    await tty.send("/help");
    await tty.terminal.waitFor(/suspend awl/);
    await tty.send("hello");
    await tty.terminal.waitFor(/check AWL_API_KEY[\s\S]*^>\s*$/m);
    const screen = await tty.terminal.screen({ history: true });
    const lines = screen.split("\n");
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(40);
    const words = (text: string) => text.trim().split(/\s+/).join(" ");
    expect(words(screen)).toContain(words(slashHelp()));
    expect(words(screen)).toContain("awl: the API key was refused");
  });

  it("print mode on a terminal: the same safe, word-wrapped text", async () => {
    tty.server.enqueue(openaiAnswer(`\x1b]2;PWNED\x07${WORDS}`));
    await tty.launch({ args: ["-p", "wrap"], columns: 40 });
    const screen = await tty.terminal.waitFor(/\[awl exited 0\]/);
    const lines = screen.split("\n");
    const answer = lines.slice(0, lines.findIndex((l) => l.startsWith("[awl exited")));
    expect(answer.join(" ").trim().split(/\s+/)).toEqual(WORDS.split(/\s+/));
    expect(await tty.terminal.title()).not.toBe("PWNED");
  });

  it("without colour, collapses the thinking to one plain line once it ends; Ctrl-O shows it whole", async () => {
    const chunk = (delta: object, finish: string | null = null) => ({ choices: [{ index: 0, delta, finish_reason: finish }] });
    tty.server.enqueue({ body: sseData([chunk({ reasoning_content: "First thought,\nsecond" }), chunk({ reasoning_content: " thought." }), chunk({ content: "Answer." }), chunk({}, "stop"), "[DONE]"]) });
    await tty.start({ extraEnv: ["NO_COLOR=1"] });
    await tty.send("think");
    await tty.terminal.waitFor(/> think\n▸ thought for \d+s · ctrl-o to expand\nAnswer\.\n>/);
    await tty.terminal.keys("C-o");
    await tty.terminal.waitFor(/\(the last thinking, expanded: printed again below\)\n▾ thought for \d+s\nFirst thought,\nsecond thought\.\n>/);
    expect(await tty.terminal.screen({ styled: true })).not.toMatch(/\x1b\[/);
  });

  it("shows a waiting line until the first token arrives, then removes it", async () => {
    const slow = openaiAnswer("Finally here.");
    const held = bodyGate();
    tty.server.enqueue({ body: [{ data: Buffer.concat(slow.body), after: held.until }] });
    await tty.start();
    await tty.send("wait");
    await tty.terminal.waitFor(/> wait\n[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] waiting for the model…/);
    held.open();
    const screen = await tty.terminal.waitFor(/Finally here\.\n>/);
    expect(screen).not.toContain("waiting for the model");
  });
});

/** A tool that goes through three steps, each shown with `ctx:show`, each waiting for the file `<gate><step>`. */
const STEPS = `
awl.register_tool {
  name = "steps", description = "Steps through gates.",
  parameters = { type = "object", properties = { gate = { type = "string" }, id = { type = "string" } } },
  run = function(args, ctx)
    for step = 1, 3 do
      ctx:show { id = args.id, step = step }
      while true do
        local f = io.open(args.gate .. step)
        if f then f:close() break end
        os.execute("sleep 0.05")
      end
    end
    return "stepped"
  end,
  render = function(state, view) return "RENDERED " .. state.id .. " step " .. state.step end,
}`;

describe("tool blocks on the terminal", () => {
  it("renders two blocks live while both workers run their tools (renders have a worker of their own)", async () => {
    const dir = tempDir("awl-gate-");
    const gate = join(dir, "gate");
    const calls = [{ id: "s1", name: "steps", input: { gate, id: "A" } }, { id: "s2", name: "steps", input: { gate, id: "B" } }];
    tty.server.enqueue({ body: openaiToolCalls(calls) }, openaiAnswer("Stepped."));
    await tty.start({ extensions: { "steps.lua": STEPS }, args: ["--lua-workers", "2", "--allow", "steps"] });
    await tty.send("go");
    // Both tool calls hold both workers until their gates open: every drawing below is a render done meanwhile.
    await tty.terminal.waitFor(/[⠀-⣿] steps .*\n {2}RENDERED A step 1\n[⠀-⣿] steps .*\n {2}RENDERED B step 1\n/);
    writeFileSync(`${gate}1`, "");
    await tty.terminal.waitFor(/RENDERED A step 2\n[\s\S]*RENDERED B step 2\n/);
    writeFileSync(`${gate}2`, "");
    writeFileSync(`${gate}3`, "");
    const screen = await tty.terminal.waitFor(/Stepped\.\n>/);
    expect(screen).toMatch(/> go\n✓ steps .*\n {2}RENDERED A step 3\n✓ steps .*\n {2}RENDERED B step 3\nStepped\./);
  });

  it("fits wide text by columns and leaves no stale copy; a resize relays the live block; elapsed time shows", async () => {
    const gate = join(tempDir("awl-gate-"), "open");
    tty.server.enqueue({ body: openaiToolCalls([{ id: "w1", name: "wide", input: { gate } }]) }, openaiAnswer("Done."));
    await tty.start({ columns: 80, extensions: { "wide.lua": WIDE }, args: ["--allow", "wide"] });
    await tty.send("go");
    // Header and body each fit on one row: cut by columns, not characters.
    await tty.terminal.waitFor(/[⠀-⣿] wide 漢字のタイトル長+…(?: \d+s)?\n {2}STEP two 界+…\n/);
    await tty.terminal.waitFor(/[⠀-⣿] wide 漢字のタイトル長+… \d+s\n/);
    await tty.terminal.resize(50, 30);
    await tty.terminal.waitFor(/[⠀-⣿] wide 漢字のタイトル長+… \d+s\n {2}STEP two 界+…\n\nopenai gpt-test[^\n]*\s*$/);
    writeFileSync(gate, "");
    await tty.terminal.waitFor(/Done\.\n>/);
    // On the screen, one copy: the block as it ended.
    const screen = await tty.terminal.screen();
    expect(screen.match(/wide 漢字/g)).toHaveLength(1);
    expect(screen.match(/STEP/g)).toHaveLength(1);
    expect(screen).toMatch(/^✓ wide 漢字のタイトル長+…\n {2}STEP done 界+…\nDone\./m);
    // tmux re-wraps a narrowed screen keeping its last non-empty row in place, so the status line under the
    // output, re-wrapped too, pushed the block's first row into the scrollback, out of awl's reach: only that
    // row of the old drawing may be left there.
    const history = await tty.terminal.screen({ history: true });
    expect(history.match(/STEP/g)).toHaveLength(1);
    expect(history.match(/wide 漢字/g)!.length).toBeLessThanOrEqual(2);
  });
});
