// The system prompt and instruction files, on the real request bytes: the 5.5 KB budget with the std tools,
// AGENTS.md/CLAUDE.md found from a subfolder, deterministic bytes, --system-prompt/--append-system-prompt and the
// config keys, `awl config` and `awl tools` figures.
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { arch, platform } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { anthropicText, AWL, openaiText, providerEnv, runNode } from "../e2e/support.js";
import { SEVERAL_CALLS, STD_TOOLS, useSandbox } from "./support.js";

const env = useSandbox();

/** One `awl -p hi` turn in `cwd` (default the project); the request body awl sent. */
async function requestOf(args: string[] = [], options: { cwd?: string; provider?: "openai" | "anthropic"; env?: Record<string, string> } = {}): Promise<string> {
  const provider = options.provider ?? "openai";
  env.server.enqueue({ body: provider === "openai" ? openaiText("hello") : anthropicText("hello") });
  const run = await runNode([AWL, "-p", "hi", "--no-session", ...args], {
    cwd: options.cwd ?? env.box.cwd,
    env: env.box.env({ ...providerEnv(provider, env.server.url), ...options.env }),
    input: "",
    asNobody: false,
  });
  expect(run.code, run.stderr).toBe(0);
  return env.server.requests.at(-1)!.body;
}

const systemOf = (body: string): string => JSON.parse(body).messages[0].content;

/** A request's bytes with the test's working directory (a temporary folder of any length) counted as a typical one. */
const sizeOf = (body: string): number => Buffer.byteLength(body.split(env.box.cwd).join("/home/user/project"));

