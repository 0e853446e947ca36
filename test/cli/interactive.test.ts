/** The interactive mode in a real terminal (tmux), against the local replay server. */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startReplayServer, type ReplayServer } from "../support/replay-server.js";
import { AWL, tempDir } from "./run-awl.js";
import { openaiAnswer } from "./openai-answer.js";

const run = promisify(execFile);

/** One tmux server per test, on its own socket, so nothing else on the machine is touched. */
class Terminal {
  private readonly socket = `awl-test-${process.pid}-${Math.random().toString(36).slice(2)}`;

  async start(command: string): Promise<void> {
    await this.tmux("new-session", "-d", "-s", "awl", "-x", "100", "-y", "30", command);
  }

  async keys(...keys: string[]): Promise<void> {
    await this.tmux("send-keys", "-t", "awl", ...keys);
  }

  async type(text: string): Promise<void> {
    await this.tmux("send-keys", "-t", "awl", "-l", text);
  }

  async screen(): Promise<string> {
    return (await this.tmux("capture-pane", "-p", "-t", "awl")).stdout;
  }

  /** Waits until the screen matches (a generous limit; no timing is asserted). */
  async waitFor(pattern: RegExp, limitMs = 15_000): Promise<string> {
    const deadline = Date.now() + limitMs;
    for (;;) {
      const screen = await this.screen();
      if (pattern.test(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`the terminal never showed ${pattern}; it shows:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async stop(): Promise<void> {
    await this.tmux("kill-server").catch(() => {});
  }

  private tmux(...args: string[]) {
    return run("tmux", ["-L", this.socket, "-f", "/dev/null", ...args]);
  }
}

let server: ReplayServer;
let terminal: Terminal;
beforeEach(async () => {
  server = await startReplayServer();
  terminal = new Terminal();
  const home = tempDir("awl-home-");
  const env = [`PATH=${process.env.PATH}`, `HOME=${home}`, `XDG_CONFIG_HOME=${join(home, ".config")}`, "TERM=xterm-256color",
    `AWL_BASE_URL=${server.url}/v1`, "AWL_API_KEY=sk-test", "AWL_MODEL=gpt-test"];
  // When awl exits the shell prints its exit code, so the test can see it.
  await terminal.start(`env -i ${env.join(" ")} ${process.execPath} ${AWL}; echo "[awl exited $?]"; sleep 60`);
});
afterEach(async () => {
  await terminal.stop();
  await server.close();
});

describe("awl interactive", () => {
  it("holds a two-turn conversation (the history is sent) and exits on Ctrl-D", async () => {
    server.enqueue(openaiAnswer("Nice to meet you, Ada."), openaiAnswer("Your name is Ada."));
    await terminal.waitFor(/^>\s*$/m);
    await terminal.type("My name is Ada.");
    await terminal.keys("Enter");
    await terminal.waitFor(/Nice to meet you, Ada\.\n>/);
    await terminal.type("What is my name?");
    await terminal.keys("Enter");
    await terminal.waitFor(/Your name is Ada\.\n>/);

    const second = server.requests[1]!.json();
    expect(second.messages).toEqual([
      { role: "user", content: "My name is Ada." },
      { role: "assistant", content: "Nice to meet you, Ada." },
      { role: "user", content: "What is my name?" },
    ]);
    await terminal.keys("C-d");
    await terminal.waitFor(/\[awl exited 0\]/);
  });

  it("Ctrl-C cancels a streaming answer, and the next prompt works", async () => {
    const slow = openaiAnswer("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen").body.map((data) => ({ data, delayMs: 40 }));
    server.enqueue({ body: slow }, openaiAnswer("Still here."));
    await terminal.waitFor(/^>\s*$/m);
    await terminal.type("Count slowly.");
    await terminal.keys("Enter");
    await terminal.waitFor(/one two/);
    await terminal.keys("C-c");
    const screen = await terminal.waitFor(/\(cancelled; a partial answer is not kept\)\n>/);
    expect(screen).not.toContain("fifteen");

    await terminal.type("Are you there?");
    await terminal.keys("Enter");
    await terminal.waitFor(/Still here\.\n>/);
    // The cancelled answer was not kept: the next request holds both prompts and no half-streamed message.
    expect(server.requests[1]!.json().messages).toEqual([
      { role: "user", content: "Count slowly." },
      { role: "user", content: "Are you there?" },
    ]);

    await terminal.keys("C-c");
    await terminal.waitFor(/press Ctrl-C again/);
    await terminal.keys("C-c");
    await terminal.waitFor(/\[awl exited 0\]/);
  });

  it("streams live, and says so when a cut-off answer is discarded and retried", async () => {
    const bytes = Buffer.concat(openaiAnswer("half whole").body);
    server.enqueue({ body: [bytes.subarray(0, bytes.indexOf("data: ", bytes.indexOf("half ")))] }, openaiAnswer("whole answer"));
    await terminal.waitFor(/^>\s*$/m);
    await terminal.type("hi");
    await terminal.keys("Enter");
    const screen = await terminal.waitFor(/whole answer\n>/);
    expect(screen).toMatch(/half *\nawl: the answer above was cut off; it is discarded and asked for again\nawl: truncated; retry 1\/3 in [\d.]+ s\nwhole answer\n>/);
    // Only the good answer is in the conversation.
    server.enqueue(openaiAnswer("ok"));
    await terminal.type("again");
    await terminal.keys("Enter");
    await terminal.waitFor(/ok\n>/);
    expect(server.requests[2]!.json().messages[1]).toEqual({ role: "assistant", content: "whole answer" });
  });

  it("runs slash commands: /help, /model, unknown ones, /exit", async () => {
    server.enqueue(openaiAnswer("From the other model."));
    await terminal.waitFor(/^>\s*$/m);
    await terminal.type("/help");
    await terminal.keys("Enter");
    await terminal.waitFor(/\/model \[PROVIDER\] NAME/);
    await terminal.type("/model other-model");
    await terminal.keys("Enter");
    await terminal.waitFor(/model: openai other-model/);
    await terminal.type("/frob");
    await terminal.keys("Enter");
    await terminal.waitFor(/unknown command \/frob/);
    await terminal.type("hello");
    await terminal.keys("Enter");
    await terminal.waitFor(/From the other model\.\n>/);
    expect(server.requests[0]!.json().model).toBe("other-model");
    await terminal.type("/exit");
    await terminal.keys("Enter");
    await terminal.waitFor(/\[awl exited 0\]/);
  });
});
