/**
 * Sessions through the built `awl`: every conversation saved, `-c` / `-r` resume it exactly (checked on the
 * bytes the replay server receives), a session stopped mid-turn is answered, `awl sessions` lists and exports.
 */
import { readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SESSION_ENDED_RESULT, SessionStore } from "../../src/session/index.js";
import { sseData, startReplayServer, type ReplayServer } from "../support/replay-server.js";
import { runAwl, tempDir, writeScript } from "./run-awl.js";
import { conversationSent } from "../support/sent.js";

const KEY = "sk-test-SESSIONKEY-0123456789";

let server: ReplayServer;
let home: string;
beforeEach(async () => {
  server = await startReplayServer();
  home = tempDir("awl-sessions-home-");
});
afterEach(() => server.close());

const sessionsDir = () => join(home, ".local", "share", "awl", "sessions");
const store = () => new SessionStore(sessionsDir());

/** `awl` with the OpenAI-compatible provider pointed at the replay server, sessions under `home`. */
function awl(args: string[]) {
  return runAwl(["--provider", "openai", "--base-url", `${server.url}/v1`, "--model", "m", "--max-retries", "0", ...args], {
    env: { HOME: home, AWL_API_KEY: KEY },
    cwd: home,
  });
}

function textAnswer(text: string) {
  return {
    body: sseData([
      { choices: [{ index: 0, delta: { role: "assistant", content: text.slice(0, 3) } }] },
      { choices: [{ index: 0, delta: { content: text.slice(3) } }] },
      { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
      { choices: [], usage: { prompt_tokens: 10, completion_tokens: 4 } },
      "[DONE]",
    ]),
  };
}

function toolCallAnswer(id: string, name: string, args: string) {
  return {
    body: sseData([
      { choices: [{ index: 0, delta: { role: "assistant", tool_calls: [{ index: 0, id, type: "function", function: { name, arguments: "" } }] } }] },
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: args } }] } }] },
      { choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
      "[DONE]",
    ]),
  };
}

const messagesSent = (i: number) => conversationSent(server.requests[i]!.json()) as unknown[];

