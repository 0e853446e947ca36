/**
 * One `awl acp` process, sessions in several folders (as editors open them): each session's tools, relative
 * paths, commands, instruction files, project config and saved session belong to its own folder, whatever the
 * order of the prompts. And folder trust asked of the editor (`session/request_permission`) at a session's first
 * prompt, showing what the folder would load, remembered per folder in the user config.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RequestPermissionRequest, RequestPermissionResponse } from "@agentclientprotocol/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openaiToolCalls } from "../e2e/support.js";
import { EVERYTHING } from "../extensions/mcp/servers.js";
import { startReplayServer, type ReplayServer } from "../support/replay-server.js";
import { withAcp } from "./acp-client.js";
import { openaiAnswer } from "./openai-answer.js";
import { tempDir } from "./run-awl.js";

let server: ReplayServer;
let root: string;
let home: string;
beforeEach(async () => {
  server = await startReplayServer();
  root = tempDir("awl-acp-folders-");
  home = join(root, "home");
});
afterEach(() => server.close());

const env = () => ({ AWL_BASE_URL: `${server.url}/v1`, AWL_API_KEY: "sk-test", AWL_MODEL: "gpt-test" });
const selected = (optionId: string): RequestPermissionResponse => ({ outcome: { outcome: "selected", optionId } });
/** The tool result awl sent back for `id` in request `index`. */
const resultOf = (index: number, id: string): string => server.requests[index]!.json().messages.find((m: any) => m.role === "tool" && m.tool_call_id === id).content;
const systemOf = (index: number): string => server.requests[index]!.json().messages.find((m: any) => m.role === "system").content;
const offered = (index: number): string[] => (server.requests[index]!.json().tools ?? []).map((t: any) => t.function.name);
const toolCall = (id: string, name: string, input: object) => ({ body: openaiToolCalls([{ id, name, input }]) });

/** A folder with its own AGENTS.md and note.txt. */
function folder(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "AGENTS.md"), `Instructions of folder ${name}.\n`);
  writeFileSync(join(dir, "note.txt"), `note of ${name}\n`);
  return dir;
}

