/**
 * Plan mode as a flow (docs/permissions.md, "Plan mode"): Shift-Tab cycles the mode on the status line; in plan mode
 * the model explores with the read tools and ends with `exit_plan`; the user approves (the next request carries the
 * plan and the write tools), edits or rejects it (plan mode stays, the model hears why). Headless, the plan is
 * printed and the run exits 0; over ACP the client answers and hears of the new mode.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openaiToolCalls } from "../e2e/support.js";
import type { LoggedRequest } from "../support/replay-server.js";
import { withAcp } from "./acp-client.js";
import { openaiAnswer } from "./openai-answer.js";
import { serverPerTest } from "./reach-support.js";
import { runAwl, tempDir } from "./run-awl.js";
import { tmuxTest } from "./tmux-terminal.js";

const tty = tmuxTest();
const live = serverPerTest();

const PLAN = "## Plan\n\n1. Change `count` in src/a.ts\n2. Run the tests";

interface Request {
  tools?: { function: { name: string } }[];
  messages: { role: string; content: unknown }[];
}
const body = (request: LoggedRequest): Request => request.json() as Request;
const tools = (request: LoggedRequest): string[] => (body(request).tools ?? []).map((t) => t.function.name);
const lastMessage = (request: LoggedRequest): string => JSON.stringify(body(request).messages.at(-1));

/** A project with one file to explore. */
function project(): string {
  const cwd = tempDir("awl-plan-");
  writeFileSync(join(cwd, "a.ts"), "export const count = 1;\n");
  return cwd;
}

describe("plan mode in the terminal", () => {
  it("Shift-Tab reaches plan mode; the model explores, proposes, the user approves, and the next request carries the plan and the write tools", { timeout: 90_000 }, async () => {
    const cwd = project();
    tty.server.enqueue(
      { body: openaiToolCalls([{ id: "r1", name: "read", input: { path: "a.ts" } }]) },
      { body: openaiToolCalls([{ id: "p1", name: "exit_plan", input: { plan: PLAN } }]) },
      openaiAnswer("Carrying it out."),
    );
    await tty.start({ cwd });
    await tty.terminal.keys("BTab");
    await tty.terminal.waitFor(/mode accept-edits · /);
    await tty.terminal.keys("BTab");
    await tty.terminal.waitFor(/mode plan · /);
    await tty.send("make count 2");
    const asked = await tty.terminal.waitFor(/Approve the plan\?/);
    expect(asked).toMatch(/The model proposes this plan:/);
    expect(asked).toMatch(/1\. Change count in src\/a\.ts|1\. Change `count` in src\/a\.ts/);
    await tty.terminal.type("a");
    await tty.terminal.waitFor(/Carrying it out\./);
    await tty.terminal.waitFor(/mode accept-edits · /);
    const [explore, propose, work] = tty.server.requests;
    // Plan mode: read tools and exit_plan, nothing that writes or runs.
    expect(tools(explore!)).toContain("exit_plan");
    expect(tools(explore!)).toContain("read");
    expect(tools(explore!)).not.toContain("edit");
    expect(tools(explore!)).not.toContain("bash");
    expect(tools(propose!)).not.toContain("write");
    // Approved: the plan is in the request, with the write tools, and exit_plan is gone.
    expect(lastMessage(work!)).toContain("The user approved the plan");
    expect(lastMessage(work!)).toContain("Change `count` in src/a.ts");
    expect(tools(work!)).toEqual(expect.arrayContaining(["edit", "write", "bash"]));
    expect(tools(work!)).not.toContain("exit_plan");
  });

  it("a rejected plan keeps plan mode and tells the model what to change", { timeout: 90_000 }, async () => {
    const cwd = project();
    tty.server.enqueue(
      { body: openaiToolCalls([{ id: "p1", name: "exit_plan", input: { plan: PLAN } }]) },
      openaiAnswer("I will revise it."),
    );
    await tty.start({ cwd, args: ["--permission-mode", "plan"] });
    await tty.terminal.waitFor(/mode plan · /);
    await tty.send("make count 2");
    await tty.terminal.waitFor(/Approve the plan\?/);
    await tty.terminal.type("n");
    await tty.terminal.waitFor(/what should change\?/);
    await tty.send("use a constant instead");
    await tty.terminal.waitFor(/I will revise it\./);
    await tty.terminal.waitFor(/mode plan · /);
    const revise = tty.server.requests[1]!;
    expect(lastMessage(revise)).toContain("The user rejected the plan and said: use a constant instead");
    expect(lastMessage(revise)).toContain("still in plan mode");
    expect(tools(revise)).toContain("exit_plan");
    expect(tools(revise)).not.toContain("edit");
  });

  it("e edits the plan in $EDITOR; the approved plan is the edited one", { timeout: 90_000 }, async () => {
    const cwd = project();
    const editor = join(cwd, "editor.sh");
    writeFileSync(editor, "#!/bin/sh\nprintf '1. Rename count to total\\n' > \"$1\"\n", { mode: 0o755 });
    tty.server.enqueue({ body: openaiToolCalls([{ id: "p1", name: "exit_plan", input: { plan: PLAN } }]) }, openaiAnswer("Renaming."));
    await tty.start({ cwd, args: ["--permission-mode", "plan"], extraEnv: [`EDITOR=${editor}`] });
    await tty.send("make count 2");
    await tty.terminal.waitFor(/Approve the plan\?/);
    await tty.terminal.type("e");
    await tty.terminal.waitFor(/The plan as you edited it:\n\s+1\. Rename count to total/);
    await tty.terminal.type("y");
    await tty.terminal.waitFor(/Renaming\./);
    const work = tty.server.requests[1]!;
    expect(lastMessage(work)).toContain("approved the plan as they edited it");
    expect(lastMessage(work)).toContain("Rename count to total");
    expect(lastMessage(work)).not.toContain("Run the tests");
    // y: the default mode, where edits ask (not shown on the status line).
    expect(tools(work)).toContain("edit");
    await tty.terminal.waitFor(/^(?!.*mode plan).*gpt-test/m);
  });
});

