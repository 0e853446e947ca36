// The library session API: prompts in, each turn's events out, saved as the CLI saves them, cancel.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agent, createAgentSession, createProvider, LuaToolSet, SessionStore, type TurnEvent } from "../../src/index.js";
import { openaiAnswer, unfinishedAnswer } from "../cli/openai-answer.js";
import { openaiToolCalls } from "../e2e/support.js";
import { startReplayServer, type ReplayServer } from "../support/replay-server.js";
import { tempDir } from "../support/temp-dir.js";

/** An answer whose first word comes at once and each next one 300 ms later (time to cancel it mid-stream). */
let server: ReplayServer;
let dir: string;
beforeEach(async () => {
  server = await startReplayServer();
  dir = tempDir("awl-session-api-");
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function provider() {
  return createProvider({ provider: "openai", model: "m", baseUrl: `${server.url}/v1`, apiKey: "sk-test", maxRetries: 0, stallTimeoutMs: 10_000 });
}

async function collect(turn: AsyncIterable<TurnEvent>): Promise<TurnEvent[]> {
  const events: TurnEvent[] = [];
  for await (const event of turn) events.push(event);
  return events;
}

describe("AgentSession", () => {
  it("streams a turn's text as events, ends with turn_end, and saves the session to resume it", async () => {
    server.enqueue(openaiAnswer("Hello there, friend."), openaiAnswer("Still here."));
    const store = new SessionStore(join(dir, "sessions"));
    const session = await createAgentSession({ agent: new Agent({ provider: await provider() }), store, cwd: dir });
    const events = await collect(session.prompt("hi"));

    expect(events[0]).toEqual({ type: "message_start", role: "assistant" });
    const text = events.flatMap((e) => (e.type === "text_delta" ? [e.text] : [])).join("");
    expect(text).toBe("Hello there, friend.");
    expect(events.filter((e) => e.type === "text_delta").length).toBeGreaterThan(1);
    const end = events.at(-1)!;
    expect(end.type).toBe("turn_end");
    if (end.type !== "turn_end") return;
    expect(end.result.stop_reason).toBe("end_turn");
    expect(end.session_id).toBe(session.id);
    await session.close();

    // Resumed from the store: the next prompt carries the saved history.
    const again = await createAgentSession({ agent: new Agent({ provider: await provider() }), store, resume: end.session_id! });
    const second = await again.prompt("and now?").done;
    expect(second.result.stop_reason).toBe("end_turn");
    expect(server.requests[1]!.json().messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user"]);
    await again.close();
    const listed = store.list();
    expect(listed.ok && listed.value.sessions.map((s) => s.messages)).toEqual([4]);
  });

  it("runs prompts one after another, and cancel ends only the running turn", async () => {
    // The first answer is slow: it is cancelled after its first words; the second prompt then runs.
    server.enqueue(unfinishedAnswer(["one", "two", "three", "four"]), openaiAnswer("Second answer."));
    const session = await createAgentSession({ agent: new Agent({ provider: await provider() }) });
    const first = session.prompt("first");
    const second = session.prompt("second");
    for await (const event of first) {
      if (event.type === "text_delta") session.cancel();
    }
    expect((await first.done).result.stop_reason).toBe("cancelled");
    const end = await second.done;
    expect(end.result.stop_reason).toBe("end_turn");
    expect(end.result.messages[0]!.content).toEqual([{ type: "text", text: "Second answer." }]);
    // The cancelled prompt stays in the conversation; the second request sends it too (merged by the provider).
    expect(session.conversation.messages.map((m) => m.role)).toEqual(["user", "user", "assistant"]);
    expect(end.session_id).toBeUndefined();
  });

  it("leaving the loop early cancels the turn", async () => {
    server.enqueue(unfinishedAnswer(["a", "b", "c", "d"]));
    const session = await createAgentSession({ agent: new Agent({ provider: await provider() }) });
    const turn = session.prompt("go");
    for await (const event of turn) if (event.type === "text_delta") break;
    expect((await turn.done).result.stop_reason).toBe("cancelled");
  });

  it("yields the tools' lives: tool_start, tool_end with the result, then the next model message", async () => {
    mkdirSync(join(dir, ".awl/extensions"), { recursive: true });
    writeFileSync(join(dir, ".awl/extensions/notes.lua"), `awl.register_tool("read_notes", { type = "object", properties = {} }, function() return "buy milk" end)`);
    server.enqueue({ body: openaiToolCalls([{ id: "call_1", name: "read_notes", input: {} }]) }, openaiAnswer("It says buy milk."));
    const tools = await LuaToolSet.open({ cwd: dir, env: { HOME: join(dir, "home"), PATH: process.env.PATH }, waitForLoad: true, trustProject: true });
    try {
      const session = await createAgentSession({ agent: new Agent({ provider: await provider(), tools }) });
      const events = await collect(session.prompt("notes?"));
      const types = events.map((e) => e.type).filter((t) => t !== "text_delta" && t !== "tool_input_delta");
      expect(types).toEqual([
        "message_start", "block_start", "block_complete", "message_complete", "message_appended",
        "tool_start", "tool_end", "message_appended",
        "message_start", "block_start", "block_complete", "message_complete", "message_appended", "turn_end",
      ]);
      expect(events.some((e) => e.type === "tool_input_delta")).toBe(true);
      const toolEnd = events.find((e) => e.type === "tool_end");
      expect(toolEnd?.type === "tool_end" && toolEnd.result).toEqual({ type: "tool_result", tool_use_id: "call_1", content: "buy milk" });
    } finally {
      await tools.close();
    }
  });
});
