/** The interactive mode in a real terminal (tmux), against the local replay server. */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { splitEvery, startReplayServer } from "../support/replay-server.js";
import { tempDir } from "./run-awl.js";
import { tmuxTest } from "./tmux-terminal.js";
import { openaiAnswer } from "./openai-answer.js";
import { openaiToolCalls } from "../e2e/support.js";
import { conversationSent } from "../support/sent.js";
import { allRunning, forkingCommand, noneLeft } from "../support/processes.js";

const tty = tmuxTest();

function launch(extraEnv: string[] = [], configFile?: string, extensions: Record<string, string> = {}, options: { home?: string; args?: string[] } = {}): Promise<string> {
  return tty.launch({ extraEnv, ...(configFile !== undefined && { configFile }), extensions, ...options });
}

/** A tool that shows "waiting", waits for the file `gate` (printing a line once `log_gate` exists, if given), then shows "released". */
const GATED = `
local function wait_for(path)
  while true do
    local f = io.open(path)
    if f then f:close() return end
    os.execute("sleep 0.05")
  end
end
awl.register_tool {
  name = "gated", description = "Waits for a file.",
  parameters = { type = "object", properties = { gate = { type = "string" }, log_gate = { type = "string" } } },
  run = function(args, ctx)
    ctx:title("gate")
    ctx:show { step = "waiting" }
    if args.log_gate then
      wait_for(args.log_gate)
      print("LOG-LINE")
    end
    wait_for(args.gate)
    ctx:show { step = "released" }
    return "released"
  end,
  render = function(state, view) return "LIVE-STEP " .. state.step end,
}`;

