/** `awl acp` driven by the ACP SDK's client side against the replay server: what an editor sees. */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openaiToolCalls } from "../e2e/support.js";
import type { ReplayServer } from "../support/replay-server.js";
import { acpPlaces, agentText, withAcp } from "./acp-client.js";
import { openaiAnswer, unfinishedAnswer } from "./openai-answer.js";
import { conversationSent } from "../support/sent.js";
import { PNG_1X1 } from "../support/images.js";
import { EVERYTHING } from "../extensions/mcp/servers.js";
import { allRunning, forkingCommand, noneLeft } from "../support/processes.js";

let server: ReplayServer;
let home: string;
let cwd: string;
beforeEach(async () => {
  ({ server, home, cwd } = await acpPlaces("awl-acp-"));
});
afterEach(() => server.close());

const env = () => ({ AWL_BASE_URL: `${server.url}/v1`, AWL_API_KEY: "sk-test", AWL_MODEL: "gpt-test" });

/** An answer whose first word comes at once and each next one 300 ms later. */
/** A project tool that writes files (the std names are reserved): it replaces a file's text, shows its path, renders a block. */
function writeTool(): void {
  mkdirSync(join(cwd, ".awl/extensions"), { recursive: true });
  writeFileSync(
    join(cwd, ".awl/extensions/files.lua"),
    `awl.register_tool {
       name = "save_file", description = "Write a file.", kinds = { "write" },
       parameters = { type = "object", properties = { path = { type = "string" }, content = { type = "string" } }, required = { "path", "content" } },
       run = function(input, ctx)
         local f = assert(io.open(input.path, "w")); f:write(input.content); f:close()
         ctx:show({ path = input.path })
         return "wrote " .. input.path
       end,
       render = function(state, view) return "rendered block for " .. state.path end,
     }`,
  );
}

