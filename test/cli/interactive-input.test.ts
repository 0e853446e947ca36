/**
 * The interactive prompt in a real terminal (tmux): paste, new lines, typing during a turn, Esc, closing the
 * terminal, slash commands, and how the model's text is laid out — against the local replay server.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openaiAnswer } from "./openai-answer.js";
import { awlCommand, tmuxTest } from "./tmux-terminal.js";
import { conversationSent } from "../support/sent.js";

const tty = tmuxTest();

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
    tty.server.enqueue(openaiAnswer("Pasted."), openaiAnswer("Typed."));
    await tty.start();
    await tty.terminal.paste("first line\nsecond line\nthird line");
    await tty.terminal.waitFor(/> first line\n {2}second line\n {2}third line/);
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/Pasted\.\n>/);
    expect(tty.server.requests).toHaveLength(1);
    expect(conversationSent(tty.server.requests[0]!.json())).toEqual([{ role: "user", content: "first line\nsecond line\nthird line" }]);

    await tty.terminal.type("alpha");
    await tty.terminal.keys("M-Enter");
    await tty.terminal.type("beta\\");
    await tty.terminal.keys("Enter");
    await tty.terminal.type("gamma");
    await tty.terminal.waitFor(/> alpha\n {2}beta\n {2}gamma/);
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/Typed\.\n>/);
    expect(tty.server.requests).toHaveLength(2);
    expect(conversationSent(tty.server.requests[1]!.json()).at(-1)).toEqual({ role: "user", content: "alpha\nbeta\ngamma" });
  });

  it("one Ctrl-C cancels a turn started by a multi-line paste", async () => {
    tty.server.enqueue(slowAnswer(COUNTING));
    await tty.start();
    await tty.terminal.paste("a\nb\nc\nd");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/one two/);
    await tty.terminal.keys("C-c");
    await tty.terminal.waitFor(/\(cancelled; a partial answer is not kept\)\n>\s*$/m);
    // Nothing else was sent: the four lines were one prompt.
    expect(tty.server.requests).toHaveLength(1);
  });

  it("never echoes keys typed during a turn into the answer; Enter queues a prompt, shown before its answer", async () => {
    tty.server.enqueue(slowAnswer(COUNTING), openaiAnswer("Queued answer."));
    await tty.start();
    await tty.terminal.type("count");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/one two/);
    await tty.terminal.type("next question");
    await tty.terminal.keys("Enter");
    await tty.terminal.type("draft");
    const screen = await tty.terminal.waitFor(/Queued answer\.\n> draft/);
    expect(screen).toMatch(/> count\none two three .*sixteen\n> next question\nQueued answer\.\n> draft\s*(?:\n.*↑\S+ ↓\S+.*)?\s*$/s);
    expect(screen.match(/next question/g)).toHaveLength(1);
    // The draft was never sent.
    expect(tty.server.requests).toHaveLength(2);
    expect(conversationSent(tty.server.requests[1]!.json()).at(-1)).toEqual({ role: "user", content: "next question" });
  });

  it("Esc cancels the running turn like Ctrl-C; what was queued comes back to the prompt unsent", async () => {
    tty.server.enqueue(slowAnswer(COUNTING), openaiAnswer("After."));
    await tty.start();
    await tty.terminal.type("count");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/one two/);
    await tty.terminal.type("queued");
    await tty.terminal.keys("Enter");
    await tty.terminal.keys("Escape");
    const screen = await tty.terminal.waitFor(/\(cancelled; a partial answer is not kept\)\n> queued\s*(?:\n.*↑\S+ ↓\S+.*)?\s*$/);
    expect(screen).not.toContain("sixteen");
    expect(tty.server.requests).toHaveLength(1);
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/After\.\n>/);
    expect(conversationSent(tty.server.requests[1]!.json()).at(-1)).toEqual({
      role: "user",
      content: "count\n\n[awl: the request above got no answer: the user cancelled it]\n\nqueued",
    });
  });

  it('shows a prompt given on the command line as "> prompt", and Up recalls it', async () => {
    tty.server.enqueue(openaiAnswer("From the arguments."));
    await tty.launch({ args: ["what is up?"] });
    await tty.terminal.waitFor(/> what is up\?\nFrom the arguments\.\n>/);
    await tty.terminal.keys("Up");
    await tty.terminal.waitFor(/From the arguments\.\n> what is up\?\s*(?:\n.*↑\S+ ↓\S+.*)?\s*$/);
  });

  it("closing the terminal with a half-typed prompt never sends it; the session stays as it was", async () => {
    tty.server.enqueue(openaiAnswer("Saved."));
    const home = await tty.start();
    await tty.terminal.type("first");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/Saved\.\n>/);
    const [file] = sessionFiles(home);
    const pid = Number(readFileSync(file!.replace(/\.jsonl$/, ".lock"), "utf8"));
    await tty.terminal.type("half typed, never sent");
    await tty.terminal.waitFor(/> half typed/);
    await tty.terminal.stop(); // the terminal goes away: SIGHUP, and the end of input
    await waitForExit(pid);

    expect(tty.server.requests).toHaveLength(1);
    expect(savedMessages(home)).toEqual([
      { role: "user", content: [{ type: "text", text: "first" }] },
      expect.objectContaining({ role: "assistant", content: [{ type: "text", text: "Saved." }] }),
    ]);
  });

  it("Ctrl-Z suspends awl as a shell job with the terminal as it was; fg brings the prompt back, text kept", async () => {
    tty.server.enqueue(openaiAnswer("Back again."));
    await tty.terminal.start("env -i PATH=/usr/bin:/bin TERM=xterm-256color bash --norc --noprofile -i");
    await tty.terminal.type(`PS1='$ '; ${awlCommand(tty.server).command}`);
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/^>\s*$/m);
    await tty.terminal.type("half");
    await tty.terminal.keys("C-z");
    await tty.terminal.waitFor(/Stopped[\s\S]*^\$\s*$/m);
    // Meanwhile the shell has the terminal.
    await tty.terminal.type("echo shell-$((6*7))");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/^shell-42$/m);
    await tty.terminal.type("fg");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/^> half\s*$/m);
    await tty.terminal.type(" done");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/Back again\.\n>/);
    expect(conversationSent(tty.server.requests[0]!.json())).toEqual([{ role: "user", content: "half done" }]);
  });

  it("slash commands: any case, a space after the slash, Tab completes; /help lists the keys", async () => {
    await tty.start();
    await tty.terminal.type("/HELP");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/Alt-Enter.*new line/);
    const help = await tty.terminal.screen();
    for (const key of ["Enter", "Ctrl-C, Esc", "Ctrl-D", "Tab"]) expect(help).toContain(key);
    await tty.terminal.type("/ model");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/model: openai gpt-test/);
    // "/mo" is both /model and /mode: Tab completes what they share, a second Tab lists them.
    await tty.terminal.type("/mo");
    await tty.terminal.keys("Tab");
    await tty.terminal.waitFor(/> \/mode\s*$/m);
    await tty.terminal.keys("Tab");
    await tty.terminal.waitFor(/\/model {2}\/mode\n/);
    await tty.terminal.type("l");
    await tty.terminal.keys("Tab");
    await tty.terminal.waitFor(/> \/model\s*$/m);
    await tty.terminal.type("other");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/model: openai other/);
    await tty.terminal.type("/exi"); // "/ex" is also /extensions
    await tty.terminal.keys("Tab", "Enter");
    await tty.terminal.waitFor(/\[awl exited 0\]/);
  });
});

describe("a turn that got no answer", () => {
  it("keeps the prompt; the next one carries a note saying what happened, sent as one user message, saved and resumed alike", async () => {
    tty.server.enqueue(slowAnswer(COUNTING), { status: 400, headers: { "content-type": "application/json" }, body: '{"error":{"message":"bad thing"}}' });
    tty.server.enqueue(openaiAnswer("Third time lucky."));
    const home = await tty.start();
    await tty.terminal.type("first");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/one two/);
    await tty.terminal.keys("C-c");
    await tty.terminal.waitFor(/\(cancelled; a partial answer is not kept\)\n>/);
    await tty.terminal.type("second");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/bad thing/);
    await tty.terminal.waitFor(/^>\s*$/m);
    await tty.terminal.type("third");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/Third time lucky\.\n>/);

    const cancelled = "[awl: the request above got no answer: the user cancelled it]";
    const failed = "[awl: the request above got no answer: it failed (bad_request, HTTP 400)]";
    expect(conversationSent(tty.server.requests[2]!.json())).toEqual([{ role: "user", content: `first\n\n${cancelled}\n\nsecond\n\n${failed}\n\nthird` }]);
    const text = (...texts: string[]) => ({ role: "user", content: texts.map((t) => ({ type: "text", text: t })) });
    expect(savedMessages(home)).toEqual([
      text("first"),
      text(cancelled, "second"),
      text(failed, "third"),
      expect.objectContaining({ role: "assistant", content: [{ type: "text", text: "Third time lucky." }] }),
    ]);

    // Resumed, the conversation sent is the same one.
    await tty.terminal.keys("C-d");
    await tty.terminal.waitFor(/\[awl exited 0\]/);
    await tty.reopen();
    tty.server.enqueue(openaiAnswer("Resumed."));
    await tty.launch({ home, args: ["-c"] });
    await tty.terminal.waitFor(/continue below[\s\S]*^>\s*$/m);
    const history = await tty.terminal.screen();
    expect(history).toMatch(/> first\n\[awl: the request above got no answer: the user cancelled it\]\n> second\n/);
    await tty.terminal.type("fourth");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/Resumed\.\n>/);
    expect(conversationSent(tty.server.requests[3]!.json()).slice(0, 2)).toEqual(conversationSent(tty.server.requests[2]!.json()).concat({ role: "assistant", content: "Third time lucky." }));
  });

  it("after a session that stopped mid-turn, the next prompt says the request got no answer", async () => {
    tty.server.enqueue({ body: [], ending: "hang" });
    const home = await tty.start();
    await tty.terminal.type("lost");
    await tty.terminal.keys("Enter");
    await tty.server.waitForRequests(1);
    const [file] = sessionFiles(home);
    const pid = Number(readFileSync(file!.replace(/\.jsonl$/, ".lock"), "utf8"));
    process.kill(pid, "SIGKILL");
    await waitForExit(pid);
    await tty.reopen();
    tty.server.enqueue(openaiAnswer("Back."));
    await tty.launch({ home, args: ["-c"] });
    await tty.terminal.waitFor(/continue below[\s\S]*^>\s*$/m);
    await tty.terminal.type("again");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/Back\.\n>/);
    await tty.terminal.type("/sessions");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/most recent first[\s\S]*?\n {2}\d{8}-\S+ {2}just now {2}3 messages {2}lost {2}\(current\)\n/);
    expect(conversationSent(tty.server.requests[1]!.json())).toEqual([
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
