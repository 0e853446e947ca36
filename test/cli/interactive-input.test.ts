/**
 * The interactive prompt in a real terminal (tmux): paste, new lines, typing during a turn, Esc, closing the
 * terminal, slash commands, and how the model's text is laid out — against the local replay server.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startReplayServer, type ReplayServer } from "../support/replay-server.js";
import { openaiAnswer } from "./openai-answer.js";
import { awlCommand, launchAwl, Terminal, type LaunchOptions } from "./tmux-terminal.js";

let server: ReplayServer;
let terminal: Terminal;
beforeEach(async () => {
  server = await startReplayServer();
  terminal = new Terminal();
});
afterEach(async () => {
  await terminal.stop();
  await server.close();
});

async function start(options: LaunchOptions = {}): Promise<string> {
  const home = await launchAwl(terminal, server, options);
  await terminal.waitFor(/^>\s*$/m);
  return home;
}

/** An answer streamed slowly enough to type while it runs: one event (a word) at a time. */
function slowAnswer(text: string, delayMs = 150): { body: { data: string; delayMs: number }[] } {
  const events = Buffer.concat(openaiAnswer(text).body).toString().split(/(?=data: )/);
  return { body: events.map((data) => ({ data, delayMs })) };
}

const COUNTING = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen";

function sessionFiles(home: string): string[] {
  const dir = join(home, ".local", "share", "awl", "sessions");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => join(dir, f));
}

function savedMessages(home: string): { role: string; content: { type: string; text?: string }[] }[] {
  const [file] = sessionFiles(home);
  return readFileSync(file!, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.type === "message")
    .map((entry) => entry.message);
}

