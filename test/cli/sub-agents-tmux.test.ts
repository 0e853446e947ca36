/**
 * Sub-agents in a real terminal (tmux), against the local replay server: a sub-agent's write asks through the
 * parent's prompt, labelled with its name; the running sub-agent is a live block; Esc during a sub-agent's tool
 * cancels both, and every tool_use (the parent's `task` and the child's) still gets its result.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openaiToolCalls } from "../e2e/support.js";
import { openaiAnswer } from "./openai-answer.js";
import { tempDir } from "./run-awl.js";
import { tmuxTest } from "./tmux-terminal.js";

const tty = tmuxTest();

const WAIT = `awl.register_tool {
  name = "wait", description = "Waits a long time.", kinds = { "read" },
  parameters = { type = "object", properties = {} },
  run = function() os.execute("sleep 30") return "woke" end,
}
`;

function sessions(home: string): any[][] {
  const dir = join(home, ".local/share/awl/sessions");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => readFileSync(join(dir, f), "utf8").trim().split("\n").map((l) => JSON.parse(l)));
}

/** Every tool_use of a saved session has a result (in a later message). */
function everyCallAnswered(lines: any[]): boolean {
  const messages = lines.filter((l) => l.type === "message").map((l) => l.message);
  const uses = messages.flatMap((m) => m.content.filter((b: any) => b.type === "tool_use").map((b: any) => b.id));
  const results = new Set(messages.flatMap((m) => m.content.filter((b: any) => b.type === "tool_result").map((b: any) => b.tool_use_id)));
  return uses.length > 0 && uses.every((id: string) => results.has(id));
}

describe("sub-agents in the terminal", () => {
  it("a sub-agent's write asks through the parent's prompt, labelled with its name; y lets it run", async () => {
    const project = tempDir("awl-proj-");
    tty.server.enqueue(
      { body: openaiToolCalls([{ id: "t1", name: "task", input: { description: "write it", prompt: "write out.txt" } }]) },
      { body: openaiToolCalls([{ id: "w1", name: "write", input: { path: "out.txt", content: "hi\n" } }]) },
      openaiAnswer("Child wrote it."),
      openaiAnswer("Parent done."),
    );
    await tty.start({ cwd: project });
    await tty.send("go");
    await tty.terminal.waitFor(/\? write \(sub-agent general-purpose\) wants to run[\s\S]*y allow once/);
    await tty.terminal.type("y");
    await tty.terminal.waitFor(/Parent done\.\n>/);
    expect(readFileSync(join(project, "out.txt"), "utf8")).toBe("hi\n");
    const result = tty.server.requests[3]!.json().messages.find((m: any) => m.role === "tool" && m.tool_call_id === "t1").content;
    expect(result).toMatch(/^Child wrote it\./);
  });

  it("shows the running sub-agent live; Esc cancels it and every tool_use, the parent's and the child's, gets its result", async () => {
    const project = tempDir("awl-proj-");
    tty.server.enqueue(
      { body: openaiToolCalls([{ id: "t1", name: "task", input: { description: "wait a bit", prompt: "call wait" } }]) },
      { body: openaiToolCalls([{ id: "w1", name: "wait", input: {} }]) },
      openaiAnswer("After."),
    );
    const home = await tty.start({ cwd: project, extensions: { "wait.lua": WAIT } });
    await tty.send("go");
    await tty.terminal.waitFor(/general-purpose: wait a bit · step 1 · 15 tokens · running wait/);
    await tty.terminal.keys("Escape");
    await tty.terminal.waitFor(/cancel[\s\S]*>\s*$/m);
    await tty.send("next");
    await tty.terminal.waitFor(/After\.\n>/);
    // What the next request sends: the task call answered as cancelled.
    const sent = tty.server.requests[2]!.json().messages.find((m: any) => m.role === "tool" && m.tool_call_id === "t1");
    expect(sent.content).toContain('the tool "task" was cancelled by the user');
    // Both saved conversations: every call has its result, the child's too.
    const files = sessions(home);
    const child = files.find((f) => f[0].parent)!;
    const parent = files.find((f) => !f[0].parent)!;
    expect(everyCallAnswered(child)).toBe(true);
    expect(everyCallAnswered(parent)).toBe(true);
    expect(existsSync(join(project, "out.txt"))).toBe(false);
  });
});