describe("awl acp: sessions in several folders", () => {
  it("two sessions in two folders, prompts interleaved: each reads, writes, runs and is configured in its own folder", async () => {
    const a = folder("alpha");
    const b = folder("beta");
    // beta's project config denies bash (deny rules count untrusted): only alpha's session is offered it.
    mkdirSync(join(b, ".awl"), { recursive: true });
    writeFileSync(join(b, ".awl", "config.json"), JSON.stringify({ permissions: { deny: ["bash"] } }));
    const asked: RequestPermissionRequest[] = [];
    const permission = (request: RequestPermissionRequest) => {
      asked.push(request);
      return selected("allow_once");
    };
    // The process starts in a third folder, which neither session uses.
    const start = folder("elsewhere");
    await withAcp({ home, cwd: start, env: env(), handlers: { permission } }, async (ctx) => {
      const sa = (await ctx.request("session/new", { cwd: a, mcpServers: [] })).sessionId;
      const sb = (await ctx.request("session/new", { cwd: b, mcpServers: [] })).sessionId;
      const prompt = (sessionId: string, text: string) => ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });

      server.enqueue(toolCall("a1", "read", { path: "note.txt" }), openaiAnswer("A read."));
      expect((await prompt(sa, "read the note")).stopReason).toBe("end_turn");
      server.enqueue(toolCall("b1", "read", { path: "note.txt" }), openaiAnswer("B read."));
      await prompt(sb, "read the note");
      server.enqueue(toolCall("a2", "bash", { command: "pwd && cat note.txt" }), openaiAnswer("A ran."));
      await prompt(sa, "where are you");
      server.enqueue(toolCall("b2", "write", { path: "out.txt", content: "written in beta\n" }), openaiAnswer("B wrote."));
      await prompt(sb, "write a file");

      expect(resultOf(1, "a1")).toContain("note of alpha");
      expect(resultOf(3, "b1")).toContain("note of beta");
      expect(resultOf(5, "a2")).toMatch(new RegExp(`^${a}\\nnote of alpha\\n`));
      expect(readFileSync(join(b, "out.txt"), "utf8")).toBe("written in beta\n");
      expect(existsSync(join(a, "out.txt")) || existsSync(join(start, "out.txt"))).toBe(false);
      // Each session's system prompt holds its own folder's instructions, and its tools its own folder's rules.
      for (const i of [0, 4]) expect(systemOf(i)).toContain("Instructions of folder alpha.");
      for (const i of [2, 6]) expect(systemOf(i)).toContain("Instructions of folder beta.");
      for (const i of [2, 6]) expect(systemOf(i)).not.toContain("alpha");
      expect(offered(0)).toContain("bash");
      expect(offered(2)).not.toContain("bash");
      // The asks name paths of the session's folder.
      const write = asked.find((r) => r.toolCall.toolCallId === "b2")!;
      expect(write.toolCall.locations).toEqual([{ path: join(b, "out.txt") }]);
    });
    // Each saved session records its own folder (what `awl -c` there continues).
    const dir = join(home, ".local", "share", "awl", "sessions");
    const headers = readdirSync(dir).filter((f) => f.endsWith(".jsonl")).map((f) => JSON.parse(readFileSync(join(dir, f), "utf8").split("\n")[0]!).cwd);
    expect(headers.sort()).toEqual([a, b]);
  }, 120_000);

  it("while one session's command runs in its folder, another session's turn runs in its own", async () => {
    const a = folder("alpha");
    const b = folder("beta");
    await withAcp({ home, cwd: root, env: env(), handlers: { permission: () => selected("allow_once") } }, async (ctx, awl) => {
      const sa = (await ctx.request("session/new", { cwd: a, mcpServers: [] })).sessionId;
      const sb = (await ctx.request("session/new", { cwd: b, mcpServers: [] })).sessionId;
      // alpha's command waits for a file the test makes once beta's whole turn is done.
      server.enqueue(
        toolCall("a1", "bash", { command: "while [ ! -f go ]; do sleep 0.05; done; pwd; cat note.txt" }),
        toolCall("b1", "read", { path: "note.txt" }),
        openaiAnswer("B done."),
        openaiAnswer("A done."),
      );
      const first = ctx.request("session/prompt", { sessionId: sa, prompt: [{ type: "text", text: "wait, then look" }] });
      await awl.waitForUpdate((n) => n.sessionId === sa && n.update.sessionUpdate === "tool_call_update" && n.update.status === "in_progress");
      expect((await ctx.request("session/prompt", { sessionId: sb, prompt: [{ type: "text", text: "read the note" }] })).stopReason).toBe("end_turn");
      writeFileSync(join(a, "go"), "");
      expect((await first).stopReason).toBe("end_turn");
      expect(resultOf(2, "b1")).toContain("note of beta");
      expect(resultOf(3, "a1")).toMatch(new RegExp(`^${a}\\nnote of alpha\\n`));
    });
  }, 120_000);

  it("a folder's .mcp.json servers run for the sessions of that folder only", async () => {
    const a = folder("alpha");
    const b = folder("beta");
    writeFileSync(join(b, ".mcp.json"), JSON.stringify({ mcpServers: { everything: { command: EVERYTHING } } }));
    // beta is trusted (which approves its .mcp.json, docs/permissions.md).
    mkdirSync(join(home, ".config", "awl"), { recursive: true });
    writeFileSync(join(home, ".config", "awl", "config.json"), JSON.stringify({ trusted_folders: [b] }));
    await withAcp({ home, cwd: root, env: env() }, async (ctx) => {
      const sb = (await ctx.request("session/new", { cwd: b, mcpServers: [] })).sessionId;
      const sa = (await ctx.request("session/new", { cwd: a, mcpServers: [] })).sessionId;
      server.enqueue(openaiAnswer("A."), openaiAnswer("B."));
      await ctx.request("session/prompt", { sessionId: sa, prompt: [{ type: "text", text: "hi" }] });
      await ctx.request("session/prompt", { sessionId: sb, prompt: [{ type: "text", text: "hi" }] });
    });
    expect(offered(0)).not.toContain("everything_echo");
    expect(offered(1)).toContain("everything_echo");
  }, 120_000);

  it("a session/new for a folder that does not exist, or a file, is refused naming it", async () => {
    const file = join(folder("gamma"), "note.txt");
    await withAcp({ home, cwd: root, env: env() }, async (ctx) => {
      await expect(ctx.request("session/new", { cwd: join(root, "missing"), mcpServers: [] })).rejects.toThrow(`cannot work in ${join(root, "missing")}: no such folder`);
      await expect(ctx.request("session/new", { cwd: file, mcpServers: [] })).rejects.toThrow(`cannot work in ${file}: it is not a folder`);
    });
  }, 120_000);
});

