/**
 * Permissions under `awl acp`: a call that asks is a `session/request_permission` to the editor (never a terminal
 * read), each answer does what it says, and `session/set_mode` switches the permission mode.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RequestPermissionRequest, RequestPermissionResponse } from "@agentclientprotocol/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openaiToolCalls } from "../e2e/support.js";
import type { ReplayServer } from "../support/replay-server.js";
import { acpPlaces, withAcp } from "./acp-client.js";
import { openaiAnswer } from "./openai-answer.js";

let server: ReplayServer;
let home: string;
let cwd: string;
beforeEach(async () => {
  ({ server, home, cwd } = await acpPlaces("awl-acp-perm-"));
  // A user extension (always trusted) whose tool runs commands: kinds undeclared, so exec, so it asks.
  mkdirSync(join(home, ".config", "awl", "extensions"), { recursive: true });
  writeFileSync(
    join(home, ".config", "awl", "extensions", "run.lua"),
    `awl.register_tool("run", { type = "object", properties = { command = { type = "string" } }, required = { "command" } },
       function(input) return "ran " .. input.command end)\n`,
  );
});
afterEach(() => server.close());

const env = () => ({ AWL_BASE_URL: `${server.url}/v1`, AWL_API_KEY: "sk-test", AWL_MODEL: "gpt-test" });
const selected = (optionId: string): RequestPermissionResponse => ({ outcome: { outcome: "selected", optionId } });
/** The tool result awl sent back for `id` in request `index`. */
const resultOf = (index: number, id: string): string => server.requests[index]!.json().messages.find((m: any) => m.role === "tool" && m.tool_call_id === id).content;
const offered = (index: number): string[] => (server.requests[index]!.json().tools ?? []).map((t: any) => t.function.name);
const call = (id: string, command: string) => ({ body: openaiToolCalls([{ id, name: "run", input: { command } }]) });

describe("awl acp: permission asks", () => {
  it("shows control characters of a model's call escaped, in the title and in the reason (issue 22 item 7a)", async () => {
    // The reason names the path the model gave (outside the workspace, so it asks).
    const hostile = "/tmp/notes\x1b[2K\rREADME.md";
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "read", input: { path: hostile } }]) }, openaiAnswer("One."));
    const asked: RequestPermissionRequest[] = [];
    const permission = (request: RequestPermissionRequest) => (asked.push(request), selected("deny"));
    await withAcp({ home, cwd, env: env(), handlers: { permission } }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
      expect((await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] })).stopReason).toBe("end_turn");
    });
    const title = asked[0]!.toolCall.title!;
    const text = (asked[0]!.toolCall.content![0] as { content: { text: string } }).content.text;
    for (const shown of [title, text]) expect(shown).not.toMatch(/[\x1b\r]/);
    expect(text).toContain("/tmp/notes\\e[2K\\rREADME.md");
  }, 60_000);

  it("asks the editor with the call and five options; deny, allow once and always allow (saved, not asked again) each do so", async () => {
    server.enqueue(call("c1", "make"), openaiAnswer("One."), call("c2", "make"), openaiAnswer("Two."), call("c3", "git status"), openaiAnswer("Three."));
    server.enqueue(call("c4", "git status"), openaiAnswer("Four."));
    const asked: RequestPermissionRequest[] = [];
    const answers = ["deny", "allow_once", "allow_always_project"];
    const permission = (request: RequestPermissionRequest) => (asked.push(request), selected(answers.shift()!));
    // A trusted folder: rules saved in its config count (an untrusted one is not offered that option, below).
    writeFileSync(join(home, ".config", "awl", "config.json"), JSON.stringify({ trusted_folders: [realpathSync(cwd)] }));
    await withAcp({ home, cwd, env: env(), args: ["--no-std-tools"], handlers: { permission } }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
      for (const text of ["one", "two", "three", "four"]) {
        expect((await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] })).stopReason).toBe("end_turn");
      }
      expect(asked[0]).toEqual({
        sessionId,
        toolCall: {
          toolCallId: "c1", title: "run make", kind: "execute", status: "pending", locations: [], rawInput: { command: "make" },
          content: [{ type: "content", content: { type: "text", text: 'awl asks because "run" is an exec tool (allowing adds "run(make)").' } }],
        },
        options: [
          { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
          { optionId: "allow_session", name: "Allow for this session", kind: "allow_always" },
          { optionId: "allow_always_project", name: "Always allow (saved in .awl/config.json)", kind: "allow_always" },
          { optionId: "allow_always_user", name: "Always allow (saved in your config)", kind: "allow_always" },
          { optionId: "deny", name: "Deny", kind: "reject_once" },
        ],
      });
    });
    expect(resultOf(1, "c1")).toBe("Error: the user denied this call");
    expect(resultOf(3, "c2")).toBe("ran make");
    expect(resultOf(5, "c3")).toBe("ran git status");
    // Saved in the project's config; the fourth call ran without a question.
    expect(asked.map((r) => r.toolCall.toolCallId)).toEqual(["c1", "c2", "c3"]);
    expect(resultOf(7, "c4")).toBe("ran git status");
    expect(JSON.parse(readFileSync(join(cwd, ".awl", "config.json"), "utf8"))).toEqual({ permissions: { allow: ["run(git status)"] } });
  });

  it("in a folder not trusted, offers no option saving into the folder's config (its rules would not count)", async () => {
    server.enqueue(call("c1", "make"), openaiAnswer("One."));
    const asked: RequestPermissionRequest[] = [];
    const permission = (request: RequestPermissionRequest) => (asked.push(request), selected("allow_always_user"));
    await withAcp({ home, cwd, env: env(), args: ["--no-std-tools"], handlers: { permission } }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
      expect((await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "one" }] })).stopReason).toBe("end_turn");
    });
    expect(asked[0]!.options.map((o) => o.optionId)).toEqual(["allow_once", "allow_session", "allow_always_user", "deny"]);
    expect(resultOf(1, "c1")).toBe("ran make");
  });

  it("an editor answering cancelled ends the prompt cancelled; one that cannot answer denies the call", async () => {
    server.enqueue(call("c1", "make"), call("c2", "make"), openaiAnswer("Denied, then."));
    let first = true;
    const permission = (): RequestPermissionResponse => {
      if (!first) throw new Error("no permission UI here");
      first = false;
      return { outcome: { outcome: "cancelled" } };
    };
    await withAcp({ home, cwd, env: env(), args: ["--no-std-tools"], handlers: { permission } }, async (ctx) => {
      const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
      expect((await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] })).stopReason).toBe("cancelled");
      expect((await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "again" }] })).stopReason).toBe("end_turn");
    });
    expect(resultOf(server.requests.length - 1, "c2")).toMatch(/^Error: the user denied this call and said: the editor could not be asked: /);
  });
});

