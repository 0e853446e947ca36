/**
 * The `todo` std tool (docs/std-tools.md): the model's checklist shows as its block and on the status line, comes
 * back with a resumed session (`awl -c`), and reaches ACP clients as the session's plan.
 */
import { describe, expect, it } from "vitest";
import { openaiToolCalls } from "../e2e/support.js";
import { withAcp } from "./acp-client.js";
import { openaiAnswer } from "./openai-answer.js";
import { serverPerTest } from "./reach-support.js";
import { tempDir } from "./run-awl.js";
import { tmuxTest } from "./tmux-terminal.js";

const tty = tmuxTest();
const live = serverPerTest();

const LIST = (second: "pending" | "in_progress" | "completed") => ({
  todos: [
    { content: "read the parser", status: "completed" },
    { content: "fix the off-by-one", status: second },
    { content: "run the tests", status: "pending" },
  ],
});

describe("the todo list", () => {
  it("shows as the call's block and on the status line, updated by the next call, and again after awl -c", { timeout: 90_000 }, async () => {
    const project = tempDir("awl-todo-");
    tty.server.enqueue(
      { body: openaiToolCalls([{ id: "t1", name: "todo", input: LIST("pending") }]) },
      { body: openaiToolCalls([{ id: "t2", name: "todo", input: LIST("in_progress") }]) },
      openaiAnswer("Working on it."),
    );
    const home = await tty.start({ cwd: project, rows: 40 });
    await tty.send("fix the parser");
    const screen = await tty.terminal.waitFor(/Working on it\.\n/);
    expect(screen).toMatch(/✓ todo 1\/3 done\n {2}✔ read the parser\n {2}☐ fix the off-by-one\n {2}☐ run the tests/);
    expect(screen).toMatch(/✓ todo 1\/3 done\n {2}✔ read the parser\n {2}▶ fix the off-by-one\n {2}☐ run the tests/);
    await tty.terminal.waitFor(/· todo 1\/3 · fix the off-by-one/);
    await tty.terminal.keys("C-d");
    await tty.terminal.waitFor(/\[awl exited 0\]/);
    await tty.reopen();
    await tty.start({ cwd: project, home, args: ["-c"], rows: 40 });
    await tty.terminal.waitFor(/· todo 1\/3 · fix the off-by-one/);
  });

  it("a list of 500 items is refused naming the limit of 100, for the model and on screen; the list before it stands", { timeout: 90_000 }, async () => {
    const project = tempDir("awl-todo-");
    const many = { todos: Array.from({ length: 500 }, (_, i) => ({ content: `step ${i + 1}`, status: "pending" })) };
    tty.server.enqueue(
      { body: openaiToolCalls([{ id: "t1", name: "todo", input: LIST("in_progress") }]) },
      { body: openaiToolCalls([{ id: "t2", name: "todo", input: many }]) },
      openaiAnswer("I will keep it shorter."),
    );
    await tty.start({ cwd: project, rows: 40 });
    await tty.send("plan a big job");
    const screen = await tty.terminal.waitFor(/I will keep it shorter\.\n/);
    expect(screen).toMatch(/todos must NOT have more than 100 items/);
    // The refused list is not the list: the status line keeps the one before it.
    await tty.terminal.waitFor(/· todo 1\/3 · fix the off-by-one/);
    const sent = JSON.stringify(tty.server.requests[2]!.json().messages.at(-1));
    expect(sent).toContain("/todos must NOT have more than 100 items");
  });

  it("reaches an ACP client as the session's plan", { timeout: 90_000 }, async () => {
    const { cwd, home, env } = live.setUp();
    live.server.enqueue({ body: openaiToolCalls([{ id: "t1", name: "todo", input: LIST("in_progress") }]) }, openaiAnswer("On it."));
    await withAcp({ home, cwd, env }, async (ctx, awl) => {
      const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
      const done = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "fix it" }] });
      expect(done.stopReason).toBe("end_turn");
      const plan = await awl.waitForUpdate((n) => n.update.sessionUpdate === "plan");
      expect((plan.update as { entries: unknown[] }).entries).toEqual([
        { content: "read the parser", priority: "medium", status: "completed" },
        { content: "fix the off-by-one", priority: "medium", status: "in_progress" },
        { content: "run the tests", priority: "medium", status: "pending" },
      ]);
    });
  });
});