describe("awl acp: folder trust asked of the editor", () => {
  /** A folder whose extension writes a marker when it loads, and offers the tool `hello`. */
  function untrusted(name: string): { dir: string; marker: string } {
    const dir = folder(name);
    const marker = join(dir, "loaded");
    mkdirSync(join(dir, ".awl", "extensions"), { recursive: true });
    writeFileSync(
      join(dir, ".awl", "extensions", "hello.lua"),
      `io.open(${JSON.stringify(marker)}, "w"):close()\nawl.register_tool { name = "hello", kinds = { "read" }, run = function() return "hi" end }\n`,
    );
    return { dir, marker };
  }
  const userConfig = () => join(home, ".config", "awl", "config.json");
  const trustedFolders = (): unknown => (existsSync(userConfig()) ? JSON.parse(readFileSync(userConfig(), "utf8")).trusted_folders : undefined);

  it("asks at the first prompt, showing what would load: no keeps it unloaded; for this session loads it; always remembers the folder", async () => {
    const { dir, marker } = untrusted("repo");
    const questions: RequestPermissionRequest[] = [];
    const answers = ["dont_trust", "trust_session", "trust_always"];
    const permission = (request: RequestPermissionRequest) => {
      questions.push(request);
      return selected(answers[questions.length - 1]!);
    };
    await withAcp({ home, cwd: dir, env: env(), handlers: { permission } }, async (ctx, awl) => {
      const prompt = async () => {
        const { sessionId } = await ctx.request("session/new", { cwd: dir, mcpServers: [] });
        expect(existsSync(marker)).toBe(false);
        server.enqueue(openaiAnswer("Hi."));
        await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
        return sessionId;
      };
      // No: nothing of the folder ran, its tool is not offered.
      const first = await prompt();
      expect(questions[0]).toMatchObject({ sessionId: first, toolCall: { title: `Trust the folder ${dir}?`, locations: [{ path: join(dir, ".awl", "extensions") }] } });
      expect(JSON.stringify(questions[0]!.toolCall.content)).toContain(".awl/extensions/ (1 Lua file)");
      expect(questions[0]!.options.map((o) => o.optionId)).toEqual(["trust_always", "trust_session", "dont_trust"]);
      expect(existsSync(marker)).toBe(false);
      expect(offered(0)).not.toContain("hello");
      await awl.waitForUpdate((n) => n.sessionId === first && n.update.sessionUpdate === "tool_call_update" && n.update.status === "failed");

      // For this session: it loads before the model is asked, and is not remembered; the session goes on trusted.
      const second = await prompt();
      expect(existsSync(marker)).toBe(true);
      expect(offered(1)).toContain("hello");
      expect(trustedFolders()).toBeUndefined();
      server.enqueue(openaiAnswer("Again."));
      expect((await ctx.request("session/prompt", { sessionId: second, prompt: [{ type: "text", text: "again" }] })).stopReason).toBe("end_turn");
      expect(offered(2)).toContain("hello");
      expect(questions).toHaveLength(2);
      rmSync(marker);

      // Always: remembered in the user config; the next session of the folder is not asked again.
      await prompt();
      expect(existsSync(marker)).toBe(true);
      expect(trustedFolders()).toEqual([dir]);
      rmSync(marker);
      await prompt();
      expect(questions).toHaveLength(3);
      // Offered (from the registration cache of the trusted run: its code runs when a worker starts).
      expect(offered(4)).toContain("hello");
    });
  }, 120_000);

  it("an editor that cannot answer, or a prompt cancelled while it asks, leaves the folder untrusted", async () => {
    const { dir, marker } = untrusted("cloned");
    await withAcp({ home, cwd: dir, env: env() }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: dir, mcpServers: [] });
      server.enqueue(openaiAnswer("Hi."));
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
      expect(offered(0)).not.toContain("hello");
    });
    // An editor that shows the question and answers "cancelled" once the prompt is cancelled, as ACP says.
    let asked: () => void = () => {};
    const shown = new Promise<void>((resolve) => (asked = resolve));
    let cancel: () => void = () => {};
    let questions = 0;
    const permission = () => {
      // The first question stays open until the prompt is cancelled; the next prompt's is answered "no".
      if (++questions > 1) return selected("dont_trust");
      return new Promise<RequestPermissionResponse>((resolve) => {
        cancel = () => resolve({ outcome: { outcome: "cancelled" } });
        asked();
      });
    };
    await withAcp({ home, cwd: dir, env: env(), handlers: { permission } }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd: dir, mcpServers: [] });
      const running = ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
      await shown;
      await ctx.notify("session/cancel", { sessionId });
      cancel();
      expect((await running).stopReason).toBe("cancelled");
      server.enqueue(openaiAnswer("Hi."));
      expect((await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] })).stopReason).toBe("end_turn");
      expect(questions).toBe(2);
    });
    expect(existsSync(marker)).toBe(false);
    expect(server.requests).toHaveLength(2);
    expect(offered(1)).not.toContain("hello");
    expect(trustedFolders()).toBeUndefined();
  }, 120_000);
});
