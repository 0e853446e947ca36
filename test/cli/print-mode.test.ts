/** The built `awl -p` with the replay provider: output formats, stdin, exit codes, messages. */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { beforeAll, describe, expect, it } from "vitest";
import { AWL, expectNoStackTrace, runAwl, tempDir, writeScript } from "./run-awl.js";
import { STD_TOOLS } from "../std/support.js";

/** Session ids (src/session/paths.ts): time to the millisecond, then random hex. */
const SESSION_ID = /^[0-9]{8}-[0-9]{6}-[0-9]{3}-[0-9a-f]{6}$/;

/** The result object without its session id, which differs from run to run; the id must be there. */
function withoutSessionId(result: { session_id?: string }): object {
  const { session_id, ...rest } = result;
  expect(session_id).toMatch(SESSION_ID);
  return rest;
}

const answer = {
  role: "assistant",
  content: [
    { type: "thinking", thinking: "Short question." },
    { type: "text", text: "Hello there — ünïcödé 👋" },
  ],
  stop_reason: "end_turn",
  stop_reason_raw: "stop",
  usage: { input_tokens: 11, output_tokens: 7 },
};

let dir: string;
let script: string;
beforeAll(() => {
  dir = tempDir();
  script = writeScript(dir, [{ awl_replay: 1, chunk: 2 }, answer]);
});

const replay = (path: string) => ["--provider", "replay", "--replay", path];

describe("awl -p (text)", () => {
  it("prints the answer on stdout and the thinking on stderr", async () => {
    const run = await runAwl(["-p", "hi", ...replay(script)]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Hello there — ünïcödé 👋\n");
    expect(run.stderr).toBe("(thinking) Short question.\n");
  });

  it("appends piped stdin to the prompt, and takes the prompt from stdin alone", async () => {
    const json = await runAwl(["-p", "Summarise:", "--output-format", "json", ...replay(script)], { input: "line one\nline two\n" });
    expect(JSON.parse(json.stdout).messages[0]).toEqual({ role: "user", content: [{ type: "text", text: "Summarise:\n\nline one\nline two" }] });
    const only = await runAwl(["-p", "--output-format", "json", ...replay(script)], { input: "from stdin\n" });
    expect(JSON.parse(only.stdout).messages[0].content[0].text).toBe("from stdin");
  });

  it("says on stderr what it waits for when a shell pipe stays open, and still reads what comes later", async () => {
    // `{ sleep 3; echo … } | awl -p …`: stdin is a FIFO that stays open, silent, past the 2 s hint.
    const home = tempDir("awl-home-");
    const line = `{ sleep 3; echo 'late line'; } | "${process.execPath}" "${AWL}" -p Summarise: --output-format json --provider replay --replay "${script}"`;
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
      const child = spawn("sh", ["-c", line], { env: { PATH: process.env.PATH ?? "", TMPDIR: tmpdir(), HOME: home, XDG_CONFIG_HOME: join(home, ".config") }, cwd: home });
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
      child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      child.on("close", (code) => done({ code, stdout, stderr }));
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("awl: waiting for piped stdin to end (it is added to the prompt); close it, or run awl with `< /dev/null` to send the prompt alone\n");
    expect(JSON.parse(run.stdout).messages[0].content[0].text).toBe("Summarise:\n\nlate line");
  });

  it("says nothing about stdin when a pipe closes at once", async () => {
    const run = await runAwl(["-p", "hi", ...replay(script)], { input: "" });
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain("stdin");
  });

  it("treats piped stdin without -p as print mode (nothing prompts without a terminal)", async () => {
    const run = await runAwl([...replay(script)], { input: "hi" });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Hello there — ünïcödé 👋\n");
  });
});

describe("awl -p --output-format json", () => {
  it("names no session when none is saved (--no-session)", async () => {
    const run = await runAwl(["-p", "hi", "--output-format", "json", "--no-session", ...replay(script)]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).not.toHaveProperty("session_id");
  });

  it("prints exactly one result object with the prompt and the new messages", async () => {
    const run = await runAwl(["-p", "hi", "--output-format", "json", ...replay(script)]);
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split("\n")).toHaveLength(1);
    expect(JSON.parse(run.stdout)).toEqual({
      type: "result",
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }, answer],
      stop_reason: "end_turn",
      usage: { input_tokens: 11, output_tokens: 7 },
      session_id: expect.stringMatching(SESSION_ID),
      // The replay "model" has no price: unknown, not a guess (cost figures for known models: test/usage/).
      cost_usd: null,
      total_cost_usd: null,
      cost_note: 'the input price of "replay" is not known',
      context: { model: "replay", tokens: 18, window: 128000, window_source: "default", percent: 0 },
    });
  });
});

