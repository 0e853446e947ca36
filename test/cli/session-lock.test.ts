/**
 * One writer per session through the built `awl`: a `-c` while another running awl holds the session's lock
 * is refused before anything is sent; a lock left by an awl that is gone is taken over.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SessionStore } from "../../src/session/index.js";
import { sseData, startReplayServer, type ReplayServer } from "../support/replay-server.js";
import { runAwl, tempDir } from "./run-awl.js";

let server: ReplayServer;
let home: string;
beforeEach(async () => {
  server = await startReplayServer();
  home = tempDir("awl-lock-home-");
});
afterEach(() => server.close());

const sessionsDir = () => join(home, ".local", "share", "awl", "sessions");

function awl(args: string[]) {
  return runAwl(["--provider", "openai", "--base-url", `${server.url}/v1`, "--model", "m", "--max-retries", "0", ...args], {
    env: { HOME: home, AWL_API_KEY: "sk-test-LOCK-0123456789" },
    cwd: home,
  });
}

function textAnswer(text: string) {
  return {
    body: sseData([
      { choices: [{ index: 0, delta: { role: "assistant", content: text } }] },
      { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
      "[DONE]",
    ]),
  };
}

/** Runs one turn so the directory has a session; its id. */
async function firstSession(): Promise<string> {
  server.enqueue(textAnswer("Hi."));
  expect((await awl(["-p", "hi"])).code).toBe(0);
  const ids = new SessionStore(sessionsDir()).ids();
  if (!ids.ok || ids.value.length !== 1) throw new Error("expected one session");
  return ids.value[0]!;
}

/** A pid no process has (pids are below 2^22 on Linux; this one is far above). */
const DEAD_PID = 2 ** 30 + 7;

describe("session lock", () => {
  it("the lock is gone once awl exits", async () => {
    const id = await firstSession();
    expect(existsSync(join(sessionsDir(), `${id}.lock`))).toBe(false);
  });

  it("refuses -c while a running process holds the lock, naming its pid, and sends nothing", async () => {
    const id = await firstSession();
    const lock = join(sessionsDir(), `${id}.lock`);
    writeFileSync(lock, `${process.pid}\n`); // this test's own process: alive
    const sentBefore = server.requests.length;
    const run = await awl(["-p", "-c", "go on"]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`session ${id} is in use by another awl (pid ${process.pid})`);
    expect(run.stderr).toContain("wait for it to finish");
    expect(run.stderr).toContain("awl -r");
    expect(server.requests.length).toBe(sentBefore);
    expect(existsSync(lock)).toBe(true); // someone else's lock is left alone
  });

  it("takes over a stale lock (its pid is not running) and the turn works", async () => {
    const id = await firstSession();
    const lock = join(sessionsDir(), `${id}.lock`);
    writeFileSync(lock, `${DEAD_PID}\n`);
    server.enqueue(textAnswer("Going on."));
    const run = await awl(["-p", "-c", "go on"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Going on.");
    expect(existsSync(lock)).toBe(false);
    const loaded = new SessionStore(sessionsDir()).load(id);
    expect(loaded.ok && loaded.value.conversation.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
  });
});
