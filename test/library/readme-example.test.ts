// The README's "As a library" example, through the built package entry (what `import ... from "awl"` loads).
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { openaiText, openaiToolCalls } from "../e2e/support.js";
import { startReplayServer, type ReplayServer } from "../support/replay-server.js";
import { STD_TOOLS } from "../std/support.js";
import { tempDir } from "../support/temp-dir.js";

const awl = (await import(new URL("../../dist/index.js", import.meta.url).href)) as typeof import("../../src/index.js");

let server: ReplayServer;
let dir: string;
beforeEach(async () => {
  server = await startReplayServer();
  dir = tempDir("awl-lib-");
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

it("runs a tool-calling turn with a provider, Lua tools and the agent, as the README shows", async () => {
  mkdirSync(join(dir, "project/.awl/extensions"), { recursive: true });
  writeFileSync(
    join(dir, "project/.awl/extensions/notes.lua"),
    `awl.register_tool("read_notes", { type = "object", properties = { path = { type = "string" } }, required = { "path" } },
       function(input) return "notes in " .. input.path .. ": buy milk" end)`,
  );
  server.enqueue({ body: openaiToolCalls([{ id: "call_1", name: "read_notes", input: { path: "notes.txt" } }]) }, { body: openaiText("It says: buy milk.") });

  const provider = await awl.createProvider({
    provider: "openai", model: "gpt-4o-mini", baseUrl: `${server.url}/v1`, apiKey: "sk-test", maxRetries: 3, stallTimeoutMs: 90_000,
  });
  const env = { HOME: join(dir, "home"), PATH: process.env.PATH };
  const tools = await awl.LuaToolSet.open({ cwd: join(dir, "project"), env, trustProject: true });
  const conversation = new awl.Conversation();
  conversation.addUserMessage("What is in notes.txt?");
  let streamed = "";
  const textBlocks = new Set<number>();
  const turn = await new awl.Agent({ provider, tools }).runStep(conversation, {
    onMessageStart: () => textBlocks.clear(),
    onBlockStart: (type, index) => void (type === "text" && textBlocks.add(index)),
    onContentDelta: (index, delta) => void (textBlocks.has(index) && (streamed += delta)),
  });
  await tools.close();

  expect(turn.stop_reason).toBe("end_turn");
  // The answer's text only: not the tool call's input JSON, which streams as deltas too.
  expect(streamed).toBe("It says: buy milk.");
  // The project's tool, beside awl's bundled std tools (offered by default).
  expect(server.requests[0]!.json().tools.map((t: any) => t.function.name)).toEqual(["read_notes", ...STD_TOOLS].sort());
  const second = server.requests[1]!.json();
  expect(second.messages.at(-1)).toEqual({ role: "tool", tool_call_id: "call_1", content: "notes in notes.txt: buy milk" });
  expect(awl.conversationToJSON(conversation).messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
});

it("holds a saved conversation prompt by prompt through createAgentSession, as the README shows", async () => {
  mkdirSync(join(dir, "project/.awl/extensions"), { recursive: true });
  writeFileSync(
    join(dir, "project/.awl/extensions/notes.lua"),
    `awl.register_tool("read_notes", { type = "object", properties = {} }, function() return "buy milk" end)`,
  );
  server.enqueue({ body: openaiToolCalls([{ id: "call_1", name: "read_notes", input: {} }]) }, { body: openaiText("It says: buy milk.") }, { body: openaiText("Buy the milk.") });
  const provider = await awl.createProvider({
    provider: "openai", model: "gpt-4o-mini", baseUrl: `${server.url}/v1`, apiKey: "sk-test", maxRetries: 3, stallTimeoutMs: 90_000,
  });
  const env = { HOME: join(dir, "home"), PATH: process.env.PATH };
  const tools = await awl.LuaToolSet.open({ cwd: join(dir, "project"), env, waitForLoad: true });
  const store = new awl.SessionStore(join(dir, "sessions"));
  const out: string[] = [];
  const session = await awl.createAgentSession({ agent: new awl.Agent({ provider, tools }), store });
  for (const prompt of ["What is in notes.txt?", "Say it in three words."]) {
    for await (const event of session.prompt(prompt)) {
      if (event.type === "text_delta") out.push(event.text);
      else if (event.type === "tool_start") out.push(`[${event.call.name}]`);
      else if (event.type === "turn_end") out.push(`(${event.result.stop_reason}, session ${event.session_id})`);
    }
  }
  await session.close();
  await tools.close();
  expect(out).toEqual(["[read_notes]", "It says: buy milk.", `(end_turn, session ${session.id})`, "Buy the milk.", `(end_turn, session ${session.id})`]);
  const opened = store.open(session.id!);
  expect(opened.ok && opened.value.session.conversation.messages.length).toBe(6);
  if (opened.ok) opened.value.writer.close();
});