describe("awl interactive", () => {
  it("holds a two-turn conversation (the history is sent) and exits on Ctrl-D", async () => {
    tty.server.enqueue(openaiAnswer("Nice to meet you, Ada."), openaiAnswer("Your name is Ada."));
    await launch();
    await tty.terminal.waitFor(/^>\s*$/m);
    await tty.terminal.type("My name is Ada.");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/Nice to meet you, Ada\.\n>/);
    await tty.terminal.type("What is my name?");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/Your name is Ada\.\n>/);

    const second = tty.server.requests[1]!.json();
    expect(conversationSent(second)).toEqual([
      { role: "user", content: "My name is Ada." },
      { role: "assistant", content: "Nice to meet you, Ada." },
      { role: "user", content: "What is my name?" },
    ]);
    await tty.terminal.keys("C-d");
    await tty.terminal.waitFor(/\[awl exited 0\]/);
  });

  it("Ctrl-C cancels a streaming answer, and the next prompt works", async () => {
    const slow = openaiAnswer("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen").body.map((data) => ({ data, delayMs: 40 }));
    tty.server.enqueue({ body: slow }, openaiAnswer("Still here."));
    await launch();
    await tty.terminal.waitFor(/^>\s*$/m);
    await tty.terminal.type("Count slowly.");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/one two/);
    await tty.terminal.keys("C-c");
    const screen = await tty.terminal.waitFor(/\(cancelled; a partial answer is not kept\)\n>/);
    expect(screen).not.toContain("fifteen");

    await tty.terminal.type("Are you there?");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/Still here\.\n>/);
    // The cancelled answer was not kept: the next request holds both prompts, as one user message with a note
    // between them saying what happened, and no half-streamed message.
    expect(conversationSent(tty.server.requests[1]!.json())).toEqual([
      { role: "user", content: "Count slowly.\n\n[awl: the request above got no answer: the user cancelled it]\n\nAre you there?" },
    ]);

    await tty.terminal.keys("C-c");
    await tty.terminal.waitFor(/press Ctrl-C again/);
    await tty.terminal.keys("C-c");
    await tty.terminal.waitFor(/\[awl exited 0\]/);
  });

  it("streams live, and says so when a cut-off answer is discarded and retried", async () => {
    const bytes = Buffer.concat(openaiAnswer("half whole").body);
    tty.server.enqueue({ body: [bytes.subarray(0, bytes.indexOf("data: ", bytes.indexOf("half ")))] }, openaiAnswer("whole answer"));
    await launch();
    await tty.terminal.waitFor(/^>\s*$/m);
    await tty.terminal.type("hi");
    await tty.terminal.keys("Enter");
    const screen = await tty.terminal.waitFor(/whole answer\n>/);
    expect(screen).toMatch(/half *\nawl: the answer above was cut off; it is discarded and asked for again\nawl: truncated; retry 1\/3 in [\d.]+ s\nwhole answer\n>/);
    // Only the good answer is in the conversation.
    tty.server.enqueue(openaiAnswer("ok"));
    await tty.terminal.type("again");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/ok\n>/);
    expect(conversationSent(tty.server.requests[2]!.json())[1]).toEqual({ role: "assistant", content: "whole answer" });
  });

  it("runs slash commands: /help, /model, unknown ones, /exit", async () => {
    tty.server.enqueue(openaiAnswer("From the other model."));
    await launch();
    await tty.terminal.waitFor(/^>\s*$/m);
    await tty.terminal.type("/help");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/\/exit, \/quit[\s\S]*keys:[\s\S]*Ctrl-Z/);
    await tty.terminal.type("/model other-model");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/model: openai other-model/);
    await tty.terminal.type("/frob");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/unknown command \/frob/);
    await tty.terminal.type("hello");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/From the other model\.\n>/);
    expect(tty.server.requests[0]!.json().model).toBe("other-model");
    await tty.terminal.type("/exit");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/\[awl exited 0\]/);
  });

  it("/model anthropic: the next turn goes to Anthropic's endpoint with its own key, the conversation converted", async () => {
    const anthropic = await startReplayServer();
    try {
      const config = JSON.stringify({ providers: { anthropic: { base_url: anthropic.url } } });
      await launch(["ANTHROPIC_API_KEY=sk-ant-test"], config);
      tty.server.enqueue(openaiAnswer("Hi Ada."));
      anthropic.enqueue({ body: splitEvery(readFileSync(new URL("../fixtures/anthropic/text.sse", import.meta.url)), 13) });
      await tty.terminal.waitFor(/^>\s*$/m);
      await tty.terminal.type("I am Ada.");
      await tty.terminal.keys("Enter");
      await tty.terminal.waitFor(/Hi Ada\.\n>/);
      await tty.terminal.type("/model anthropic claude-x");
      await tty.terminal.keys("Enter");
      await tty.terminal.waitFor(/model: anthropic claude-x \(from the next turn; the conversation is kept\)/);
      await tty.terminal.type("Who am I?");
      await tty.terminal.keys("Enter");
      await tty.terminal.waitFor(/and "quotes"\n>/);

      expect(tty.server.requests).toHaveLength(1);
      const request = anthropic.requests[0]!;
      expect(request.url).toBe("/v1/messages");
      expect(request.headers["x-api-key"]).toBe("sk-ant-test");
      expect(request.headers.authorization).toBeUndefined();
      expect(request.json()).toMatchObject({
        model: "claude-x",
        messages: [
          { role: "user", content: [{ type: "text", text: "I am Ada." }] },
          { role: "assistant", content: [{ type: "text", text: "Hi Ada." }] },
          { role: "user", content: [{ type: "text", text: "Who am I?" }] },
        ],
      });
    } finally {
      await anthropic.close();
    }
  });

  it("/model to a provider with no key: a clear message, and the conversation goes on with the old model", async () => {
    await launch();
    tty.server.enqueue(openaiAnswer("First."), openaiAnswer("Second."));
    await tty.terminal.waitFor(/^>\s*$/m);
    await tty.terminal.type("one");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/First\.\n>/);
    await tty.terminal.type("/model anthropic claude-x");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/cannot switch: no API key for provider "anthropic" \(set ANTHROPIC_API_KEY/);
    await tty.terminal.type("two");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/Second\.\n>/);
    expect(conversationSent(tty.server.requests[1]!.json())).toEqual([
      { role: "user", content: "one" },
      { role: "assistant", content: "First." },
      { role: "user", content: "two" },
    ]);
    expect(tty.server.requests[1]!.json().model).toBe("gpt-test");
  });

  it("draws a tool block live: its render(state, view) body redrawn in place as ctx:show updates arrive", async () => {
    const gate = join(tempDir("awl-gate-"), "open");
    tty.server.enqueue({ body: openaiToolCalls([{ id: "g1", name: "gated", input: { gate } }]) }, openaiAnswer("Gate passed."));
    await launch([], undefined, { "gated.lua": GATED }, { args: ["--allow", "gated"] });
    await tty.terminal.waitFor(/^>\s*$/m);
    await tty.terminal.type("go");
    await tty.terminal.keys("Enter");
    const running = await tty.terminal.waitFor(/LIVE-STEP waiting/);
    expect(running).toMatch(/[⠀-⣿] gated gate(?: \d+s)?\n {2}LIVE-STEP waiting\n/);
    writeFileSync(gate, "");
    const screen = await tty.terminal.waitFor(/Gate passed\.\n>/);
    expect(screen).toMatch(/> go\n✓ gated gate\n {2}LIVE-STEP released\nGate passed\.\n>/);
    // Redrawn in place: the running form is gone from the screen.
    expect(screen).not.toContain("LIVE-STEP waiting");
  });

  it("Esc while bash runs: its block live (first line as title, output), then the command and every process it started killed", async () => {
    const { command, lengths } = forkingCommand();
    tty.server.enqueue({ body: openaiToolCalls([{ id: "b1", name: "bash", input: { command: `echo started\n${command}` } }]) }, openaiAnswer("Still here."));
    await launch([], undefined, {}, { args: ["--allow", "bash"] });
    await tty.terminal.waitFor(/^>\s*$/m);
    await tty.send("go");
    await tty.terminal.waitFor(/[⠀-⣿] bash echo started(?: \d+s)?\n {2}started\n/);
    await allRunning(lengths);
    await tty.terminal.keys("Escape");
    const screen = await tty.terminal.waitFor(/⊘ bash echo started(?: \d+s)?\n[^]*\n>/);
    expect(screen).toMatch(/⊘ bash echo started(?: \d+s)?\n {2}started\n/);
    await noneLeft(lengths);
    await tty.send("again");
    await tty.terminal.waitFor(/Still here\.\n>/);
  });

  it("awl -r redraws a saved tool block with the title the tool set live (ctx:title), not its input", async () => {
    const gate = join(tempDir("awl-gate-"), "open");
    writeFileSync(gate, "");
    tty.server.enqueue({ body: openaiToolCalls([{ id: "g1", name: "gated", input: { gate } }]) }, openaiAnswer("Gate passed."));
    const home = await launch([], undefined, { "gated.lua": GATED }, { args: ["--allow", "gated"] });
    await tty.terminal.waitFor(/^>\s*$/m);
    await tty.terminal.type("go");
    await tty.terminal.keys("Enter");
    expect(await tty.terminal.waitFor(/Gate passed\.\n>/)).toMatch(/✓ gated gate\n {2}LIVE-STEP released\n/);
    await tty.terminal.keys("C-d");
    await tty.terminal.waitFor(/\[awl exited 0\]/);
    await tty.reopen();

    const [file] = readdirSync(join(home, ".local", "share", "awl", "sessions")).filter((f) => f.endsWith(".jsonl"));
    await launch([], undefined, {}, { home, args: ["-r", file!.slice(0, -".jsonl".length)] });
    const screen = await tty.terminal.waitFor(/continue below/);
    expect(screen).toMatch(/> go\n✓ gated gate\n {2}LIVE-STEP released\nGate passed\.\n/);
    expect(screen).not.toContain('{"gate"');
  });

  it("a SIGTERM mid-tool leaves the block final (stopped), not a live header", async () => {
    const gate = join(tempDir("awl-gate-"), "never");
    tty.server.enqueue({ body: openaiToolCalls([{ id: "g1", name: "gated", input: { gate } }]) });
    const home = await launch([], undefined, { "gated.lua": GATED }, { args: ["--allow", "gated"] });
    await tty.terminal.waitFor(/^>\s*$/m);
    await tty.send("go");
    await tty.terminal.waitFor(/[⠀-⣿] gated gate(?: \d+s)?\n {2}LIVE-STEP waiting\n/);
    const dir = join(home, ".local", "share", "awl", "sessions");
    const lock = readdirSync(dir).find((f) => f.endsWith(".lock"))!;
    process.kill(Number(readFileSync(join(dir, lock), "utf8")), "SIGTERM");
    const screen = await tty.terminal.waitFor(/\[awl exited 143\]/);
    expect(screen).toMatch(/> go\n⊘ gated gate(?: \d+s)?\n {2}LIVE-STEP waiting\n {2}stopped: awl was ended\n\[awl exited 143\]/);
    expect(screen).not.toContain("…");
  });

  it("shows what a tool prints inside its block, with no stale copy of the block left", async () => {
    const dir = tempDir("awl-gate-");
    const [gate, logGate] = [join(dir, "open"), join(dir, "log")];
    tty.server.enqueue({ body: openaiToolCalls([{ id: "g1", name: "gated", input: { gate, log_gate: logGate } }]) }, openaiAnswer("Gate passed."));
    await launch([], undefined, { "gated.lua": GATED }, { args: ["--allow", "gated"] });
    await tty.terminal.waitFor(/^>\s*$/m);
    await tty.terminal.type("go");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/LIVE-STEP waiting/);
    writeFileSync(logGate, "");
    await tty.terminal.waitFor(/[⠀-⣿] gated gate(?: \d+s)?\n {2}LIVE-STEP waiting\n {2}LOG-LINE\n/);
    writeFileSync(gate, "");
    const screen = await tty.terminal.waitFor(/Gate passed\.\n>/);
    expect(screen).toMatch(/> go\n✓ gated gate\n {2}LIVE-STEP released\n {2}LOG-LINE\nGate passed\.\n>/);
    expect(screen.match(/gated gate/g)).toHaveLength(1);
  });
});