describe("plan mode headless and over ACP", () => {
  it("awl -p --permission-mode plan prints the plan and exits 0, nothing changed (a write beside exit_plan is refused)", { timeout: 60_000 }, async () => {
    const { cwd, home, env } = live.setUp();
    writeFileSync(join(cwd, "a.ts"), "export const count = 1;\n");
    live.server.enqueue(
      { body: openaiToolCalls([{ id: "r1", name: "read", input: { path: "a.ts" } }]) },
      // The model tries to approve its own plan by writing in the same reply: only the user leaves plan mode.
      { body: openaiToolCalls([{ id: "p1", name: "exit_plan", input: { plan: PLAN } }, { id: "w1", name: "write", input: { path: "a.ts", content: "export const count = 2;\n" } }]) },
    );
    const run = await runAwl(["-p", "--permission-mode", "plan", "make count 2"], { cwd, env: { ...env, HOME: home } });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${PLAN}\n`);
    expect(readFileSync(join(cwd, "a.ts"), "utf8")).toBe("export const count = 1;\n");
    // The turn ended with the plan: no third request, and the mode never left plan.
    expect(live.server.requests).toHaveLength(2);
  });

  it("--output-format stream-json carries the plan as the exit_plan call, ends the turn there and prints JSON only", { timeout: 60_000 }, async () => {
    const { cwd, home, env } = live.setUp();
    live.server.enqueue({ body: openaiToolCalls([{ id: "p1", name: "exit_plan", input: { plan: PLAN } }]) });
    const run = await runAwl(["-p", "--permission-mode", "plan", "--output-format", "stream-json", "make count 2"], { cwd, env: { ...env, HOME: home } });
    expect(run.code, run.stderr).toBe(0);
    const events = run.stdout.trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(JSON.stringify(events)).toContain(JSON.stringify({ plan: PLAN }));
    expect(events.at(-1)).toMatchObject({ type: "result", stop_reason: "end_turn" });
    expect(live.server.requests).toHaveLength(1);
  });

  it("over ACP the client approves the plan and is told of the new mode; the next request has the write tools", { timeout: 90_000 }, async () => {
    const { cwd, home, env } = live.setUp();
    live.server.enqueue({ body: openaiToolCalls([{ id: "p1", name: "exit_plan", input: { plan: PLAN } }]) }, openaiAnswer("On it."));
    const asked: string[] = [];
    await withAcp(
      {
        home,
        cwd,
        env,
        handlers: {
          permission: (request) => {
            asked.push(JSON.stringify(request));
            return { outcome: { outcome: "selected", optionId: "plan_accept_edits" } };
          },
        },
      },
      async (ctx, awl) => {
        const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
        await ctx.request("session/set_mode", { sessionId, modeId: "plan" });
        const done = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "make count 2" }] });
        expect(done.stopReason).toBe("end_turn");
        await awl.waitForUpdate((n) => n.update.sessionUpdate === "current_mode_update" && n.update.currentModeId === "accept-edits");
      },
    );
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain("Yes, and accept edits");
    expect(asked[0]).toContain("Change `count` in src/a.ts");
    expect(tools(live.server.requests[0]!)).toContain("exit_plan");
    expect(tools(live.server.requests[1]!)).toContain("edit");
  });

  it("over ACP a client with a file system edits the plan first: written to .awl/plan.md, asked again, read back on approval", { timeout: 90_000 }, async () => {
    const { cwd, home, env } = live.setUp();
    live.server.enqueue({ body: openaiToolCalls([{ id: "p1", name: "exit_plan", input: { plan: PLAN } }]) }, openaiAnswer("On it."));
    const asked: string[] = [];
    const buffers = new Map<string, string>();
    await withAcp(
      {
        home,
        cwd,
        env,
        handlers: {
          capabilities: { fs: { readTextFile: true, writeTextFile: true } },
          writeTextFile: (request) => void buffers.set(request.path, request.content),
          // The user's edit, not saved yet: the editor's buffer is what is read.
          readTextFile: (request) => ({ content: `${buffers.get(request.path)}\n3. Also update the changelog.` }),
          permission: (request) => {
            asked.push(JSON.stringify(request));
            return { outcome: { outcome: "selected", optionId: asked.length === 1 ? "plan_edit" : "plan_default" } };
          },
        },
      },
      async (ctx) => {
        const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
        await ctx.request("session/set_mode", { sessionId, modeId: "plan" });
        const done = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "make count 2" }] });
        expect(done.stopReason).toBe("end_turn");
      },
    );
    const file = join(cwd, ".awl", "plan.md");
    expect(asked).toHaveLength(2);
    expect(asked[0]).toContain(`No, edit the plan first (in ${file})`);
    expect(buffers.get(file)).toBe(PLAN);
    // Asked again, pointing at the file, without the edit option.
    expect(asked[1]).toContain(`The plan is in ${file}`);
    expect(asked[1]).toContain(JSON.stringify({ path: file }));
    expect(asked[1]).not.toContain("plan_edit");
    const result = JSON.stringify(live.server.requests[1]!.json().messages.at(-1));
    expect(result).toContain("the plan as they edited it");
    expect(result).toContain("Also update the changelog.");
  });
});