describe("awl acp: modes", () => {
  it("session/new lists the permission modes; session/set_mode plan offers read tools only, says so, and refuses an unknown mode", async () => {
    server.enqueue(openaiAnswer("Default."), openaiAnswer("Planned."));
    await withAcp({ home, cwd, env: env() }, async (ctx, awl) => {
      const created = await ctx.request("session/new", { cwd, mcpServers: [] });
      expect(created.modes).toEqual({
        currentModeId: "default",
        availableModes: [
          { id: "default", name: "Default", description: "reads inside the folder run; writes, commands and network ask" },
          { id: "accept-edits", name: "Accept edits", description: "writes inside the folder run too; commands and network ask" },
          { id: "plan", name: "Plan", description: "read tools only: nothing is changed" },
          { id: "bypass", name: "Bypass permissions", description: "nothing asks: every call runs, only deny rules hold" },
        ],
      });
      const { sessionId } = created;
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
      expect(offered(0)).toEqual(expect.arrayContaining(["bash", "write", "read", "run"]));
      await ctx.request("session/set_mode", { sessionId, modeId: "plan" });
      await awl.waitForUpdate((u) => u.update.sessionUpdate === "current_mode_update" && u.update.currentModeId === "plan");
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "plan it" }] });
      // `task` too: a sub-agent inherits plan mode, so it can only read as well (docs/agents.md).
      expect(offered(1).sort()).toEqual(["exit_plan", "find", "grep", "ls", "read", "task", "todo"]);
      await expect(ctx.request("session/set_mode", { sessionId, modeId: "yolo" })).rejects.toThrow(/unknown mode "yolo": use default, accept-edits, plan, bypass/);
    });
  });

  it("an untrusted folder's extension never runs under awl acp; stderr names --trust-project", async () => {
    const marker = join(cwd, "ran");
    mkdirSync(join(cwd, ".awl", "extensions"), { recursive: true });
    writeFileSync(join(cwd, ".awl", "extensions", "evil.lua"), `io.open(${JSON.stringify(marker)}, "w"):close()\n`);
    server.enqueue(openaiAnswer("Hi."));
    await withAcp({ home, cwd, env: env() }, async (ctx, awl) => {
      const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
      expect(awl.stderr()).toContain("this folder is not trusted, so its .awl/extensions/ (1 Lua file) was not loaded; run with --trust-project");
    });
    expect(existsSync(marker)).toBe(false);
  });
});