describe("the system prompt", () => {
  it.each(["openai", "anthropic"] as const)("with all ten std tools and task, a text turn's request to %s is at most 6.5 KB, 5.5 KB without fetch, search and todo", async (provider) => {
    const body = await requestOf([], { provider });
    const request = JSON.parse(body);
    const names = request.tools.map((t: { name?: string; function?: { name: string } }) => t.function?.name ?? t.name);
    expect(names).toEqual([...STD_TOOLS, "task"].sort());
    expect(STD_TOOLS).toEqual(["bash", "edit", "fetch", "find", "grep", "ls", "read", "search", "todo", "write"]);
    expect(provider === "openai" ? request.messages[0].content : request.system[0].text).toMatch(/^You are awl, a coding agent/);
    // The web tools and the todo list come on top of the seven core tools' 5.5 KB (SPEC §9), within 6.5 KB.
    expect(body).toContain(env.box.cwd);
    expect(sizeOf(body)).toBeLessThanOrEqual(6.5 * 1024);
    const core = await requestOf(["--deny", "fetch", "--deny", "search", "--deny", "todo"], { provider });
    expect(sizeOf(core)).toBeLessThanOrEqual(5.5 * 1024);
  });

  it("states the environment, and gives the same bytes on the next run", async () => {
    const first = await requestOf();
    const system = systemOf(first);
    expect(system).toContain(`Working directory: ${env.box.cwd}\nGit repository: no\n`);
    expect(system).toMatch(/\nDate: \d{4}-\d\d-\d\d\n/);
    expect(system).toContain("bash runs builds, tests, git");
    expect(await requestOf()).toBe(first);
    // Without tools, no tool advice.
    expect(systemOf(await requestOf(["--no-std-tools"]))).not.toContain("edit");
  });

  it("adds AGENTS.md from the repository root down to a subfolder, CLAUDE.md where there is none, the user's first", async () => {
    execFileSync("git", ["init", "-q"], { cwd: env.box.cwd });
    writeFileSync(join(env.box.cwd, "AGENTS.md"), "Root rules.\n");
    writeFileSync(join(env.box.cwd, "CLAUDE.md"), "Ignored: AGENTS.md is here.\n");
    const sub = join(env.box.cwd, "pkg", "lib");
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(env.box.cwd, "pkg", "CLAUDE.md"), "Package rules.\n");
    mkdirSync(join(env.box.home, ".config", "awl"), { recursive: true });
    writeFileSync(join(env.box.home, ".config", "awl", "AGENTS.md"), "My own rules.\n");
    const system = systemOf(await requestOf([], { cwd: sub }));
    expect(system).toContain(`Git repository: yes, root ${env.box.cwd}\n`);
    const tail = system.slice(system.indexOf("# Instructions"));
    expect(tail).toBe(
      [
        "# Instructions (from these files; a later one wins over an earlier one)",
        "",
        `## ${join(env.box.home, ".config", "awl", "AGENTS.md")}`,
        "",
        "My own rules.",
        "",
        `## ${join(env.box.cwd, "AGENTS.md")}`,
        "",
        "Root rules.",
        "",
        `## ${join(env.box.cwd, "pkg", "CLAUDE.md")}`,
        "",
        "Package rules.",
      ].join("\n"),
    );
    // `awl config` in the subfolder lists the same files, in the same order.
    const listed = (await runNode([AWL, "config"], { cwd: sub, env: env.box.env(), input: "", asNobody: false })).stdout;
    expect(listed).toContain(
      `instruction files (in prompt order):\n  ${join(env.box.home, ".config", "awl", "AGENTS.md")}\n  ${join(env.box.cwd, "AGENTS.md")}\n  ${join(env.box.cwd, "pkg", "CLAUDE.md")}\n`,
    );
  });

  it("is replaced by --system-prompt (text or @FILE), extended by --append-system-prompt, or by the config file", async () => {
    writeFileSync(join(env.box.cwd, "AGENTS.md"), "Project rules.\n");
    writeFileSync(join(env.box.cwd, "prompt.txt"), "You are a pirate.\n");
    expect(systemOf(await requestOf(["--system-prompt", "@prompt.txt", "--append-system-prompt", "Say arr."]))).toBe(
      `You are a pirate.\n\n# Instructions (from these files; a later one wins over an earlier one)\n\n## ${join(env.box.cwd, "AGENTS.md")}\n\nProject rules.\n\nSay arr.`,
    );
    mkdirSync(join(env.box.home, ".config", "awl"), { recursive: true });
    writeFileSync(join(env.box.home, ".config", "awl", "config.json"), JSON.stringify({ system_prompt: "From the config." }));
    expect(systemOf(await requestOf())).toMatch(/^From the config\.\n\n# Instructions/);
    // An empty one sends none of awl's default: the instruction files alone, or no system message at all.
    expect(systemOf(await requestOf(["--system-prompt", ""]))).toMatch(/^# Instructions \(from these files/);
    rmSync(join(env.box.cwd, "AGENTS.md"));
    expect(JSON.parse(await requestOf(["--system-prompt", ""])).messages).toEqual([{ role: "user", content: "hi" }]);
    const missing = await env.box.awl(["-p", "hi", "--system-prompt", "@nope.txt"], { env: providerEnv("openai", env.server.url) });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`--system-prompt: cannot read ${join(env.box.cwd, "nope.txt")}: it does not exist`);
  });

  it("takes both keys from the config file: the user file's @FILE from its own folder, ~/ from home; the flags win", async () => {
    const userDir = join(env.box.home, ".config", "awl");
    mkdirSync(userDir, { recursive: true });
    writeFileSync(join(userDir, "prompt.md"), "You are terse.\n");
    writeFileSync(join(env.box.home, "tail.md"), "End with a haiku.\n");
    writeFileSync(join(userDir, "config.json"), JSON.stringify({ system_prompt: "@prompt.md", append_system_prompt: "@~/tail.md" }));
    const sub = join(env.box.cwd, "deep", "er");
    mkdirSync(sub, { recursive: true });
    expect(systemOf(await requestOf([], { cwd: sub }))).toBe("You are terse.\n\nEnd with a haiku.");
    expect(systemOf(await requestOf(["--append-system-prompt", "Flag."], { cwd: sub }))).toBe("You are terse.\n\nFlag.");
    expect(systemOf(await requestOf(["--system-prompt", "Flag."], { cwd: sub }))).toBe("Flag.\n\nEnd with a haiku.");
    const shown = (await env.box.awl(["config"])).stdout;
    expect(shown).toContain("system prompt: replaced (--system-prompt or system_prompt), with appended text\n");

    writeFileSync(join(userDir, "config.json"), '{\n  "append_system_prompt": "@gone.md"\n}\n');
    const missing = await env.box.awl(["-p", "hi"], { env: providerEnv("openai", env.server.url) });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`${join(userDir, "config.json")}:2: append_system_prompt: cannot read ${join(userDir, "gone.md")}: it does not exist`);
  });

  it("reads a project file's @FILE only inside the project until the folder is trusted (it goes to the model)", async () => {
    writeFileSync(join(env.box.home, "secret.txt"), "hunter2\n");
    mkdirSync(join(env.box.cwd, ".awl"), { recursive: true });
    writeFileSync(join(env.box.cwd, ".awl", "prompt.md"), "Project prompt.\n");
    writeFileSync(join(env.box.cwd, ".awl", "config.json"), JSON.stringify({ system_prompt: "@.awl/prompt.md" }));
    expect(systemOf(await requestOf())).toBe("Project prompt.");
    writeFileSync(join(env.box.cwd, ".awl", "config.json"), JSON.stringify({ append_system_prompt: "@~/secret.txt" }));
    const refused = await env.box.awl(["-p", "hi"], { env: providerEnv("openai", env.server.url) });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`append_system_prompt: cannot read ${join(env.box.home, "secret.txt")}: it is outside this project, and the folder is not trusted`);
    expect(refused.stderr).toContain("awl permissions trust");
    expect(systemOf(await requestOf(["--trust-project"]))).toMatch(/\n\nhunter2$/);
  });
});

