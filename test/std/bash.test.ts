// std.bash, the bundled `bash` tool: output and exit code, streaming, head and tail, timeout and cancel killing
// the whole process group, no stdin.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { AWL, openaiText, openaiToolCalls, providerEnv } from "../e2e/support.js";
import { allRunning, forkingCommand, noneLeft } from "../support/processes.js";
import { callTool, replayedCall, SEVERAL_CALLS, textOf, useSandbox } from "./support.js";

const env = useSandbox();

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

  it("waits for no person: git opens no editor, pagers print", async () => {
    execFileSync("git", ["init", "-q"], { cwd: env.box.cwd });
    writeFileSync(join(env.box.cwd, "f.txt"), "x\n");
    const command = "git -c user.name=t -c user.email=t@t add f.txt && git -c user.name=t -c user.email=t@t commit; echo \"editor=$GIT_EDITOR pager=$PAGER\"";
    const { outcome } = await callTool(env.box, "bash", { command, timeout: 60 });
    expect(textOf(outcome)).toBe("Aborting commit due to empty commit message.\neditor=true pager=cat\n[exit code 0]");
  });

  it("keeps the head and tail of a long output and saves all of it", async () => {
    const text = textOf((await callTool(env.box, "bash", { command: "seq 1 200000" })).outcome);
    const lines = text.split("\n");
    expect(lines.slice(0, 3)).toEqual(["1", "2", "3"]);
    expect(lines.slice(-3)).toEqual(["199999", "200000", "[exit code 0]"]);
    // The head's last line, then the notice: no blank line between them.
    const at = lines.findIndex((l) => l.startsWith("[… "));
    expect(lines.slice(at - 1, at + 2)).toEqual(["500", expect.any(String), "198501"]);
    expect(lines[at]).toMatch(/^\[… 198000 lines \([\d.]+ MB\) cut \(200000 lines, [\d.]+ MB in all\); all of it is in (\/.+\.txt)\]$/);
    const saved = readFileSync(/all of it is in (.+)\]$/.exec(lines[at]!)![1]!, "utf8");
    expect(saved.split("\n")).toHaveLength(200001);
    expect(text.length).toBeLessThan(40_000);
  });

  it("saves all of an output cut for its many lines, though it is small in bytes", async () => {
    const text = textOf((await callTool(env.box, "bash", { command: "seq 1 5000" })).outcome);
    const lines = text.split("\n");
    expect(lines.slice(498, 503)).toEqual(["499", "500", expect.stringMatching(/^\[… 3000 lines \(14\.2 KB\) cut \(5000 lines, 23\.3 KB in all\); all of it is in \/.+\.txt\]$/), "3501", "3502"]);
    const file = /all of it is in (.+)\]$/.exec(lines[500]!)![1]!;
    expect(readFileSync(file, "utf8")).toBe(Array.from({ length: 5000 }, (_, i) => `${i + 1}\n`).join(""));
    // The run's spill folder is private (outputs may hold anything), as session folders are.
    expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
  });

  it("keeps API keys out of a saved output: the environment's and the config file's become [REDACTED]", async () => {
    const envKey = "sk-proj-env0123456789abcdef";
    const fileKey = "cfg-key-0123456789abcdef";
    const userDir = join(env.box.home, ".config", "awl");
    mkdirSync(userDir, { recursive: true });
    // The environment's key reaches the command only because the user passes it (tools get no *_API_KEY otherwise).
    writeFileSync(join(userDir, "config.json"), JSON.stringify({ api_key: fileKey, permissions: { pass_env: ["MY_API_KEY"] } }));
    // The keys in the middle of an output too long to give whole, one printed in two halves a moment apart.
    const command = `seq 1 3000; env | grep MY_API_KEY; printf '${fileKey.slice(0, 9)}'; sleep 0.2; echo '${fileKey.slice(9)}'; cat ${join(userDir, "config.json")}; echo; seq 1 3000`;
    const run = await env.box.awl(["tool", "call", "bash", JSON.stringify({ command }), "--json"], { env: { MY_API_KEY: envKey } });
    const direct = /all of it is in (.+)\]$/m.exec(textOf(JSON.parse(run.stdout)))![1]!;
    // Through a model's turn, where the config file's key is known too (awl tool call knows the environment's).
    const { content } = await replayedCall(env.box, env.server, "bash", { command }, [], { MY_API_KEY: envKey });
    const turn = /all of it is in (.+)\]$/m.exec(content)![1]!;
    expect(readFileSync(direct, "utf8")).toContain("MY_API_KEY=[REDACTED]\n");
    const saved = readFileSync(turn, "utf8");
    expect(saved).toContain(`MY_API_KEY=[REDACTED]\n[REDACTED]\n{"api_key":"[REDACTED]","permissions":{"pass_env":["MY_API_KEY"]}}\n1\n2\n`);
    for (const file of [direct, turn]) {
      const text = readFileSync(file, "utf8");
      expect(text).not.toContain(envKey);
      expect(text.split("\n")).toHaveLength(6004); // 6003 lines, each ended
      expect(statSync(file).mode & 0o777).toBe(0o600);
    }
    expect(saved).not.toContain(fileKey);
  });

  it("saved outputs are kept a week: a later run removes older runs' folders", async () => {
    const spill = join(env.box.home, ".local", "share", "awl", "spill");
    const old = join(spill, "2020-01-01T00-00-00-000Z-4194999"); // no such pid
    mkdirSync(old, { recursive: true });
    writeFileSync(join(old, "bash-1.txt"), "old output\n");
    const text = textOf((await callTool(env.box, "bash", { command: "seq 1 5000" })).outcome);
    const saved = /all of it is in (.+)\]$/m.exec(text)![1]!;
    expect(existsSync(old)).toBe(false);
    expect(existsSync(saved)).toBe(true);
    expect(saved.startsWith(`${spill}/`)).toBe(true);
  });

  it("cuts one very long line at characters, never inside one", async () => {
    // "x", 60 000 two-byte "é", "z" and no newline: the head's and the tail's byte limits both fall inside an "é".
    const text = textOf((await callTool(env.box, "bash", { command: "printf x; yes é | tr -d '\\n' | head -c 120000; printf z" })).outcome);
    const [head, notice, tail, status] = text.split("\n");
    expect(head).toBe("x" + "é".repeat(6143));
    expect(notice).toMatch(/^\[… 81\.2 KB cut \(1 line, 117\.2 KB in all\); all of it is in \/.+\.txt\]$/);
    expect(tail).toBe("é".repeat(12287) + "z");
    expect(status).toBe("[exit code 0]");
    expect(text).not.toContain("\uFFFD");
  });

  it("kills a timed-out command and every process it started, a double-forked grandchild too", async () => {
    const pids = join(env.box.root, "pids");
    const { command, lengths } = forkingCommand(pids);
    const { outcome } = await callTool(env.box, "bash", { command, timeout: 2 });
    expect(outcome).toMatchObject({ is_error: true, content: "[timed out after 2 s: the command and everything it started were killed]", summary: "timed out after 2 s: the command and everything it started were killed" });
    // All three had started before the timeout (each wrote its pid); none is left.
    expect(readFileSync(pids, "utf8").trim().split("\n")).toHaveLength(3);
    await noneLeft(lengths);
  });

  it("refuses a timeout above the cap, saying the cap", async () => {
    const run = await env.box.awl(["tool", "call", "bash", JSON.stringify({ command: "true", timeout: 601 })]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('invalid input for tool "bash": /timeout must be <= 600. Fix the arguments and call it again.');
    const turn = await replayedCall(env.box, env.server, "bash", { command: "true", timeout: 601 });
    expect(turn.content).toMatch(/^Error: .*\/timeout must be <= 600/);
  });

  it("kills the command and every process it started when the call is cancelled (Ctrl-C)", async () => {
    const { command, lengths } = forkingCommand();
    const child = spawn(process.execPath, [AWL, "tool", "call", "bash", JSON.stringify({ command })], {
      cwd: env.box.cwd,
      env: env.box.env(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
    await allRunning(lengths);
    child.kill("SIGINT");
    expect(await closed).toBe(130);
    await noneLeft(lengths);
  });

  it("streams the output to stream-json while the command runs", async () => {
    // The command waits for a file the test makes only once stream-json has shown its first line: so that line
    // was shown while the command ran, whatever the machine's speed.
    const gate = join(env.box.root, "gate");
    const command = `echo first; echo warning >&2; while [ ! -f '${gate}' ]; do sleep 0.05; done; echo second`;
    env.server.enqueue({ body: openaiToolCalls([{ id: "call_1", name: "bash", input: { command } }]) }, { body: openaiText("done") });
    const child = spawn(process.execPath, [AWL, "-p", "go", "--no-session", "--allow", "bash", "--output-format", "stream-json"], {
      cwd: env.box.cwd,
      env: env.box.env(providerEnv("openai", env.server.url)),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const events: any[] = [];
    let buffer = "";
    child.stdout.setEncoding("utf8").on("data", (data: string) => {
      buffer += data;
      for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
        const event = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        events.push(event);
        if (event.type === "tool_progress" && event.update.kind === "show" && event.update.state.output === "first\nwarning\n") writeFileSync(gate, "");
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
    const shows = events.filter((e) => e.type === "tool_progress" && e.update.kind === "show").map((e) => e.update.state);
    expect(shows).toContainEqual({ command, output: "first\nwarning\n", running: true });
    expect(shows.at(-1)).toEqual({ command, output: "first\nwarning\nsecond\n", running: false, status: "[exit code 0]" });
    const result = env.server.requests[1]!.json().messages.find((m: { role: string }) => m.role === "tool");
    expect(result.content).toBe("first\nwarning\nsecond\n[exit code 0]");
  });

  it("draws its block: the command as the title, the output's last lines and the exit code", SEVERAL_CALLS, async () => {
    env.server.enqueue(
      { body: openaiToolCalls([{ id: "c1", name: "bash", input: { command: "seq 1 30\necho second line of the command" } }, { id: "c2", name: "bash", input: { command: "echo no; exit 4" } }]) },
      { body: openaiText("done") },
    );
    const run = await env.box.awl(["-p", "go", "--no-session", "--allow", "bash"], { env: providerEnv("openai", env.server.url) });
    expect(run.code).toBe(0);
    // Print mode's view is 10 lines high: the last 9 lines of output, then the status; a failed call has its summary
    // under the body instead (once).
    const last9 = ["22", "23", "24", "25", "26", "27", "28", "29", "30"].map((l) => `  ${l}`);
    expect(run.stderr).toBe(["✓ bash seq 1 30", ...last9.slice(1), "  second line of the command", "  [exit code 0]", "✗ bash echo no; exit 4", "  no", "  exit code 4", ""].join("\n"));
  });
});
