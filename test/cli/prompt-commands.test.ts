/**
 * Markdown prompt commands and commands that return prompts, through the built `awl` against a local scripted
 * server (docs/commands.md): `awl -p "/greet Bob"`, stream-json input, ACP (advertised and run), a Lua
 * `awl.register_command` returning a prompt, and a `` !`…` `` that a rule denies (nothing is sent).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { serverPerTest } from "./reach-support.js";
import { openaiAnswer } from "./openai-answer.js";
import { expectNoStackTrace, runAwl } from "./run-awl.js";
import { withAcp } from "./acp-client.js";

const live = serverPerTest();
const setUp = live.setUp;

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** The last user message of request `n`, as text. */
function lastUser(n: number): string {
  const messages = (live.server.requests[n]!.json() as { messages: Array<{ role: string; content: unknown }> }).messages;
  const content = messages.filter((m) => m.role === "user").at(-1)!.content;
  return typeof content === "string" ? content : (content as Array<{ text?: string }>).map((p) => p.text ?? "").join("\n");
}

const GREET = "---\ndescription: Greet someone\nargument-hint: NAME\n---\nSay hello to $ARGUMENTS (first word: $1). The shell said: !`echo hi-from-$1`\n";

describe("prompt commands", { timeout: 90_000 }, () => {
  it("awl -p \"/greet Bob\" sends the expanded prompt: $ARGUMENTS, $1 and !`echo` output (allowed by a rule)", async () => {
    const { cwd, home, env } = setUp();
    write(join(home, ".config", "awl", "commands", "greet.md"), GREET);
    live.server.enqueue(openaiAnswer("Hello Bob."));
    const run = await runAwl(["-p", "/greet Bob Smith", "--allow", "bash(echo *)"], { cwd, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Hello Bob.");
    expect(lastUser(0)).toBe("Say hello to Bob Smith (first word: Bob). The shell said: hi-from-Bob");
  });

  it("a !`command` that is not allowed is not run, the prompt is not sent and the user is told why", async () => {
    const { cwd, home, env } = setUp();
    write(join(home, ".config", "awl", "commands", "greet.md"), GREET);
    const headless = await runAwl(["-p", "/greet Bob"], { cwd, env });
    expectNoStackTrace(headless.stderr);
    expect(headless.code).toBe(2);
    expect(headless.stderr).toContain("/greet was not sent: the command's !`echo hi-from-Bob` was not run: permission denied");
    const denied = await runAwl(["-p", "/greet Bob", "--deny", "bash(echo *)", "--output-format", "json"], { cwd, env });
    expect(denied.code).toBe(2);
    expect(denied.stderr).toMatch(/was not run: permission denied: the rule "bash\(echo \*\)" denies it/);
    expect(JSON.parse(denied.stdout).error.message).toContain("/greet was not sent");
    expect(live.server.requests).toHaveLength(0);
  });

  it("subfolders namespace a command; @file attaches the file; the project's command wins once trusted", async () => {
    const { cwd, home, env } = setUp();
    write(join(cwd, "notes.txt"), "NOTES CONTENT\n");
    write(join(cwd, ".awl", "commands", "frontend", "review.md"), "Review $1 against @notes.txt please.\n");
    write(join(home, ".config", "awl", "commands", "frontend", "review.md"), "USER review of $1\n");
    live.server.enqueue(openaiAnswer("A."), openaiAnswer("B."));
    await runAwl(["-p", "/frontend:review app.tsx"], { cwd, env });
    expect(lastUser(0)).toBe("USER review of app.tsx");
    await runAwl(["-p", "/frontend:review app.tsx", "--trust-project"], { cwd, env });
    expect(lastUser(1)).toBe('Review app.tsx against @notes.txt please.\n\n<file path="notes.txt">\nNOTES CONTENT\n</file>');
    const listed = await runAwl(["skills", "--trust-project"], { cwd, env });
    expect(listed.stdout).toMatch(/\/frontend:review {2}\.awl\/commands {2}offered/);
    expect(listed.stdout).toMatch(/\/frontend:review {2}~\/\.config\/awl\/commands {2}shadowed/);
  });

  it("works as a stream-json input message", async () => {
    const { cwd, home, env } = setUp();
    write(join(home, ".config", "awl", "commands", "hello.md"), "Say hello to $ARGUMENTS.\n");
    live.server.enqueue(openaiAnswer("Hi Ann."));
    const input = `${JSON.stringify({ type: "user", message: { role: "user", content: "/hello Ann" } })}\n`;
    const run = await runAwl(["--input-format", "stream-json", "--output-format", "stream-json"], { cwd, env, input });
    expect(run.code).toBe(0);
    expect(lastUser(0)).toBe("Say hello to Ann.");
  });

  it("a command's `model` runs its turn on that model; the next prompt is back on the session's", async () => {
    const { cwd, home, env } = setUp();
    write(join(home, ".config", "awl", "commands", "deep.md"), "---\ndescription: Think hard\nmodel: gpt-4o-mini\n---\nThink hard about $ARGUMENTS.\n");
    live.server.enqueue(openaiAnswer("Deep."), openaiAnswer("Plain."));
    const input = ["/deep caching", "and now?"].map((content) => `${JSON.stringify({ type: "user", message: { role: "user", content } })}\n`).join("");
    const run = await runAwl(["--input-format", "stream-json", "--output-format", "stream-json"], { cwd, env, input });
    expect(run.code).toBe(0);
    const models = live.server.requests.map((r) => (r.json() as { model: string }).model);
    expect(models).toEqual(["gpt-4o-mini", "gpt-4o"]);
    expect(lastUser(0)).toBe("Think hard about caching.");
    live.server.enqueue(openaiAnswer("Deep again."));
    const printed = await runAwl(["-p", "/deep queues"], { cwd, env });
    expect(printed.stderr).toContain("awl: this turn runs on gpt-4o-mini");
    expect((live.server.requests[2]!.json() as { model: string }).model).toBe("gpt-4o-mini");
  });

  it("a Lua command's handler returns a prompt (with an attached file) that reaches the model; one returning text sends nothing", async () => {
    const { cwd, home, env } = setUp();
    write(join(cwd, "spec.md"), "SPEC BODY\n");
    write(
      join(home, ".config", "awl", "extensions", "plan.lua"),
      `awl.register_command { name = "plan", description = "plan a change", handler = function(args)
         return { prompt = "Make a plan for " .. args, attachments = { "spec.md" } }
       end }
       awl.register_command { name = "where", handler = function(_, ctx) return "here" end }`,
    );
    live.server.enqueue(openaiAnswer("Plan."));
    const run = await runAwl(["-p", "/plan the parser"], { cwd, env });
    expect(run.code).toBe(0);
    expect(lastUser(0)).toBe('Make a plan for the parser\n\n<file path="spec.md">\nSPEC BODY\n</file>');
    const printed = await runAwl(["-p", "/where"], { cwd, env });
    expect(printed.code).toBe(0);
    expect(printed.stdout).toBe("here\n");
    expect(live.server.requests).toHaveLength(1);
  });

  it("ACP advertises the commands and skills, and runs a command sent as a prompt", async () => {
    const { cwd, home, env } = setUp();
    write(join(home, ".config", "awl", "commands", "hello.md"), "---\ndescription: Say hello\nargument-hint: NAME\n---\nSay hello to $ARGUMENTS.\n");
    write(join(home, ".config", "awl", "skills", "pdf-tools", "SKILL.md"), "---\nname: pdf-tools\ndescription: PDF work.\n---\nbody\n");
    live.server.enqueue(openaiAnswer("Hi Ann."));
    await withAcp({ home, cwd, env }, async (ctx, awl) => {
      const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
      const advertised = await awl.waitForUpdate((n) => n.update.sessionUpdate === "available_commands_update");
      const commands = (advertised.update as { availableCommands: Array<{ name: string; description: string; input?: { hint: string } }> }).availableCommands;
      expect(commands).toContainEqual({ name: "hello", description: "Say hello", input: { hint: "NAME" } });
      expect(commands.map((c) => c.name)).toContain("pdf-tools");
      const done = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/hello Ann" }] });
      expect(done.stopReason).toBe("end_turn");
    });
    expect(lastUser(0)).toBe("Say hello to Ann.");
  });
});