describe("awl tools", () => {
  it("shows what each tool and the system prompt cost in every request, and the total, matching the real request bytes", SEVERAL_CALLS, async () => {
    const listing = JSON.parse((await env.box.awl(["tools", "--json"])).stdout);
    const body = JSON.parse(await requestOf());
    for (const tool of listing.tools) {
      const sent = body.tools.find((t: { function: { name: string } }) => t.function.name === tool.name);
      expect(tool.request_bytes).toBe(Buffer.byteLength(JSON.stringify(sent)) + 1);
      expect(tool.estimated_tokens).toBe(Math.round(tool.request_bytes / 4));
    }
    const total = listing.tools.reduce((sum: number, t: { request_bytes: number }) => sum + t.request_bytes, 0);
    expect(listing.total).toEqual({ request_bytes: total, estimated_tokens: Math.round(total / 4) });
    // The system prompt's figure is its entry in the same request (an instruction file found, too).
    const system = Buffer.byteLength(JSON.stringify(body.messages[0])) + 1;
    expect(listing.system_prompt).toEqual({ request_bytes: system, estimated_tokens: Math.round(system / 4), instruction_files: [] });
    const text = (await env.box.awl(["tools"])).stdout;
    expect(text).toContain(`\n10 tools offered to the model: ${total} B ≈ ${Math.round(total / 4)} tokens in every request\n`);
    const both = system + total;
    expect(text).toContain(`\nthe system prompt (awl's default, no instruction file): ${system} B ≈ ${Math.round(system / 4)} tokens; with the tools ${both} B ≈ ${Math.round(both / 4)} tokens\n`);
    writeFileSync(join(env.box.cwd, "AGENTS.md"), "Rules.\n");
    const withFile = JSON.parse((await env.box.awl(["tools", "--json"])).stdout);
    const sent = JSON.parse(await requestOf());
    expect(withFile.system_prompt).toMatchObject({ request_bytes: Buffer.byteLength(JSON.stringify(sent.messages[0])) + 1, instruction_files: [join(env.box.cwd, "AGENTS.md")] });
  });
});