describe("awl acp", () => {
  it("initializes, streams a text turn as message chunks, and saves the session for session/load", async () => {
    server.enqueue(openaiAnswer("Hello from awl over ACP."), openaiAnswer("Again."));
    const sessionId = await withAcp({ home, cwd, env: env() }, async (ctx, awl) => {
      const init = await ctx.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
      expect(init).toMatchObject({
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: { loadSession: true, promptCapabilities: { image: true, embeddedContext: true } },
        agentInfo: { name: "awl" },
      });
      const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
      const response = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
      expect(response.stopReason).toBe("end_turn");
      expect(agentText(awl.updates)).toBe("Hello from awl over ACP.");
      expect(awl.updates.filter((u) => u.update.sessionUpdate === "agent_message_chunk").length).toBeGreaterThan(1);
      expect(awl.updates.every((u) => u.sessionId === sessionId)).toBe(true);
      // After the turn: how full the context window is (the model is not in the catalogue: the default window, no price).
      expect(awl.updates.at(-1)!.update).toEqual({ sessionUpdate: "usage_update", used: 14, size: 128_000 });
      return sessionId;
    });
    // The session id is the saved session's: another awl acp loads it and replays it, then goes on.
    expect(readdirSync(join(home, ".local/share/awl/sessions"))).toContain(`${sessionId}.jsonl`);
    await withAcp({ home, cwd, env: env() }, async (ctx, awl) => {
      await ctx.request("session/load", { sessionId, cwd, mcpServers: [] });
      expect(awl.updates.map((u) => u.update.sessionUpdate)).toEqual(["user_message_chunk", "agent_message_chunk"]);
      expect(agentText(awl.updates)).toBe("Hello from awl over ACP.");
      const mark = awl.updates.length;
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "more" }] });
      expect(agentText(awl.updates.slice(mark))).toBe("Again.");
      expect(conversationSent(server.requests[1]!.json()).map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user"]);
    });
  });

  it("a prompt's image reaches the model, and session/load replays it as a user chunk", async () => {
    server.enqueue(openaiAnswer("A red dot."));
    const model = { ...env(), AWL_MODEL: "gpt-4o" }; // known to the catalogue: no window lookup on the replay server
    const sessionId = await withAcp({ home, cwd, env: model }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
      const prompt = [{ type: "text", text: "What is this?" }, { type: "image", mimeType: "image/png", data: PNG_1X1 }];
      expect((await ctx.request("session/prompt", { sessionId, prompt })).stopReason).toBe("end_turn");
      const bad = ctx.request("session/prompt", { sessionId, prompt: [{ type: "image", mimeType: "image/gif", data: PNG_1X1 }] });
      await expect(bad).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("prompt block 0 (image) says image/gif, but its data is not a GIF image") });
      return sessionId;
    });
    expect(server.requests.at(-1)!.json().messages.at(-1)).toEqual({
      role: "user",
      content: [{ type: "text", text: "What is this?" }, { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_1X1}` } }],
    });
    await withAcp({ home, cwd, env: model }, async (ctx, awl) => {
      await ctx.request("session/load", { sessionId, cwd, mcpServers: [] });
      expect(awl.updates.map((u) => u.update)).toEqual([
        { sessionUpdate: "user_message_chunk", content: { type: "text", text: "What is this?" } },
        { sessionUpdate: "user_message_chunk", content: { type: "image", mimeType: "image/png", data: PNG_1X1 } },
        { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "A red dot." } },
      ]);
    });
  });

  it("runs the MCP servers the client passes in session/new: their tools are offered and called", async () => {
    server.enqueue({ body: openaiToolCalls([{ id: "call_e", name: "everything_echo", input: { message: "via the editor" } }]) }, openaiAnswer("Echoed."));
    const model = { ...env(), AWL_MODEL: "gpt-4o" };
    await withAcp({ home, cwd, env: model, args: ["--allow", "everything_echo"] }, async (ctx, awl) => {
      const init = await ctx.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
      expect(init.agentCapabilities.mcpCapabilities).toEqual({ http: true, sse: true });
      const mcpServers = [
        { name: "everything", command: EVERYTHING, args: [], env: [{ name: "AWL_TEST_MARK", value: "${NOT_EXPANDED}" }] },
        { name: "missing", command: join(cwd, "no-such-server"), args: [], env: [] },
      ];
      const { sessionId } = await ctx.request("session/new", { cwd, mcpServers });
      expect((await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "echo it" }] })).stopReason).toBe("end_turn");
      const result = awl.updates.map((u) => u.update).find((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
      expect(JSON.stringify(result)).toContain("Echo: via the editor");
      expect(agentText(awl.updates)).toBe("Echoed.");
    });
    const offered = server.requests[0]!.json().tools.map((t: { function: { name: string } }) => t.function.name);
    expect(offered).toContain("everything_echo");
  }, 60_000);

  it("a tool turn: tool_call with kind, title and location, then updates with status, content and the edit's diff", async () => {
    writeTool();
    writeFileSync(join(cwd, "notes.txt"), "old text\n");
    server.enqueue({ body: openaiToolCalls([{ id: "call_1", name: "save_file", input: { path: "notes.txt", content: "new text\n" } }]) }, openaiAnswer("Done."));
    // A write asks (docs/permissions.md): the editor allows it once (test/cli/acp-permissions.test.ts has the rest).
    const asked: string[] = [];
    const handlers = { permission: (r: { toolCall: { toolCallId: string } }) => (asked.push(r.toolCall.toolCallId), { outcome: { outcome: "selected" as const, optionId: "allow_once" } }) };
    const sessionId = await withAcp({ home, cwd, env: env(), args: ["--trust-project"], handlers }, async (ctx, awl) => {
      const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
      const response = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "rewrite notes" }] });
      expect(asked).toEqual(["call_1"]);
      expect(response.stopReason).toBe("end_turn");
      const tools = awl.updates.map((u) => u.update).filter((u) => u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update");
      expect(tools).toEqual([
        {
          sessionUpdate: "tool_call", toolCallId: "call_1", title: "save_file notes.txt", kind: "edit", status: "pending",
          locations: [{ path: join(cwd, "notes.txt") }], rawInput: { path: "notes.txt", content: "new text\n" },
        },
        { sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "in_progress" },
        {
          sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "completed",
          content: [
            { type: "diff", path: join(cwd, "notes.txt"), oldText: "old text\n", newText: "new text\n" },
            { type: "content", content: { type: "text", text: "wrote notes.txt" } },
          ],
          rawOutput: { content: "wrote notes.txt" },
        },
      ]);
      expect(agentText(awl.updates)).toBe("Done.");
      return sessionId;
    });
    expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("new text\n");
    // Loaded again: the tool block comes back from its saved snapshot, drawn by the tool's render; nothing runs.
    writeFileSync(join(cwd, "notes.txt"), "changed since\n");
    await withAcp({ home, cwd, env: env(), args: ["--trust-project"] }, async (ctx, awl) => {
      await ctx.request("session/load", { sessionId, cwd, mcpServers: [] });
      const updates = awl.updates.map((u) => u.update);
      expect(updates.map((u) => u.sessionUpdate)).toEqual(["user_message_chunk", "tool_call", "tool_call_update", "agent_message_chunk"]);
      expect(updates[1]).toMatchObject({ toolCallId: "call_1", title: "save_file notes.txt", kind: "edit" });
      expect(updates[2]).toEqual({
        sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "completed",
        content: [{ type: "content", content: { type: "text", text: "rendered block for notes.txt" } }],
      });
    });
    expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("changed since\n");
  });

  it("the provider's own web search: one ended tool_call of kind search between the text before and after it", async () => {
    mkdirSync(join(home, ".config", "awl"), { recursive: true });
    writeFileSync(join(home, ".config", "awl", "config.json"), JSON.stringify({ search: { backend: "provider" } }));
    server.enqueue({ body: readFileSync(new URL("../fixtures/anthropic/web-search.sse", import.meta.url)) });
    const anthropic = { AWL_PROVIDER: "anthropic", AWL_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-test", AWL_MODEL: "claude-sonnet-4-5" };
    await withAcp({ home, cwd, env: anthropic }, async (ctx, awl) => {
      const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
      const response = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "When was Claude Shannon born?" }] });
      expect(response.stopReason).toBe("end_turn");
      const updates = awl.updates.map((u) => u.update);
      const search = updates.findIndex((u) => u.sessionUpdate === "tool_call");
      expect(updates[search]).toEqual({
        sessionUpdate: "tool_call", toolCallId: "srvtoolu_014hJH82Qum7Td6UV8gDXThB", title: "web_search claude shannon birth date",
        kind: "search", status: "completed", rawInput: { query: "claude shannon birth date" }, content: [],
      });
      // The text before the search is all sent before it, the cited answer after it.
      expect(agentText(awl.updates.slice(0, search))).toBe("I'll search for when Claude Shannon was born.");
      expect(agentText(awl.updates.slice(search))).toBe("Claude Shannon was born on April 30, 1916, in Petoskey, Michigan");
    });
  });

  it("session/cancel mid-stream ends the prompt cancelled; the next prompt works", async () => {
    server.enqueue(unfinishedAnswer(["one", "two", "three", "four", "five"]), openaiAnswer("Next answer."));
    await withAcp({ home, cwd, env: env() }, async (ctx, awl) => {
      const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
      const prompt = ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
      await awl.waitForUpdate((u) => u.update.sessionUpdate === "agent_message_chunk");
      await ctx.notify("session/cancel", { sessionId });
      expect((await prompt).stopReason).toBe("cancelled");
      const mark = awl.updates.length;
      expect((await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "again" }] })).stopReason).toBe("end_turn");
      expect(agentText(awl.updates.slice(mark))).toBe("Next answer.");
    });
  });
  it("session/cancel while bash runs kills the command and every process it started; the next prompt works", async () => {
    const { command, lengths } = forkingCommand();
    server.enqueue({ body: openaiToolCalls([{ id: "b1", name: "bash", input: { command } }]) }, openaiAnswer("Next answer."));
    const permission = () => ({ outcome: { outcome: "selected" as const, optionId: "allow_once" } });
    await withAcp({ home, cwd, env: env(), handlers: { permission } }, async (ctx, awl) => {
      const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
      const prompt = ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run it" }] });
      await allRunning(lengths);
      await ctx.notify("session/cancel", { sessionId });
      expect((await prompt).stopReason).toBe("cancelled");
      await noneLeft(lengths);
      expect((await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "again" }] })).stopReason).toBe("end_turn");
    });
  });
});

describe("awl acp: bad input", () => {
  it("answers malformed JSON-RPC, unknown methods and unknown sessions with errors; a client gone mid-turn: cancel, save, exit 0", async () => {
    server.enqueue(unfinishedAnswer(["never", "finished", "answer", "at", "all"]));
    const { spawn } = await import("node:child_process");
    const { AWL } = await import("./run-awl.js");
    const child = spawn(process.execPath, [AWL, "acp", "--trust-project"], { cwd, env: { PATH: process.env.PATH ?? "", TMPDIR: tmpdir(), HOME: home, ...env() } });
    let stdout = "";
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const lines = (): any[] => stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l));
    const answered = (id: number | null): Promise<any> =>
      new Promise((resolve) => {
        const check = (): void => {
          const found = lines().find((l) => l.id === id && ("result" in l || "error" in l));
          if (found) resolve(found);
        };
        child.stdout.on("data", check);
        check();
      });
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    const exit = new Promise<number | null>((resolve) => child.on("close", resolve));
    const send = (message: object | string): void => void child.stdin.write(`${typeof message === "string" ? message : JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);

    send("{not json");
    expect((await answered(null)).error.code).toBe(-32700);
    send({ id: 1, method: "initialize", params: { protocolVersion: PROTOCOL_VERSION } });
    expect((await answered(1)).result.agentInfo.name).toBe("awl");
    send({ id: 2, method: "bogus/method", params: {} });
    expect((await answered(2)).error.code).toBe(-32601);
    send({ id: 3, method: "session/prompt", params: { sessionId: "no-such-session", prompt: [{ type: "text", text: "x" }] } });
    expect((await answered(3)).error).toMatchObject({ code: -32002, data: { sessionId: "no-such-session" } });
    send({ id: 4, method: "session/new", params: { cwd: "relative/dir", mcpServers: [] } });
    expect((await answered(4)).error.message).toContain("cwd must be an absolute path");

    send({ id: 7, method: "session/load", params: { sessionId: "20261201-000000-000-abcdef", cwd, mcpServers: [] } });
    expect((await answered(7)).error).toMatchObject({ code: -32002, data: { sessionId: "20261201-000000-000-abcdef" } });
    send({ id: 5, method: "session/new", params: { cwd, mcpServers: [] } });
    const { sessionId } = (await answered(5)).result;
    send({ id: 6, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "a question left unanswered" }] } });
    await new Promise<void>((resolve) => {
      const check = (): void => void (lines().some((l) => l.method === "session/update") && resolve());
      child.stdout.on("data", check);
      check();
    });
    child.stdin.end();
    expect(await exit).toBe(0);
    expect(stderr).not.toMatch(/\n\s+at /);
    // stdout held protocol messages only; the session was saved with the prompt.
    expect(lines().every((l) => l.jsonrpc === "2.0")).toBe(true);
    const saved = readFileSync(join(home, ".local/share/awl/sessions", `${sessionId}.jsonl`), "utf8");
    expect(saved).toContain("a question left unanswered");
  });
});

