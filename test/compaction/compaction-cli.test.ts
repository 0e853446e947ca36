/**
 * Compaction through `awl -p` and the session file (issue 14 item 3): the file keeps the whole history and records
 * the compaction; a resumed session sends exactly what the live one would; stream-json reports it; /compact.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { summaryMessageText } from "../../src/model/compaction.js";
import { SessionStore } from "../../src/session/index.js";
import { openaiAnswer } from "../cli/openai-answer.js";
import { runAwl, tempDir } from "../cli/run-awl.js";
import { tmuxTest } from "../cli/tmux-terminal.js";
import { startReplayServer, type ReplayServer } from "../support/replay-server.js";
import { conversationSent } from "../support/sent.js";

/**
 * gpt-test with a 4 500-token window: compaction starts past 3 600 tokens, which parts A and B together pass and
 * one part with a summary, the bundled tools' schemas and the system prompt does not.
 */
const CONFIG = JSON.stringify({ models: { "gpt-test": { context_window: 4500 } } });
const A = `Part A: ${"alpha ".repeat(1330)}`; // ~8 000 characters, ~2 000 tokens
const B = `Part B: ${"bravo ".repeat(1330)}`;

describe("awl -p across a compaction", () => {
  let server: ReplayServer;
  let home: string;
  beforeEach(async () => {
    server = await startReplayServer();
    home = tempDir("awl-compaction-home-");
  });
  afterEach(() => server.close());

  const awl = (args: string[], configFile = CONFIG) =>
    runAwl(["--provider", "openai", "--base-url", `${server.url}/v1`, "--model", "gpt-test", "--max-retries", "0", ...args], {
      env: { HOME: home, AWL_API_KEY: "sk-compaction-test" },
      cwd: home,
      configFile,
    });

  it("compacts, records it, and a resumed session sends exactly what the live one would; the file keeps everything", async () => {
    server.enqueue(openaiAnswer("Reply A."));
    expect((await awl(["-p", A])).code).toBe(0);

    server.enqueue(openaiAnswer("SUMMARY-A: the user sent part A."), openaiAnswer("Reply B."));
    const second = await awl(["-c", "-p", B, "--output-format", "stream-json"]);
    expect(second.code).toBe(0);
    const events = second.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(events.find((e) => e.type === "compaction")).toMatchObject({
      type: "compaction",
      reason: "threshold",
      replaces: 2,
      summary: "SUMMARY-A: the user sent part A.",
      usage: { input_tokens: 9 },
    });
    // The summary message and prompt B, joined into one user message (consecutive user messages merge).
    const live = conversationSent(server.requests[2]!.json());
    expect(live).toEqual([{ role: "user", content: `${summaryMessageText("SUMMARY-A: the user sent part A.")}\n\n${B}` }]);
    // The result's usage counts the summary call too (9 + 9 input tokens).
    expect(events.at(-1)).toMatchObject({ type: "result", usage: { input_tokens: 18 } });

    server.enqueue(openaiAnswer("Reply C."));
    expect((await awl(["-c", "-p", "small"])).code).toBe(0);
    expect(conversationSent(server.requests[3]!.json())).toEqual([...live, { role: "assistant", content: "Reply B." }, { role: "user", content: "small" }]);

    // The file: every message, the compaction entry, the summary call's tokens.
    const store = new SessionStore(join(home, ".local", "share", "awl", "sessions"));
    const ids = store.ids();
    const id = ids.ok ? ids.value[0]! : "";
    const entries = readFileSync(store.path(id), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(entries.filter((e) => e.type === "compaction")).toMatchObject([{ replaces: 2, summary: "SUMMARY-A: the user sent part A.", reason: "threshold" }]);
    expect(entries.filter((e) => e.type === "usage")).toMatchObject([{ reason: "compaction", usage: { input_tokens: 9 } }]);
    const exported = JSON.parse((await runAwl(["sessions", "export", id, "--format", "json"], { env: { HOME: home } })).stdout);
    expect(exported.messages.map((m: { content: Array<{ text?: string }> }) => m.content[0]!.text)).toEqual([A, "Reply A.", B, "Reply B.", "small", "Reply C."]);
  });

  it("a context-length refusal from the server is recovered by compaction and one retry", async () => {
    server.enqueue(openaiAnswer("Reply A."));
    const roomy = JSON.stringify({ models: { "gpt-test": { context_window: 100000 } } });
    expect((await awl(["-p", A], roomy)).code).toBe(0);
    server.enqueue(
      { status: 400, headers: { "content-type": "application/json" }, body: '{"error":{"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","code":400}}' },
      openaiAnswer("SUMMARY: a short question was answered."),
      openaiAnswer("Reply B."),
    );
    const run = await awl(["-c", "-p", "next", "--output-format", "json"], roomy);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("awl: compacted the conversation after the model refused it as too long");
    expect(JSON.parse(run.stdout).messages.at(-1).content[0].text).toBe("Reply B.");
  });

  it("a bad compaction setting stops awl with an error naming the file and field", async () => {
    const run = await runAwl(["-p", "hi", "--provider", "openai", "--base-url", `${server.url}/v1`, "--model", "gpt-test"], {
      env: { HOME: home, AWL_API_KEY: "sk-compaction-test" },
      configFile: JSON.stringify({ compaction: { threshold_percent: "eighty" } }),
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('key "compaction.threshold_percent" expects a number from 10 to 100, got "eighty"');
  });
});

describe("/compact", () => {
  const tty = tmuxTest();

  it("summarises on demand with the user's instructions; the next turn sends the summary", async () => {
    const first = `First answer: ${"a long explanation ".repeat(40)}done.`;
    tty.server.enqueue(openaiAnswer(first), openaiAnswer("Second answer."));
    await tty.start({ configFile: JSON.stringify({ models: { "gpt-test": { context_window: 100000 } } }) });
    await tty.send("first question");
    await tty.terminal.waitFor(/done\.\n>/);
    await tty.send("second question");
    await tty.terminal.waitFor(/Second answer\.\n>/);
    tty.server.enqueue(openaiAnswer("SUMMARY: two questions."), openaiAnswer("Third answer."));
    await tty.send("/compact keep the questions verbatim");
    await tty.terminal.waitFor(/compacted the conversation: summarised 2 earlier messages/);
    expect(tty.server.requests[2]!.body).toContain("Also, as the user asks: keep the questions verbatim");
    await tty.send("third");
    await tty.terminal.waitFor(/Third answer\.\n>/);
    expect(conversationSent(tty.server.requests[3]!.json()).map((m: { content: string }) => m.content)).toEqual([
      `${summaryMessageText("SUMMARY: two questions.")}\n\nsecond question`,
      "Second answer.",
      "third",
    ]);
  });
  it("Esc during an automatic compaction cancels it and the turn: nothing is recorded, the history is kept", async () => {
    const home = await tty.start({ configFile: CONFIG });
    tty.server.enqueue(openaiAnswer("Reply A."));
    await tty.send(A);
    await tty.terminal.waitFor(/Reply A\.\n>/);
    tty.server.enqueue({ ending: "hang" });
    // Twice part B: past the threshold even by the (tiny) usage the replay server reported for the first reply.
    await tty.send(`${B} ${B}`);
    await tty.server.waitForRequests(2); // the summary request
    await tty.terminal.keys("Escape");
    await tty.terminal.waitFor(/the compaction was cancelled[\s\S]*\n>\s*(?:\n.*↑\S+ ↓\S+.*)?\s*$/);
    const sessions = new SessionStore(join(home, ".local", "share", "awl", "sessions"));
    const ids = sessions.ids();
    const file = readFileSync(sessions.path(ids.ok ? ids.value[0]! : ""), "utf8");
    expect(file).not.toContain('"type":"compaction"');
    const loaded = sessions.load(ids.ok ? ids.value[0]! : "");
    expect(loaded.ok && loaded.value.transcript.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
  });
});
