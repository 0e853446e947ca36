// std.bash, the bundled `bash` tool: output and exit code, streaming, head and tail, timeout and cancel killing
// the whole process group, no stdin.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { AWL, openaiText, openaiToolCalls, providerEnv } from "../e2e/support.js";
import { callTool, textOf, useSandbox } from "./support.js";

const env = useSandbox();

/** Whether a process with this pid exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  return !alive(pid);
}

describe("std.bash", () => {
  it("interleaves stdout and stderr in order, ends with the exit code, and marks a failure", async () => {
    const ok = await callTool(env.box, "bash", { command: "echo one; echo two >&2; echo three" });
    expect(textOf(ok.outcome)).toBe("one\ntwo\nthree\n[exit code 0]");
    const failed = await callTool(env.box, "bash", { command: "echo oops >&2; exit 3" });
    expect(failed).toMatchObject({ code: 1, outcome: { is_error: true, content: "oops\n[exit code 3]", summary: "exit code 3" } });
  });

  it("gives the command no stdin: a read gets end of file", async () => {
    expect(textOf((await callTool(env.box, "bash", { command: "read line; echo \"status $? [$line]\"" })).outcome)).toBe("status 1 []\n[exit code 0]");
  });

  it("keeps the head and tail of a long output and saves all of it", async () => {
    const text = textOf((await callTool(env.box, "bash", { command: "seq 1 200000" })).outcome);
    const lines = text.split("\n");
    expect(lines.slice(0, 3)).toEqual(["1", "2", "3"]);
    expect(lines.slice(-3)).toEqual(["199999", "200000", "[exit code 0]"]);
    const notice = lines.find((l) => l.startsWith("[… "))!;
    expect(notice).toMatch(/^\[… \d+ lines cut \(200000 lines, [\d.]+ MB in all\); all of it is in (\/.+\.txt)\]$/);
    const saved = readFileSync(/all of it is in (.+)\]$/.exec(notice)![1]!, "utf8");
    expect(saved.split("\n")).toHaveLength(200001);
    expect(text.length).toBeLessThan(40_000);
  });

  it("kills a timed-out command and the child it forked", async () => {
    const { outcome } = await callTool(env.box, "bash", { command: "sleep 60 & echo child $!; sleep 60", timeout: 1 });
    const content = outcome.status === "result" ? outcome.content : "";
    expect(content).toMatch(/^child (\d+)\n\[timed out after 1 s: the command and everything it started were killed\]$/);
    expect(await gone(Number(/child (\d+)/.exec(content)![1]))).toBe(true);
  });

  it("kills the command and its children when the call is cancelled (Ctrl-C)", async () => {
    // A sleep of its own length (unique even beside another run of this suite), so no other process is taken for the
    // command's child.
    const length = `73.${process.pid}`;
    const child = spawn(process.execPath, [AWL, "tool", "call", "bash", JSON.stringify({ command: `sleep ${length} & sleep 74` })], {
      cwd: env.box.cwd,
      env: env.box.env(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
    const { execFileSync } = await import("node:child_process");
    let pid: number | undefined;
    for (let i = 0; i < 200 && pid === undefined; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const ps = execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" });
      const line = ps.split("\n").find((l) => l.trim().replace(/^\d+\s+/, "") === `sleep ${length}`);
      if (line) pid = Number(line.trim().split(/\s+/)[0]);
    }
    expect(pid, `no sleep started:\n${stderr}`).toBeDefined();
    child.kill("SIGINT");
    expect(await closed).toBe(130);
    expect(await gone(pid!)).toBe(true);
  });

  it("streams the output to stream-json while the command runs", async () => {
    env.server.enqueue(
      { body: openaiToolCalls([{ id: "call_1", name: "bash", input: { command: "echo first; sleep 1; echo second" } }]) },
      { body: openaiText("done") },
    );
    const run = await env.box.awl(["-p", "go", "--no-session", "--allow", "bash", "--output-format", "stream-json"], { env: providerEnv("openai", env.server.url) });
    expect(run.code).toBe(0);
    const events = run.stdout.trim().split("\n").map((l) => JSON.parse(l));
    const shows = events.filter((e) => e.type === "tool_progress" && e.update.kind === "show").map((e) => e.update.state);
    expect(shows[0]).toMatchObject({ command: "echo first; sleep 1; echo second", output: "first\n", running: true });
    expect(shows.at(-1)).toMatchObject({ output: "first\nsecond\n", running: false, status: "[exit code 0]" });
    const result = env.server.requests[1]!.json().messages.find((m: { role: string }) => m.role === "tool");
    expect(result.content).toBe("first\nsecond\n[exit code 0]");
  });
});