describe("awl -p --output-format stream-json", () => {
  it("prints one event per line in receiver order, ending with the result object", async () => {
    const run = await runAwl(["-p", "hi", "--output-format", "stream-json", ...replay(script)]);
    expect(run.code).toBe(0);
    const events = run.stdout.trim().split("\n").map((l) => JSON.parse(l));
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("message_start");
    expect(types.at(-2)).toBe("message_complete");
    expect(types.at(-1)).toBe("result");
    expect(events[0]).toEqual({ type: "message_start", role: "assistant" });
    expect(events[1]).toEqual({ type: "block_start", index: 0, block_type: "thinking" });
    const thinking = events.filter((e) => e.type === "delta" && e.index === 0).map((e) => e.delta);
    expect(thinking.join("")).toBe("Short question.");
    expect(thinking.length).toBeGreaterThan(1);
    expect(events).toContainEqual({ type: "block_complete", index: 0, block: answer.content[0] });
    expect(events).toContainEqual({ type: "block_complete", index: 1, block: answer.content[1] });
    expect(events.at(-2)).toEqual({ type: "message_complete", message: answer });
    const json = await runAwl(["-p", "hi", "--output-format", "json", ...replay(script)]);
    expect(withoutSessionId(events.at(-1))).toEqual(withoutSessionId(JSON.parse(json.stdout)));
  });

  it("reports tool calls, and stops at --max-steps with exit 4", async () => {
    const toolCall = { role: "assistant", content: [{ type: "tool_use", id: "call_1", name: "echo", input: { message: "x" } }] };
    const path = writeScript(dir, [toolCall, toolCall], "tools.jsonl");
    const run = await runAwl(["-p", "go", "--output-format", "stream-json", "--max-steps", "1", ...replay(path)]);
    expect(run.code).toBe(4);
    const events = run.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(events).toContainEqual({ type: "block_start", index: 0, block_type: "tool_use", tool_use_id: "call_1", tool_name: "echo" });
    const end = events.find((e) => e.type === "tool_end");
    expect(end).toMatchObject({ type: "tool_end", tool_use_id: "call_1", name: "echo", result: { type: "tool_result", tool_use_id: "call_1", is_error: true } });
    expect(events.at(-1)).toMatchObject({ type: "result", stop_reason: "max_steps" });
    expect(events.at(-1).messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(run.stderr).toContain("stopped after 1 model calls");
  });
});

describe("tools from extensions", () => {
  const examples = join(import.meta.dirname, "../../examples/extensions");

  it("a crashing extension: the crash report with its traceback on stderr, a tool_crash event, exit 3", async () => {
    const path = writeScript(dir, [{ role: "assistant", content: [{ type: "tool_use", id: "call_c", name: "crash", input: {} }] }], "crash.jsonl");
    const run = await runAwl(["-p", "go", "--output-format", "stream-json", "--extensions-dir", examples, "--allow", "*", ...replay(path)]);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/awl: the "crash" extension crashed: .*crash\.lua:\d+: attempt to index a nil value/);
    expect(run.stderr).toMatch(/crash\.lua:\d+/);
    const events = run.stdout.trim().split("\n").map((l) => JSON.parse(l));
    const crash = events.find((e) => e.type === "tool_crash");
    expect(crash).toMatchObject({ type: "tool_crash", tool_use_id: "call_c", name: "crash", extension: "crash" });
    expect(crash.traceback).toMatch(/crash\.lua:\d+/);
    const result = events.at(-1);
    expect(result).toMatchObject({ type: "result", stop_reason: "tool_crash", crashes: [{ tool_use_id: "call_c", tool: "crash", extension: "crash" }] });
    // The invariant: the crashed call is answered in the conversation.
    expect(result.messages.at(-1)).toMatchObject({ role: "user", content: [{ type: "tool_result", tool_use_id: "call_c", is_error: true }] });
  });

  it("runs the example tools through the real agent loop", async () => {
    const path = writeScript(dir, [
      { role: "assistant", content: [{ type: "tool_use", id: "call_e", name: "echo", input: { message: "ping" } }] },
      { role: "assistant", content: [{ type: "text", text: "pong" }] },
    ], "echo.jsonl");
    const run = await runAwl(["-p", "go", "--output-format", "json", "--extensions-dir", examples, "--allow", "*", ...replay(path)]);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.messages[2]).toEqual({ role: "user", content: [{ type: "tool_result", tool_use_id: "call_e", content: "ping" }] });
    expect(result.messages[3].content).toEqual([{ type: "text", text: "pong" }]);
  });
});