describe("the prompt", () => {
  it("sends a multi-line paste as one prompt, newlines kept; Alt-Enter and a trailing backslash add lines", async () => {
    server.enqueue(openaiAnswer("Pasted."), openaiAnswer("Typed."));
    await start();
    await terminal.paste("first line\nsecond line\nthird line");
    await terminal.waitFor(/> first line\n {2}second line\n {2}third line/);
    await terminal.keys("Enter");
    await terminal.waitFor(/Pasted\.\n>/);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.json().messages).toEqual([{ role: "user", content: "first line\nsecond line\nthird line" }]);

    await terminal.type("alpha");
    await terminal.keys("M-Enter");
    await terminal.type("beta\\");
    await terminal.keys("Enter");
    await terminal.type("gamma");
    await terminal.waitFor(/> alpha\n {2}beta\n {2}gamma/);
    await terminal.keys("Enter");
    await terminal.waitFor(/Typed\.\n>/);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.json().messages.at(-1)).toEqual({ role: "user", content: "alpha\nbeta\ngamma" });
  });

  it("one Ctrl-C cancels a turn started by a multi-line paste", async () => {
    server.enqueue(slowAnswer(COUNTING));
    await start();
    await terminal.paste("a\nb\nc\nd");
    await terminal.keys("Enter");
    await terminal.waitFor(/one two/);
    await terminal.keys("C-c");
    await terminal.waitFor(/\(cancelled; a partial answer is not kept\)\n>\s*$/m);
    // Nothing else was sent: the four lines were one prompt.
    expect(server.requests).toHaveLength(1);
  });

  it("never echoes keys typed during a turn into the answer; Enter queues a prompt, shown before its answer", async () => {
    server.enqueue(slowAnswer(COUNTING), openaiAnswer("Queued answer."));
    await start();
    await terminal.type("count");
    await terminal.keys("Enter");
    await terminal.waitFor(/one two/);
    await terminal.type("next question");
    await terminal.keys("Enter");
    await terminal.type("draft");
    const screen = await terminal.waitFor(/Queued answer\.\n> draft/);
    expect(screen).toMatch(/> count\none two three .*sixteen\n> next question\nQueued answer\.\n> draft\s*$/s);
    expect(screen.match(/next question/g)).toHaveLength(1);
    // The draft was never sent.
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.json().messages.at(-1)).toEqual({ role: "user", content: "next question" });
  });

  it("Esc cancels the running turn like Ctrl-C; what was queued comes back to the prompt unsent", async () => {
    server.enqueue(slowAnswer(COUNTING), openaiAnswer("After."));
    await start();
    await terminal.type("count");
    await terminal.keys("Enter");
    await terminal.waitFor(/one two/);
    await terminal.type("queued");
    await terminal.keys("Enter");
    await terminal.keys("Escape");
    const screen = await terminal.waitFor(/\(cancelled; a partial answer is not kept\)\n> queued\s*$/);
    expect(screen).not.toContain("sixteen");
    expect(server.requests).toHaveLength(1);
    await terminal.keys("Enter");
    await terminal.waitFor(/After\.\n>/);
    expect(server.requests[1]!.json().messages.at(-1)).toEqual({
      role: "user",
      content: "count\n\n[awl: the request above got no answer: the user cancelled it]\n\nqueued",
    });
  });

  it('shows a prompt given on the command line as "> prompt", and Up recalls it', async () => {
    server.enqueue(openaiAnswer("From the arguments."));
    await launchAwl(terminal, server, { args: ["what is up?"] });
    await terminal.waitFor(/> what is up\?\nFrom the arguments\.\n>/);
    await terminal.keys("Up");
    await terminal.waitFor(/From the arguments\.\n> what is up\?\s*$/);
  });

  it("closing the terminal with a half-typed prompt never sends it; the session stays as it was", async () => {
    server.enqueue(openaiAnswer("Saved."));
    const home = await start();
    await terminal.type("first");
    await terminal.keys("Enter");
    await terminal.waitFor(/Saved\.\n>/);
    const [file] = sessionFiles(home);
    const pid = Number(readFileSync(file!.replace(/\.jsonl$/, ".lock"), "utf8"));
    await terminal.type("half typed, never sent");
    await terminal.waitFor(/> half typed/);
    await terminal.stop(); // the terminal goes away: SIGHUP, and the end of input
    await waitForExit(pid);

    expect(server.requests).toHaveLength(1);
    expect(savedMessages(home)).toEqual([
      { role: "user", content: [{ type: "text", text: "first" }] },
      expect.objectContaining({ role: "assistant", content: [{ type: "text", text: "Saved." }] }),
    ]);
  });

  it("Ctrl-Z suspends awl as a shell job with the terminal as it was; fg brings the prompt back, text kept", async () => {
    server.enqueue(openaiAnswer("Back again."));
    await terminal.start("env -i PATH=/usr/bin:/bin TERM=xterm-256color bash --norc --noprofile -i");
    await terminal.type(`PS1='$ '; ${awlCommand(server).command}`);
    await terminal.keys("Enter");
    await terminal.waitFor(/^>\s*$/m);
    await terminal.type("half");
    await terminal.keys("C-z");
    await terminal.waitFor(/Stopped[\s\S]*^\$\s*$/m);
    // Meanwhile the shell has the terminal.
    await terminal.type("echo shell-$((6*7))");
    await terminal.keys("Enter");
    await terminal.waitFor(/^shell-42$/m);
    await terminal.type("fg");
    await terminal.keys("Enter");
    await terminal.waitFor(/^> half\s*$/m);
    await terminal.type(" done");
    await terminal.keys("Enter");
    await terminal.waitFor(/Back again\.\n>/);
    expect(server.requests[0]!.json().messages).toEqual([{ role: "user", content: "half done" }]);
  });

  it("slash commands: any case, a space after the slash, Tab completes; /help lists the keys", async () => {
    await start();
    await terminal.type("/HELP");
    await terminal.keys("Enter");
    await terminal.waitFor(/Alt-Enter.*new line/);
    const help = await terminal.screen();
    for (const key of ["Enter", "Ctrl-C, Esc", "Ctrl-D", "Tab"]) expect(help).toContain(key);
    await terminal.type("/ model");
    await terminal.keys("Enter");
    await terminal.waitFor(/model: openai gpt-test/);
    await terminal.type("/mo");
    await terminal.keys("Tab");
    await terminal.waitFor(/> \/model\s*$/m);
    await terminal.type("other");
    await terminal.keys("Enter");
    await terminal.waitFor(/model: openai other/);
    await terminal.type("/ex");
    await terminal.keys("Tab", "Enter");
    await terminal.waitFor(/\[awl exited 0\]/);
  });
});