describe("awl acp: the client's file system", () => {
  it("the std read and write tools go through fs/read_text_file and fs/write_text_file when the client offers them", async () => {
    writeFileSync(join(cwd, "notes.txt"), "saved on disk\n");
    server.enqueue(
      { body: openaiToolCalls([{ id: "call_r", name: "read", input: { path: "notes.txt" } }]) },
      { body: openaiToolCalls([{ id: "call_w", name: "write", input: { path: "notes.txt", content: "written by the model\n" } }]) },
      openaiAnswer("Done."),
    );
    const reads: string[] = [];
    const writes: { path: string; content: string }[] = [];
    await withAcp(
      {
        // accept-edits: the write inside the folder runs without asking.
        home, cwd, env: env(), args: ["--permission-mode", "accept-edits"],
        handlers: {
          capabilities: { fs: { readTextFile: true, writeTextFile: true } },
          readTextFile: (request) => {
            reads.push(request.path);
            return { content: "unsaved buffer text\nsecond line\n" };
          },
          writeTextFile: (request) => void writes.push({ path: request.path, content: request.content }),
        },
      },
      async (ctx) => {
        const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
        expect((await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "edit notes" }] })).stopReason).toBe("end_turn");
      },
    );
    expect(reads).toContain(join(cwd, "notes.txt"));
    // The model read the editor's buffer, not the file on disk.
    const afterRead = server.requests[1]!.json().messages.at(-1);
    expect(afterRead.content).toContain("unsaved buffer text");
    expect(afterRead.content).not.toContain("saved on disk");
    expect(writes).toEqual([{ path: join(cwd, "notes.txt"), content: "written by the model\n" }]);
    expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("saved on disk\n");
  });
});