describe("exit codes and messages", () => {
  const errorScript = (error: object) => writeScript(dir, [{ error }], `error-${Math.random()}.jsonl`);

  it("exits 1 with a classified message for a provider error, and the error object in json", async () => {
    const path = errorScript({ kind: "auth", status: 401, message: "Incorrect API key provided" });
    const text = await runAwl(["-p", "hi", ...replay(path)]);
    expect(text.code).toBe(1);
    expect(text.stdout).toBe("");
    expect(text.stderr).toBe("awl: the API key was refused (HTTP 401): Incorrect API key provided\n  → check the API key\n");
    expectNoStackTrace(text.stderr);
    const json = await runAwl(["-p", "hi", "--output-format", "json", ...replay(path)]);
    expect(json.code).toBe(1);
    const result = JSON.parse(json.stdout);
    expect(result).toEqual({
      type: "result",
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      stop_reason: "error",
      usage: { input_tokens: 0, output_tokens: 0 },
      error: { kind: "auth", retryable: false, status: 401, retry_after_ms: null, message: "Incorrect API key provided" },
      // No session_id: a new session the model never answered is not kept (docs/cli.md).
      cost_usd: 0,
      total_cost_usd: 0,
      context: { model: "replay", tokens: null, window: 128000, window_source: "default", percent: null },
    });
  });

  it("says clearly when the replay script runs out", async () => {
    const run = await runAwl(["-p", "hi", ...replay(writeScript(dir, [], "empty.jsonl"))]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("has run out");
  });

  it("exits 2 when the provider cannot be set up, after the extensions opened first have loaded", async () => {
    const extensions = tempDir();
    writeFileSync(join(extensions, "hello.lua"), `awl.register_tool { name = "hi", parameters = { type = "object" }, run = function() return "hi" end }\n`);
    const cache = tempDir();
    const run = await runAwl(["-p", "hi", "--extensions-dir", extensions, ...replay(join(dir, "missing.jsonl"))], { env: { XDG_CACHE_HOME: cache } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("cannot read the replay script");
    expectNoStackTrace(run.stderr);
    // No registrations were cached: the Lua worker loading them started first, and awl exited only once it had
    // (its registrations are cached now).
    const cached = JSON.parse(readFileSync(join(cache, "awl/extension-tools.json"), "utf8")) as { tools: { name: string }[] };
    expect(cached.tools.map((t) => t.name).sort()).toEqual(["hi", ...STD_TOOLS].sort());
  });

  it("exits 2 naming a bad flag or value", async () => {
    const unknown = await runAwl(["-p", "hi", "--frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe("awl: unknown option --frobnicate\n  → see awl --help\n");
    const bad = await runAwl(["-p", "hi", "--max-retries", "lots", ...replay(script)]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--max-retries expects a whole number ≥ 0, got "lots"');
    const format = await runAwl(["-p", "hi", "--output-format", "xml"]);
    expect(format.code).toBe(2);
    expect(format.stderr).toContain("--output-format expects one of text, json, stream-json");
  });

  it("exits 2 saying what to set for a missing key or model; json mode still prints JSON only", async () => {
    const key = await runAwl(["-p", "hi"], { env: { AWL_MODEL: "gpt-4o-mini" } });
    expect(key.code).toBe(2);
    expect(key.stderr).toContain('no API key for provider "openai"');
    expect(key.stderr).toContain("AWL_API_KEY or OPENAI_API_KEY");
    const model = await runAwl(["-p", "hi", "--output-format", "json"], { env: { OPENAI_API_KEY: "sk-test-secret" } });
    expect(model.code).toBe(2);
    expect(model.stderr).toContain("set AWL_MODEL or pass --model NAME");
    expect(model.stderr + model.stdout).not.toContain("sk-test-secret");
    expect(JSON.parse(model.stdout)).toMatchObject({ type: "result", stop_reason: "error", messages: [], error: { kind: "config", retryable: false } });
  });

  it("names the config file and position of invalid JSON", async () => {
    const run = await runAwl(["-p", "hi"], { configFile: '{"model": "m",,}' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/the config file .*\/awl\/config\.json:1:15 is not valid JSON/);
  });

  it("exits 2 when there is nothing to send", async () => {
    const run = await runAwl(["-p", ...replay(script)]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("nothing to send");
  });

  it("prints the version and the help", async () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, "../../package.json"), "utf8"));
    expect((await runAwl(["--version"])).stdout).toBe(`awl ${pkg.version}\n`);
    const help = await runAwl(["--help"]);
    expect(help.code).toBe(0);
    for (const flag of ["--print", "--output-format", "--max-retries", "--stall-timeout", "--max-steps", "--replay", "--record"]) {
      expect(help.stdout).toContain(flag);
    }
  });
});

describe("--record", () => {
  it("writes a replay script that plays the same messages back", async () => {
    const recording = join(tempDir(), "rec.jsonl");
    const first = await runAwl(["-p", "hi", "--output-format", "json", "--record", recording, ...replay(script)]);
    expect(first.code).toBe(0);
    const lines = readFileSync(recording, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(lines).toEqual([{ awl_replay: 1 }, answer]);
    const again = await runAwl(["-p", "hi", "--output-format", "json", ...replay(recording)]);
    expect(withoutSessionId(JSON.parse(again.stdout))).toEqual(withoutSessionId(JSON.parse(first.stdout)));
  });
});

describe("--demo", () => {
  it("plays the bundled demo when no key is configured", async () => {
    const run = await runAwl(["--demo", "-p"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("replay provider");
    expect(run.stderr).toContain("playing the offline demo");
    // The example extensions ran for real.
    expect(run.stderr).toContain('✓ echo {"message":"Hello from a Lua extension!"}\n  Hello from a Lua extension!\n');
    expect(run.stderr).toMatch(/✓ word_count .*\n {2}2 lines, 5 words/);
    expectNoStackTrace(run.stderr);
  });
});

describe("awl config", () => {
  it("takes each setting from flags over the config file over the environment", async () => {
    const env = { AWL_API_KEY: "k", AWL_MODEL: "env-model", AWL_BASE_URL: "http://env.example/v1" };
    const configFile = '{"model": "file-model", "max_retries": 7}';
    const envOnly = await runAwl(["config"], { env });
    expect(envOnly.stdout).toContain("  model: env-model (from AWL_MODEL)\n");
    const withFile = await runAwl(["config"], { env, configFile });
    expect(withFile.stdout).toMatch(/\n {2}model: file-model \(from "model" in \/.*\/awl\/config\.json:1\)\n/);
    expect(withFile.stdout).toContain("  base URL: http://env.example/v1 (from AWL_BASE_URL)\n");
    expect(withFile.stdout).toContain("  max retries: 7\n");
    const withFlags = await runAwl(["config", "--model", "flag-model", "--max-retries", "0"], { env, configFile });
    expect(withFlags.stdout).toContain("  model: flag-model (from --model)\n");
    expect(withFlags.stdout).toContain("  max retries: 0\n");
    expect(withFlags.stdout).toContain("  thinking: the model's default (nothing sent)\n  interleaved thinking: on (budget thinking with tools)\n");
    const thinking = await runAwl(["config", "--thinking", "adaptive", "--no-interleaved-thinking"], { env, configFile });
    expect(thinking.stdout).toContain("  thinking: adaptive\n  interleaved thinking: off\n");
  });

  it("layers the project's .awl/config.json over the user's file and shows each value's file and line", async () => {
    const project = tempDir("awl-project-");
    mkdirSync(join(project, ".awl"));
    writeFileSync(join(project, ".awl", "config.json"), '{\n  "model": "project-model",\n  "max_steps": 4\n}\n');
    const configFile = '{\n  "model": "user-model",\n  "max_retries": 7,\n  "api_key": "sk-file-secret-1234"\n}\n';
    const run = await runAwl(["config"], { configFile, cwd: project });
    expect(run.code).toBe(0);
    const userFile = /user: {4}(\S+)/.exec(run.stdout)![1]!;
    expect(run.stdout).toContain(`  project: ${join(project, ".awl", "config.json")}\n`);
    expect(run.stdout).toContain(`  model: project-model (from "model" in ${join(project, ".awl", "config.json")}:2)\n`);
    expect(run.stdout).toContain("  max steps: 4\n  max tokens");
    expect(run.stdout).toMatch(new RegExp(`\\n {2}max_retries = 7 +${userFile}:3\\n`));
    expect(run.stdout).toMatch(/\n {2}api_key = \(set, not shown\) +\S+:4\n/);
    expect(run.stdout).not.toContain("sk-file-secret-1234");
  });

  it("always shows what it can: settings that cannot be resolved are a note, not a failure", async () => {
    const run = await runAwl(["config"], { configFile: '{"max_retries": 2}' });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("settings: incomplete, a run would stop here:\n  no API key and no model for provider \"openai\"");
    expect(run.stdout).toMatch(/\n {2}max_retries = 2 +\S+config\.json:1\n/);
    expect((await runAwl(["config", "--help"])).stdout).toContain("usage: awl config [flags]");
  });

  it("a wrong value or an unknown key in a config file names file, line, key and what was expected", async () => {
    const env = { AWL_API_KEY: "k", AWL_MODEL: "m", AWL_BASE_URL: "http://127.0.0.1:9/v1" };
    const bad = await runAwl(["-p", "hi"], { env, configFile: '{\n  "model": "m",\n  "max_steps": "lots"\n}' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/awl: the config file \S+config\.json:3: key "max_steps" expects a whole number ≥ 1, got "lots"\n/);
    const typo = await runAwl(["config"], { env, configFile: '{\n  "model": "m",\n  "max_step": 3\n}' });
    expect(typo.code).toBe(0);
    expect(typo.stderr).toMatch(/awl: \S+config\.json:3: unknown key "max_step" \(did you mean "max_steps"\?\) \(ignored\)\n/);
  });

  it("an unknown key is still said when the run stops: beside a wrong value, and before a missing API key", async () => {
    const both = await runAwl(["-p", "hi"], { env: { AWL_API_KEY: "k", AWL_MODEL: "m" }, configFile: '{\n  "max_steps": "ten",\n  "colour": true\n}' });
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/config\.json:2: key "max_steps" expects a whole number ≥ 1, got "ten"\n/);
    expect(both.stderr).toMatch(/also \S+config\.json:3: unknown key "colour" .*\(ignored\)\n/);
    const noKey = await runAwl(["-p", "hi"], { configFile: '{\n  "colour": true\n}' });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/awl: \S+config\.json:2: unknown key "colour" .*\(ignored\)\n/);
    expect(noKey.stderr).toContain("no API key");
  });

  it("shows the resolved settings without the key", async () => {
    const run = await runAwl(["config", "--model", "m1"], { env: { OPENAI_API_KEY: "sk-test-secret" } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("base URL: https://api.openai.com/v1 (from openai's default)");
    const flagged = await runAwl(["config", "--model", "m1", "--base-url", "http://127.0.0.1:9/v1"], { env: { OPENAI_API_KEY: "k" } });
    expect(flagged.stdout).toContain("base URL: http://127.0.0.1:9/v1 (from --base-url)");
    expect(run.stdout).toContain("model: m1");
    expect(run.stdout).toContain("API key: set");
    expect(run.stdout).not.toContain("sk-test-secret");
  });
});