describe("a turn that got no answer", () => {
  it("keeps the prompt; the next one carries a note saying what happened, sent as one user message, saved and resumed alike", async () => {
    server.enqueue(slowAnswer(COUNTING), { status: 400, headers: { "content-type": "application/json" }, body: '{"error":{"message":"bad thing"}}' });
    server.enqueue(openaiAnswer("Third time lucky."));
    const home = await start();
    await terminal.type("first");
    await terminal.keys("Enter");
    await terminal.waitFor(/one two/);
    await terminal.keys("C-c");
    await terminal.waitFor(/\(cancelled; a partial answer is not kept\)\n>/);
    await terminal.type("second");
    await terminal.keys("Enter");
    await terminal.waitFor(/bad thing/);
    await terminal.waitFor(/^>\s*$/m);
    await terminal.type("third");
    await terminal.keys("Enter");
    await terminal.waitFor(/Third time lucky\.\n>/);

    const cancelled = "[awl: the request above got no answer: the user cancelled it]";
    const failed = "[awl: the request above got no answer: it failed (bad_request, HTTP 400)]";
    expect(server.requests[2]!.json().messages).toEqual([{ role: "user", content: `first\n\n${cancelled}\n\nsecond\n\n${failed}\n\nthird` }]);
    const text = (...texts: string[]) => ({ role: "user", content: texts.map((t) => ({ type: "text", text: t })) });
    expect(savedMessages(home)).toEqual([
      text("first"),
      text(cancelled, "second"),
      text(failed, "third"),
      expect.objectContaining({ role: "assistant", content: [{ type: "text", text: "Third time lucky." }] }),
    ]);

    // Resumed, the conversation sent is the same one.
    await terminal.keys("C-d");
    await terminal.waitFor(/\[awl exited 0\]/);
    await terminal.stop();
    terminal = new Terminal();
    server.enqueue(openaiAnswer("Resumed."));
    await launchAwl(terminal, server, { home, args: ["-c"] });
    await terminal.waitFor(/continue below[\s\S]*^>\s*$/m);
    const history = await terminal.screen();
    expect(history).toMatch(/> first\n\[awl: the request above got no answer: the user cancelled it\]\n> second\n/);
    await terminal.type("fourth");
    await terminal.keys("Enter");
    await terminal.waitFor(/Resumed\.\n>/);
    expect(server.requests[3]!.json().messages.slice(0, 2)).toEqual(server.requests[2]!.json().messages.concat({ role: "assistant", content: "Third time lucky." }));
  });

  it("after a session that stopped mid-turn, the next prompt says the request got no answer", async () => {
    server.enqueue({ body: [], ending: "hang" });
    const home = await start();
    await terminal.type("lost");
    await terminal.keys("Enter");
    await server.waitForRequests(1);
    const [file] = sessionFiles(home);
    const pid = Number(readFileSync(file!.replace(/\.jsonl$/, ".lock"), "utf8"));
    process.kill(pid, "SIGKILL");
    await waitForExit(pid);
    await terminal.stop();

    terminal = new Terminal();
    server.enqueue(openaiAnswer("Back."));
    await launchAwl(terminal, server, { home, args: ["-c"] });
    await terminal.waitFor(/continue below[\s\S]*^>\s*$/m);
    await terminal.type("again");
    await terminal.keys("Enter");
    await terminal.waitFor(/Back\.\n>/);
    await terminal.type("/resume");
    await terminal.keys("Enter");
    await terminal.waitFor(/most recent first.*\n {2}\d{8}-\S+ {2}just now {2}3 messages {2}lost\n/);
    expect(server.requests[1]!.json().messages).toEqual([
      { role: "user", content: "lost\n\n[awl: the request above got no answer (awl stopped before it came)]\n\nagain" },
    ]);
  });
});

/** Resolves once the process `pid` is gone (polling; a generous limit). */
async function waitForExit(pid: number, limitMs = 15_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    if (Date.now() > deadline) throw new Error(`awl (pid ${pid}) did not exit`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
