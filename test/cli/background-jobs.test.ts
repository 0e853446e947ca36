/**
 * Background commands (docs/std-tools.md, "Background commands"): `bash` with `run_in_background` returns at once
 * with a job id; `bash_output` reads the new output (waiting for a pattern), `bash_stop` stops a job; `/jobs` lists
 * them; a turn's end names those still running; awl's exit leaves none (checked with `ps` by process group). Bad
 * input: a job that prints without end, too many jobs, stopping a finished one, an id that does not exist.
 */
import { execFileSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { openaiToolCalls } from "../e2e/support.js";
import type { LoggedRequest } from "../support/replay-server.js";
import { noneLeft, waitUntil } from "../support/processes.js";
import { openaiAnswer } from "./openai-answer.js";
import { serverPerTest } from "./reach-support.js";
import { runAwl } from "./run-awl.js";
import { tmuxTest } from "./tmux-terminal.js";

const tty = tmuxTest();
const live = serverPerTest();

/** The tool results the request carries, in order (OpenAI `role: "tool"` messages). */
function results(request: LoggedRequest): string[] {
  const messages = (request.json() as { messages: { role: string; content: string }[] }).messages;
  return messages.filter((m) => m.role === "tool").map((m) => m.content);
}

/** Whether any process of group `pgid` is alive (zombies are dead). */
function groupAlive(pgid: number): boolean {
  const out = execFileSync("ps", ["-eo", "pgid=,stat="], { encoding: "utf8" });
  return out.split("\n").some((line) => {
    const [group, stat] = line.trim().split(/\s+/);
    return Number(group) === pgid && !stat!.startsWith("Z");
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const pidOf = (text: string): number => Number(/\(pid (\d+)\)/.exec(text)?.[1]);
/** Sleeps of a length no other process uses. */
const sleepLength = (n: number): string => `${500 + n}.${process.pid}${Math.floor(Math.random() * 1e5)}`;

describe("background commands in print mode", () => {
  it("a server started in the background answers a later tool call; awl's exit leaves no process of its group", { timeout: 90_000 }, async () => {
    const { cwd, home, env } = live.setUp();
    const port = await freePort();
    const node = process.execPath;
    const server = `${node} -e "require('http').createServer((q, s) => s.end('hello from job1')).listen(${port}, '127.0.0.1', () => console.log('listening on ${port}'))"`;
    live.server.enqueue(
      { body: openaiToolCalls([{ id: "b1", name: "bash", input: { command: server, run_in_background: true } }]) },
      { body: openaiToolCalls([{ id: "o1", name: "bash_output", input: { id: "job1", wait_for: "listening on \\d+" } }]) },
      { body: openaiToolCalls([{ id: "c1", name: "bash", input: { command: `curl -s http://127.0.0.1:${port}/` } }]) },
      openaiAnswer("It answers."),
    );
    const run = await runAwl(["-p", "--allow", "bash", "start the server and try it"], { cwd, env: { ...env, HOME: home } });
    expect(run.code, run.stderr).toBe(0);
    const [, , , last] = live.server.requests;
    const [started, output, fetched] = results(last!);
    expect(started).toMatch(/^Started job1 in the background \(pid \d+\)/);
    expect(output).toContain(`listening on ${port}`);
    expect(output).toContain("[job1 is running]");
    expect(fetched).toContain("hello from job1");
    // The run named the job it stopped, and its whole process group is gone.
    expect(run.stderr).toContain("1 background job still running: job1");
    const pgid = pidOf(started!);
    await waitUntil(() => !groupAlive(pgid), `process group ${pgid} to be gone`);
  });

  it("a job that prints without end is capped and spilled; a finished job, an unknown id and the 17th job are answered clearly", { timeout: 120_000 }, async () => {
    const { cwd, home, env } = live.setUp();
    const sleeps = Array.from({ length: 17 }, (_, i) => sleepLength(i));
    live.server.enqueue(
      {
        body: openaiToolCalls([
          { id: "b1", name: "bash", input: { command: "yes 'a line of output that never ends'", run_in_background: true } },
          { id: "b2", name: "bash", input: { command: "echo short and done", run_in_background: true } },
        ]),
      },
      {
        body: openaiToolCalls([
          { id: "o1", name: "bash_output", input: { id: "job1", timeout: 2 } },
          { id: "o2", name: "bash_output", input: { id: "job2", wait_for: "never printed", timeout: 30 } },
          { id: "s2", name: "bash_stop", input: { id: "job2" } },
          { id: "o9", name: "bash_output", input: { id: "job9" } },
          // awl's own memory while the flood runs (bash's shell is a child of awl's main thread).
          { id: "m1", name: "bash", input: { command: "ps -o rss= -p $PPID" } },
          { id: "s1", name: "bash_stop", input: { id: "job1" } },
        ]),
      },
      { body: openaiToolCalls(sleeps.map((length, i) => ({ id: `z${i}`, name: "bash", input: { command: `sleep ${length}`, run_in_background: true } }))) },
      openaiAnswer("Seen."),
    );
    const run = await runAwl(["-p", "--allow", "bash", "try the jobs"], { cwd, env: { ...env, HOME: home } });
    expect(run.code, run.stderr).toBe(0);
    const all = results(live.server.requests.at(-1)!);
    const [, , flood, waited, stoppedDone, unknown, rss, stoppedFlood] = all;
    // The flood: at most the unread cap comes back, the rest is said to be skipped and saved (capped) in a file.
    expect(flood!.length).toBeLessThan(40_000);
    expect(flood).toMatch(/\[… \d+ bytes of earlier output skipped; (all of it|its first 64 MB) (is|are) in (\S+\.txt)/);
    const file = /in (\S+\/jobs\/job1-\d+\.txt)/.exec(flood!)![1]!;
    expect(statSync(file).size).toBeLessThanOrEqual(64 * 1024 * 1024);
    // Bounded memory: what is not read is dropped (awl alone is ≈ 100 MB resident).
    expect(Number(/^\s*(\d+)/.exec(rss!)![1]) * 1024).toBeLessThan(400 * 1024 * 1024);
    expect(stoppedFlood).toMatch(/^Stopped job1 \(stopped\)/);
    // A job that ended: its output, its end, and the pattern it never printed.
    expect(waited).toContain("short and done");
    expect(waited).toContain("[job2 has ended (exit code 0)]");
    expect(waited).toContain("[never printed did not appear before the job ended]");
    expect(stoppedDone).toBe("job2 had already ended (exit code 0); nothing to stop.");
    expect(unknown).toBe('Error: there is no background job "job9"; the jobs are: job1 (running), job2 (exit code 0)');
    // 16 run at once; the 17th is refused, naming the limit.
    const limited = all.slice(8);
    expect(limited.filter((r) => r.startsWith("Started job"))).toHaveLength(16);
    expect(limited[16]).toMatch(/^Error: 16 background jobs are running, the most awl runs at once \(16\): stop one with bash_stop first/);
    expect(run.stderr).toContain("16 background jobs still running");
    await noneLeft(sleeps);
  });
});

describe("background commands in the sandbox", () => {
  it("a job runs inside it: no network, the workspace writable, and it stops with awl", { timeout: 90_000 }, async () => {
    const { cwd, home, env } = live.setUp();
    const length = sleepLength(98);
    // The scripted server answers on the host's loopback, which the sandbox's own network does not reach.
    const command = `curl -s -o /dev/null ${live.server.url}/; echo net=$?; touch inside-job; echo workspace=$?; sleep ${length}`;
    live.server.enqueue(
      { body: openaiToolCalls([{ id: "b1", name: "bash", input: { command, run_in_background: true } }]) },
      { body: openaiToolCalls([{ id: "o1", name: "bash_output", input: { id: "job1", wait_for: "workspace=\\d" } }]) },
      openaiAnswer("Boxed."),
    );
    const run = await runAwl(["-p", "--sandbox", "--allow", "bash", "try the box"], { cwd, env: { ...env, HOME: home } });
    expect(run.code, run.stderr).toBe(0);
    const [, output] = results(live.server.requests.at(-1)!);
    expect(output).toMatch(/net=[1-9]/);
    expect(output).toContain("workspace=0");
    expect(existsSync(join(cwd, "inside-job"))).toBe(true);
    await noneLeft([length]);
  });
});

describe("background commands in the terminal", () => {
  it("a turn's end names the jobs still running, /jobs lists them, and Ctrl-D leaves none", { timeout: 90_000 }, async () => {
    const length = sleepLength(99);
    tty.server.enqueue({ body: openaiToolCalls([{ id: "b1", name: "bash", input: { command: `sleep ${length}`, run_in_background: true } }]) }, openaiAnswer("It runs."));
    await tty.start({ args: ["--allow", "bash"] });
    await tty.send("start a sleep");
    await tty.terminal.waitFor(/\(1 background job still running: job1 sleep [\d.]+; \/jobs lists them; they stop when awl\s+exits\)/);
    await tty.send("/jobs");
    await tty.terminal.waitFor(/background jobs \(1\):\n {2}job1 {2}running \d+s, pid \d+ {2}sleep [\d.]+/);
    await tty.terminal.keys("C-d");
    await tty.terminal.waitFor(/\[awl exited 0\]/);
    await noneLeft([length]);
  });
});