describe("awl saves every conversation", () => {
  it("writes the prompt and each message as it completes, without the API key", async () => {
    server.enqueue(toolCallAnswer("call_1", "ls", '{"path": "."}'), textAnswer("No ls here."));
    const run = await awl(["-p", `list files; my key is ${KEY}`]);
    expect(run.code).toBe(0);
    const ids = store().ids();
    expect(ids.ok && ids.value).toHaveLength(1);
    const loaded = store().load(ids.ok ? ids.value[0]! : "");
    if (!loaded.ok) throw new Error(loaded.error.message);
    expect(loaded.value.header).toMatchObject({ cwd: home, provider: "openai", model: "m" });
    expect(loaded.value.conversation.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(loaded.value.conversation.messages[0]!.content[0]).toEqual({ type: "text", text: "list files; my key is [REDACTED]" });
    for (const name of readdirSync(sessionsDir())) expect(readFileSync(join(sessionsDir(), name), "latin1")).not.toContain(KEY);
  });

  it("saves nothing with --no-session", async () => {
    server.enqueue(textAnswer("Hi."));
    expect((await awl(["-p", "--no-session", "hi"])).code).toBe(0);
    expect(store().ids()).toEqual({ ok: true, value: [] });
  });
});

describe("awl -c / -r", () => {
  it("-c sends the saved conversation byte for byte, then the new prompt", async () => {
    server.enqueue(toolCallAnswer("call_1", "ls", '{"path":  "."}'), textAnswer("No ls here."), textAnswer("Second answer."));
    expect((await awl(["-p", "first"])).code).toBe(0);
    const run = await awl(["-p", "-c", "second"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Second answer.\n");
    const before = JSON.stringify(messagesSent(1));
    const after = JSON.stringify(messagesSent(2));
    expect(after.startsWith(before.slice(0, -1))).toBe(true);
    const resumed = messagesSent(2);
    expect(resumed).toHaveLength(5);
    expect(resumed[1]).toMatchObject({ tool_calls: [{ function: { arguments: '{"path":  "."}' } }] });
    expect(resumed[3]).toMatchObject({ role: "assistant", content: "No ls here." });
    expect(resumed[4]).toEqual({ role: "user", content: "second" });
    expect(store().ids()).toMatchObject({ ok: true, value: [expect.any(String)] }); // continued, not a new session
  });

  it("-r takes a unique prefix; a session that stopped mid-turn gets an is_error result for each unanswered call", async () => {
    const w = store().create({ cwd: home, provider: "openai", model: "m" });
    if (!w.ok) throw new Error(w.error.message);
    w.value.appendMessage({ role: "user", content: [{ type: "text", text: "read two files" }] });
    w.value.appendMessage({
      role: "assistant",
      content: [
        { type: "tool_use", id: "call_a", name: "read", input: '{"path":"a"}' },
        { type: "tool_use", id: "call_b", name: "read", input: '{"path":"b"}' },
      ],
      stop_reason: "tool_use",
    });
    w.value.close();
    server.enqueue(textAnswer("Both reads were lost."));
    const run = await awl(["-p", "-r", w.value.id.slice(-6, -2), "go on"]);
    expect(run.code).toBe(0);
    expect(messagesSent(0)).toEqual([
      { role: "user", content: "read two files" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_a", type: "function", function: { name: "read", arguments: '{"path":"a"}' } },
          { id: "call_b", type: "function", function: { name: "read", arguments: '{"path":"b"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_a", content: expect.stringContaining(SESSION_ENDED_RESULT) },
      { role: "tool", tool_call_id: "call_b", content: expect.stringContaining(SESSION_ENDED_RESULT) },
      { role: "user", content: "go on" },
    ]);
    const loaded = store().load(w.value.id);
    if (!loaded.ok) throw new Error(loaded.error.message);
    expect(loaded.value.conversation.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "user", "assistant"]);
    expect(loaded.value.unanswered).toEqual([]);
  });

  it("a damaged assistant line never leaves tool results without their call in what is sent", async () => {
    const w = store().create({ cwd: home, provider: "openai", model: "m" });
    if (!w.ok) throw new Error(w.error.message);
    const ids = ["call_1", "call_2", "call_3"];
    w.value.appendMessage({ role: "user", content: [{ type: "text", text: "read three files" }] });
    w.value.appendMessage({ role: "assistant", content: ids.map((id) => ({ type: "tool_use", id, name: "read", input: "{}" })), stop_reason: "tool_use" });
    w.value.appendMessage({ role: "user", content: ids.map((id) => ({ type: "tool_result", tool_use_id: id, content: `text of ${id}` })) });
    w.value.appendMessage({ role: "assistant", content: [{ type: "text", text: "Read them." }] });
    w.value.close();
    const lines = readFileSync(w.value.path, "utf8").split("\n");
    lines[2] = lines[2]!.slice(0, 40); // the assistant line with the three calls, damaged by hand
    writeFileSync(w.value.path, lines.join("\n"));
    server.enqueue(textAnswer("Again."), textAnswer("And again."));
    for (const i of [0, 1]) {
      const run = await awl(["-p", "-r", w.value.id, "go on"]);
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(`${w.value.path}:3: not valid JSON`);
      expect(run.stderr).toContain(`${w.value.path}:4: tool result(s) call_1, call_2, call_3 answer a call that is not in the session`);
      const sent = messagesSent(i) as { role: string; tool_call_id?: string; tool_calls?: { id: string }[]; content: unknown }[];
      // Every tool message follows (through other tool messages) an assistant message that asked for its id.
      sent.forEach((m, j) => {
        if (m.role !== "tool") return;
        let k = j - 1;
        while (sent[k]?.role === "tool") k--;
        expect(sent[k]?.tool_calls?.map((c) => c.id), `message ${j}`).toContain(m.tool_call_id);
      });
      // The prompt and the notes standing in for the results: consecutive user texts, sent as one message.
      expect(sent.slice(0, 2)).toEqual([
        { role: "user", content: expect.stringMatching(/^read three files\n\n\[The result of tool call call_1, whose call is missing/) },
        { role: "assistant", content: "Read them." },
      ]);
      expect(sent[0]!.content).toContain("text of call_3");
    }
    expect(readFileSync(w.value.path, "utf8").split("\n")[2]).toBe(lines[2]); // the file is left as it is
  });

  it("-c fails naming the newest session of this directory when it cannot be read, rather than continue an older one", async () => {
    const make = (cwd: string, when: number) => {
      const w = store().create({ cwd, provider: "openai", model: "m" });
      if (!w.ok) throw new Error(w.error.message);
      w.value.appendMessage({ role: "user", content: [{ type: "text", text: "hi" }] });
      w.value.close();
      utimesSync(w.value.path, when, when);
      return w.value.path;
    };
    make(home, 1000);
    const newest = make(home, 2000);
    make("/elsewhere", 3000); // another directory's: not in the way
    writeFileSync(newest, readFileSync(newest, "utf8").replace('"version":2', '"version":3'));
    utimesSync(newest, 2000, 2000);
    const run = await awl(["-p", "-c", "go on"]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`${newest} uses session format version 3, but this awl reads version 2; upgrade awl to open it`);
    expect(run.stderr).toContain("this is the latest session of this directory");
    writeFileSync(newest, "\0\0\0 not a header\n"); // no header at all: whose it is cannot be told
    utimesSync(newest, 2000, 2000);
    const damaged = await awl(["-p", "-c", "go on"]);
    expect(damaged.code).not.toBe(0);
    expect(damaged.stderr).toContain(`${newest} is not an awl session file`);
    expect(server.requests).toHaveLength(0);
  });

  it("a missing or ambiguous session is a usage error naming it, and nothing is sent", async () => {
    const none = await awl(["-p", "-r", "nope", "hi"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no session matches "nope"');
    const latest = await awl(["-p", "-c", "hi"]);
    expect(latest.code).toBe(2);
    expect(latest.stderr).toContain(`no saved session was started in ${home}`);
    const both = await awl(["-p", "-c", "-r", "x", "hi"]);
    expect(both.code).toBe(2);
    // -r alone picks from a list: print mode has no terminal for it.
    const alone = await awl(["-p", "hi", "-r"]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain("-r without an id picks a session from a list, which needs a terminal");
    expect(server.requests).toHaveLength(0);
  });
});

describe("awl sessions", () => {
  it("lists id, time, messages, tokens, directory and first prompt; --json; export md and json", async () => {
    const script = writeScript(home, [{ awl_replay: 1 }, { role: "assistant", content: [{ type: "text", text: "Hello!" }], usage: { input_tokens: 1200, output_tokens: 34 } }]);
    const first = await runAwl(["-p", "--provider", "replay", "--replay", script, "say hello"], { env: { HOME: home }, cwd: home });
    expect(first.code).toBe(0);
    const list = await runAwl(["sessions"], { env: { HOME: home }, cwd: home });
    expect(list.code).toBe(0);
    const [header, row] = list.stdout.trim().split("\n");
    expect(header).toMatch(/^ID\s+UPDATED\s+MESSAGES\s+TOKENS\s+COST\s+DIRECTORY\s+FIRST PROMPT$/);
    const id = row!.split(/\s+/)[0]!;
    // The replay "model" has no price: its cost is unknown.
    expect(row).toMatch(new RegExp(`^${id}\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d\\s+2\\s+1\\.2k\\s+unknown\\s+${home}\\s+say hello$`));
    const json = await runAwl(["sessions", "--json"], { env: { HOME: home } });
    expect(JSON.parse(json.stdout)).toMatchObject([{ id, cwd: home, messages: 2, first_prompt: "say hello", tokens: { input_tokens: 1200, output_tokens: 34 }, cost_usd: null }]);
    const md = await runAwl(["sessions", "export", id.slice(0, -2)], { env: { HOME: home } });
    expect(md.stdout).toContain(`# awl session ${id}`);
    expect(md.stdout).toContain("## User\n\nsay hello");
    expect(md.stdout).toContain("## Assistant\n\nHello!");
    const exported = await runAwl(["sessions", "export", id, "--format", "json"], { env: { HOME: home } });
    expect(JSON.parse(exported.stdout)).toMatchObject({ session: { id }, version: 1, messages: [{ role: "user" }, { role: "assistant" }] });
    const bad = await runAwl(["sessions", "export", id, "--format", "pdf"], { env: { HOME: home } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--format expects md or json");
  });

  it("counts the tokens of an attempt that failed mid-stream and was retried: a usage entry no message carries", async () => {
    const fixture = (name: string) => readFileSync(new URL(`../fixtures/anthropic/${name}`, import.meta.url));
    // The first attempt reports its input (message_start: 10 in, 1 out), then an overloaded_error; the retry answers.
    server.enqueue({ body: fixture("overloaded-midstream.sse") }, { body: fixture("text.sse") });
    const run = await runAwl(["-p", "hi"], {
      env: { HOME: home, AWL_PROVIDER: "anthropic", AWL_BASE_URL: server.url, ANTHROPIC_API_KEY: KEY, AWL_MODEL: "claude-test" },
      cwd: home,
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("awl: overloaded; retry 1/3");
    const ids = store().ids();
    const id = ids.ok ? ids.value[0]! : "";
    const entries = readFileSync(store().path(id), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { type: string });
    expect(entries.filter((e) => e.type === "usage")).toMatchObject([{ type: "usage", reason: "retry", usage: { input_tokens: 10, output_tokens: 1 } }]);
    // The answer's own usage (text.sse: 25 in, 15 out, 1830 cache reads) plus the discarded attempt's.
    const total = { input_tokens: 35, output_tokens: 16, cache_read_input_tokens: 1830, cache_creation_input_tokens: 0 };
    const json = await runAwl(["sessions", "--json"], { env: { HOME: home } });
    expect(JSON.parse(json.stdout)).toMatchObject([{ id, messages: 2, tokens: total }]);
    const loaded = store().load(id);
    expect(loaded.ok && loaded.value.usage).toEqual(total);
  });
});

describe("a run the model never answered", () => {
  const listed = async () => JSON.parse((await runAwl(["sessions", "--json"], { env: { HOME: home }, cwd: home })).stdout) as { id: string; messages: number }[];
  const refused = { status: 401, headers: { "content-type": "application/json" }, body: '{"error":{"message":"Incorrect API key provided"}}' };

  it("leaves no session behind (a 401, a refused connection), and its JSON names none", async () => {
    server.enqueue(refused);
    const run = await awl(["-p", "hi", "--output-format", "json"]);
    expect(run.code).toBe(1);
    const result = JSON.parse(run.stdout) as { error: { kind: string }; session_id?: string };
    expect(result.error.kind).toBe("auth");
    expect(result).not.toHaveProperty("session_id");
    const closed = await startReplayServer();
    await closed.close(); // nothing listens on its port any more: the connection is refused
    const offline = await runAwl(["--provider", "openai", "--base-url", `${closed.url}/v1`, "--model", "m", "--max-retries", "0", "-p", "hi"], {
      env: { HOME: home, AWL_API_KEY: KEY },
      cwd: home,
    });
    expect(offline.code).not.toBe(0);
    expect(offline.stderr).toContain("awl:");
    expect(await listed()).toEqual([]);
    expect(readdirSync(sessionsDir()).filter((name) => !name.startsWith("summaries."))).toEqual([]);
  });

  it("keeps a session killed mid-stream before any answer: its prompt is saved and -c sends it again", async () => {
    server.enqueue({ body: sseData([{ choices: [{ index: 0, delta: { role: "assistant", content: "Partial" } }] }]), ending: "stall" }, textAnswer("Whole answer."));
    const killed = await runAwl(["--provider", "openai", "--base-url", `${server.url}/v1`, "--model", "m", "-p", "first question", "--output-format", "stream-json"], {
      env: { HOME: home, AWL_API_KEY: KEY },
      cwd: home,
      onOutput: { text: "Partial", then: (child) => child.kill("SIGKILL") },
    });
    expect(killed.code).toBeNull(); // killed
    expect(await listed()).toMatchObject([{ messages: 1 }]);
    const resumed = await awl(["-p", "-c", "second question"]);
    expect(resumed.stdout).toBe("Whole answer.\n");
    expect(JSON.stringify(messagesSent(1))).toMatch(/first question[\s\S]*second question/);
  });

  it("keeps a resumed session that then gets a 401, with the prompt it got no answer to", async () => {
    server.enqueue(textAnswer("First answer."), refused);
    expect((await awl(["-p", "first"])).code).toBe(0);
    const [id] = (store().ids() as { ok: true; value: string[] }).value;
    const run = await awl(["-p", "-c", "--output-format", "json", "second"]);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ session_id: id, error: { kind: "auth" } });
    expect(store().ids()).toEqual({ ok: true, value: [id] });
    const loaded = store().load(id!);
    expect(loaded.ok && loaded.value.conversation.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
  });
});
