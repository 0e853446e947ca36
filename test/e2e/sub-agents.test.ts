// Sub-agents through the built `awl -p` (docs/agents.md) against a local server that answers each conversation by
// its system prompt: parallel sub-agents with their own prompts and tools, their answers as the task results in
// order, permissions inherited (headless: denied with the rule named), the depth limit, the step limit, a failing
// provider, definitions naming tools that do not exist, and the side sessions linked to the parent's.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { contentText, startRoutingServer, type Routed, type RoutedRequest, type RoutingServer } from "../support/routing-server.js";
import { openaiText, openaiToolCalls, providerEnv, sandbox, type Sandbox } from "./support.js";

let box: Sandbox;
let server: RoutingServer | undefined;
beforeEach(() => {
  box = sandbox();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  box.remove();
});

function agentFile(name: string, text: string, folder = ".awl/agents"): void {
  const dir = join(box.cwd, folder);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.md`), text);
}

const isParent = (r: RoutedRequest): boolean => r.tools.includes("task");
/** Tool results the request carries (OpenAI `tool` messages), in order. */
const toolResults = (r: RoutedRequest): { id: string; text: string }[] =>
  r.messages.filter((m) => m.role === "tool").map((m) => ({ id: m.tool_call_id, text: contentText(m) }));
const answered = (r: RoutedRequest): boolean => toolResults(r).length > 0;

async function serve(route: (r: RoutedRequest, s: RoutingServer) => Routed | Promise<Routed>): Promise<Record<string, string>> {
  server = await startRoutingServer(route);
  return providerEnv("openai", server.url);
}

function sessionFiles(): { header: any; lines: any[]; path: string }[] {
  const dir = join(box.home, ".local/share/awl/sessions");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => {
      const lines = readFileSync(join(dir, f), "utf8").trim().split("\n").map((l) => JSON.parse(l));
      return { header: lines[0], lines: lines.slice(1), path: join(dir, f) };
    });
}

describe("the task tool", () => {
  it("runs two sub-agents at once, each with its own prompt and only its tools; their answers are the results in order; sessions are linked", async () => {
    agentFile("alpha", "---\nname: alpha\ndescription: Looks things up.\ntools: [read, nope]\n---\nYou are ALPHA.\n");
    agentFile("beta", "---\nname: beta\ndescription: Lists things.\ntools: ls, Grep\nmodel: inherit\n---\nYou are BETA.\n");
    const env = await serve(async (r, s) => {
      if (isParent(r)) {
        if (!answered(r))
          return openaiToolCalls([
            { id: "t1", name: "task", input: { description: "look up", prompt: "find A", agent: "alpha" } },
            { id: "t2", name: "task", input: { description: "list", prompt: "find B", agent: "beta" } },
          ]);
        return openaiText("parent done");
      }
      // Each sub-agent's first request is answered only once the other's has arrived: run one after the other,
      // the first would wait for ever (the test's timeout), so the answers prove they ran side by side.
      const mine = r.system.includes("ALPHA") ? "alpha" : "beta";
      const other = mine === "alpha" ? "BETA" : "ALPHA";
      await s.waitFor((q) => q.system.includes(other));
      return openaiText(`${mine} answer`);
    });
    const run = await box.awl(["-p", "go", "--trust-project", "--output-format", "json"], { env });
    expect(run.code, run.stderr).toBe(0);
    const requests = server!.requests;
    const alpha = requests.find((q) => q.system.includes("You are ALPHA."))!;
    const beta = requests.find((q) => q.system.includes("You are BETA."))!;
    expect(alpha.tools).toEqual(["read"]);
    expect(beta.tools).toEqual(["grep", "ls"]);
    expect(contentText(alpha.messages[0])).toBe("find A");
    // The tool the definition names that does not exist is reported; the rest is used.
    expect(run.stderr).toContain('the agent "alpha" names tools not available here (none by that name, or denied): "nope"; it runs with the rest');
    const last = requests.filter(isParent).at(-1)!;
    const results = toolResults(last);
    expect(results.map((x) => x.id)).toEqual(["t1", "t2"]);
    expect(results[0]!.text).toMatch(/^alpha answer\n\n\(sub-agent alpha: 1 model call/);
    expect(results[1]!.text).toMatch(/^beta answer/);
    expect(JSON.parse(run.stdout).stop_reason).toBe("end_turn");

    // Each sub-agent has a side session whose header names the parent session and the call; the parent's file
    // links each call to its side session.
    const files = sessionFiles();
    const parent = files.find((f) => !f.header.parent)!;
    const sides = files.filter((f) => f.header.parent);
    expect(sides.map((f) => f.header.parent.agent).sort()).toEqual(["alpha", "beta"]);
    for (const side of sides) {
      expect(side.header.parent.session).toBe(parent.header.id);
      const link = parent.lines.find((l) => l.type === "tool" && l.tool_use_id === side.header.parent.tool_use_id);
      expect(link.details.session).toBe(side.header.id);
      expect(side.lines.some((l) => l.type === "message" && l.message.role === "assistant")).toBe(true);
    }

    // `awl sessions` lists them under the parent; `awl -c` continues the parent, never a side session.
    const listed = await box.awl(["sessions"], { env });
    const rows = listed.stdout.trim().split("\n").slice(1);
    expect(rows[0]).toContain(parent.header.id);
    expect(rows.slice(1).every((row) => row.startsWith("└ "))).toBe(true);
    expect(listed.stdout).toContain("[alpha] find A");
  });

  it("the parent's cost counts its sub-agents' tokens", async () => {
    const env = await serve((r) => {
      if (isParent(r)) return answered(r) ? openaiText("parent done") : openaiToolCalls([{ id: "t1", name: "task", input: { description: "x", prompt: "list" } }]);
      return answered(r) ? openaiText("listed") : openaiToolCalls([{ id: "l1", name: "ls", input: {} }]);
    });
    const run = await box.awl(["-p", "go", "--output-format", "json"], { env: { ...env, AWL_MODEL: "gpt-4o" } });
    expect(run.code, run.stderr).toBe(0);
    // Two calls reported usage, 10 input and 5 output tokens each: the parent's and the sub-agent's ($2.50 / $10 per M).
    const out = JSON.parse(run.stdout);
    expect(out.cost_usd).toBeCloseTo(2 * (10 * 2.5 + 5 * 10) / 1e6, 12);
    expect(out.total_cost_usd).toBeCloseTo(out.cost_usd, 12);
  });

  it("stream-json carries the sub-agent's progress as the task call's tool_progress (its title)", async () => {
    const env = await serve((r) => {
      if (isParent(r)) return answered(r) ? openaiText("parent done") : openaiToolCalls([{ id: "t1", name: "task", input: { description: "list it", prompt: "list" } }]);
      return answered(r) ? openaiText("listed") : openaiToolCalls([{ id: "l1", name: "ls", input: {} }]);
    });
    const run = await box.awl(["-p", "go", "--output-format", "stream-json"], { env });
    expect(run.code, run.stderr).toBe(0);
    const titles = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .filter((e) => e.type === "tool_progress" && e.tool_use_id === "t1" && e.update.kind === "title")
      .map((e) => e.update.text);
    expect(titles).toContain("general-purpose: list it · step 1 · 15 tokens · running ls");
    expect(titles.at(-1)).toBe("general-purpose: list it · step 2 · 15 tokens · done");
  });

  it("a side session can be opened with -r and continued (as a conversation of the main agent)", async () => {
    agentFile("alpha", "---\nname: alpha\ndescription: Looks things up.\n---\nYou are ALPHA.\n");
    const env = await serve((r) => {
      if (contentText(r.messages.at(-1)) === "and more") return openaiText("resumed answer");
      if (isParent(r)) return answered(r) ? openaiText("parent done") : openaiToolCalls([{ id: "t1", name: "task", input: { description: "x", prompt: "find A", agent: "alpha" } }]);
      return openaiText("alpha answer");
    });
    expect((await box.awl(["-p", "go", "--trust-project"], { env })).code).toBe(0);
    const side = sessionFiles().find((f) => f.header.parent)!;
    const resumed = await box.awl(["-r", side.header.id, "-p", "and more"], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain("resumed answer");
    const last = server!.requests.at(-1)!;
    expect(last.messages.map(contentText)).toEqual(["find A", "alpha answer", "and more"]);
  });

  it("a sub-agent's write is denied headless with the rule that would allow it, and the parent gets its answer", async () => {
    const env = await serve((r) => {
      if (isParent(r)) return answered(r) ? openaiText("parent done") : openaiToolCalls([{ id: "t1", name: "task", input: { description: "write", prompt: "write a file" } }]);
      if (!answered(r)) return openaiToolCalls([{ id: "w1", name: "write", input: { path: "out.txt", content: "hi" } }]);
      return openaiText(`child saw: ${toolResults(r)[0]!.text}`);
    });
    const run = await box.awl(["-p", "go"], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(box.cwd, "out.txt"))).toBe(false);
    const child = server!.requests.find((q) => !isParent(q) && answered(q))!;
    expect(toolResults(child)[0]!.text).toContain("permission denied: this call needs approval");
    expect(toolResults(child)[0]!.text).toMatch(/--allow 'write\([^)]*out\.txt\)'/);
    const parentResult = toolResults(server!.requests.filter(isParent).at(-1)!)[0]!.text;
    expect(parentResult).toContain("permission denied: this call needs approval");
  });

  it("a sub-agent cannot start a sub-agent (depth limit 1): task is not offered to it, and a call anyway is refused", async () => {
    const env = await serve((r) => {
      if (isParent(r)) return answered(r) ? openaiText("parent done") : openaiToolCalls([{ id: "t1", name: "task", input: { description: "x", prompt: "nest" } }]);
      if (!answered(r)) return openaiToolCalls([{ id: "n1", name: "task", input: { description: "y", prompt: "deeper" } }]);
      return openaiText(`child saw: ${toolResults(r)[0]!.text}`);
    });
    const run = await box.awl(["-p", "go"], { env });
    expect(run.code, run.stderr).toBe(0);
    const children = server!.requests.filter((q) => !isParent(q));
    expect(children).toHaveLength(2); // the child's two calls; no grandchild ever asked the model
    expect(children[0]!.tools).not.toContain("task");
    expect(toolResults(children[1]!)[0]!.text).toContain('unknown tool "task"');
  });

  it("a sub-agent looping to its step limit ends with that said, and the parent continues", async () => {
    const env = await serve((r) => {
      if (isParent(r)) return answered(r) ? openaiText("parent done") : openaiToolCalls([{ id: "t1", name: "task", input: { description: "loop", prompt: "loop" } }]);
      return openaiToolCalls([{ id: `l${r.messages.length}`, name: "ls", input: {} }], "still going");
    });
    mkdirSync(join(box.home, ".config/awl"), { recursive: true });
    writeFileSync(join(box.home, ".config/awl/config.json"), JSON.stringify({ agents: { max_steps: 3 } }));
    const run = await box.awl(["-p", "go"], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(server!.requests.filter((q) => !isParent(q))).toHaveLength(3);
    const result = toolResults(server!.requests.filter(isParent).at(-1)!)[0]!.text;
    expect(result).toContain('the sub-agent "general-purpose" reached its step limit (3 model calls) before it finished.');
    expect(run.stdout).toContain("parent done");
  });

  it("a sub-agent whose provider fails: its result is the error, and the parent continues", async () => {
    const env = await serve((r) => {
      if (isParent(r)) return answered(r) ? openaiText("parent done") : openaiToolCalls([{ id: "t1", name: "task", input: { description: "fail", prompt: "fail" } }]);
      return { status: 400, body: JSON.stringify({ error: { message: "child request refused", type: "invalid_request_error" } }) };
    });
    const run = await box.awl(["-p", "go"], { env });
    expect(run.code, run.stderr).toBe(0);
    const result = server!.requests.filter(isParent).at(-1)!.messages.find((m) => m.role === "tool");
    expect(contentText(result)).toContain('the sub-agent "general-purpose" failed:');
    expect(contentText(result)).toContain("child request refused");
    expect(run.stdout).toContain("parent done");
  });

  it("awl agents lists the definitions, project over user, and says what is wrong with the rest", async () => {
    agentFile("alpha", "---\nname: alpha\ndescription: Project alpha.\ntools: [read]\n---\nYou are ALPHA.\n");
    agentFile("broken", "---\nname: [unclosed\ndescription: x\n---\nbody\n");
    const user = join(box.home, ".config/awl/agents");
    mkdirSync(user, { recursive: true });
    writeFileSync(join(user, "alpha.md"), "---\nname: alpha\ndescription: User alpha.\n---\nYou are user ALPHA.\n");
    writeFileSync(join(user, "reviewer.md"), "---\ndescription: Reviews.\nmodel: other-model\n---\nReview.\n");
    const run = await box.awl(["agents", "--trust-project"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("alpha  (project .awl/agents/alpha.md)");
    expect(run.stdout).toContain("Project alpha.");
    expect(run.stdout).not.toContain("User alpha.");
    expect(run.stdout).toContain("general-purpose  (built-in)");
    expect(run.stdout).toMatch(/reviewer {2}\(user .*reviewer\.md\)\n {2}tools: all · model: other-model/);
    expect(run.stdout).toMatch(/broken\.md:\d+: front matter is not valid YAML: /);
    expect(run.stdout).toMatch(/alpha\.md: the agent "alpha" is also defined in .*\.awl\/agents\/alpha\.md, which wins/);
    // Untrusted: the project's definitions are not read at all.
    const untrusted = await box.awl(["agents"]);
    expect(untrusted.stdout).toContain("User alpha.");
    expect(untrusted.stdout).not.toContain("broken");
  });
});
