// Permissions and folder trust through the built `awl -p` (no terminal): asks become denies that name the rule
// or flag allowing them, JSON output lists them, deny rules hide tools, and an untrusted folder's code never runs.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ReplayServer } from "../support/replay-server.js";
import { openaiText, openaiToolCalls, providerEnv, withServerAndSandbox, type Sandbox } from "./support.js";

let server: ReplayServer;
let box: Sandbox;
withServerAndSandbox((made) => ({ server, box } = made));

const RUN = `awl.register_tool("run", { type = "object", properties = { command = { type = "string" } }, required = { "command" } },
  function(input) return "ran " .. input.command end)\n`;
const offered = (index: number): string[] => (server.requests[index]!.json().tools ?? []).map((t: any) => t.function.name);
const lastResult = (index: number): any => server.requests[index]!.json().messages.at(-1);

function userExtension(name: string, source: string): void {
  const dir = join(box.home, ".config", "awl", "extensions");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), source);
}

function userConfig(value: unknown): void {
  mkdirSync(join(box.home, ".config", "awl"), { recursive: true });
  writeFileSync(join(box.home, ".config", "awl", "config.json"), JSON.stringify(value, null, 2));
}

describe("kinds", () => {
  it("every std tool declares what it does: read, grep, find and ls read; write and edit write; bash exec; fetch and search network; todo reads (it changes only its list)", async () => {
    const listing = JSON.parse((await box.awl(["tools", "--json"])).stdout) as { tools: { name: string; kinds: string[] }[] };
    const kinds = Object.fromEntries(listing.tools.map((t) => [t.name, t.kinds]));
    expect(kinds).toEqual({ read: ["read"], grep: ["read"], find: ["read"], ls: ["read"], write: ["write"], edit: ["write"], bash: ["exec"], fetch: ["network"], search: ["network"], todo: ["read"] });
  });
});

describe("headless asks", () => {
  it("a call that would ask is denied with the flag and rules that allow it, and the JSON lists it", async () => {
    userExtension("run.lua", RUN);
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "run", input: { command: "git status && rm -rf x" } }]) }, { body: openaiText("Denied.") });
    const result = await box.awl(["--no-std-tools", "-p", "go", "--output-format", "json"], { env: providerEnv("openai", server.url) });
    expect(result.code, result.stderr).toBe(0);
    const sent = lastResult(1);
    expect(sent.role).toBe("tool");
    expect(sent.content).toContain("permission denied");
    expect(sent.content).toContain("--allow 'run(git status)' --allow 'run(rm -rf x)'");
    expect(sent.content).toContain('"permissions.allow"');
    const json = JSON.parse(result.stdout);
    expect(json.permission_denials).toEqual([
      { tool_use_id: "c1", tool: "run", input: { command: "git status && rm -rf x" }, reason: '"run" is an exec tool', allow_with: ["run(git status)", "run(rm -rf x)"] },
    ]);
  });

  it("--allow runs exactly what it names; a compound command with another part is still denied", async () => {
    userExtension("run.lua", RUN);
    server.enqueue(
      { body: openaiToolCalls([{ id: "c1", name: "run", input: { command: "git status" } }, { id: "c2", name: "run", input: { command: "git status && rm -rf x" } }]) },
      { body: openaiText("Done.") },
    );
    const result = await box.awl(["--no-std-tools", "-p", "go", "--allow", "run(git status)"], { env: providerEnv("openai", server.url) });
    expect(result.code, result.stderr).toBe(0);
    const messages = server.requests[1]!.json().messages;
    expect(messages.at(-2)).toMatchObject({ role: "tool", tool_call_id: "c1", content: "ran git status" });
    expect(messages.at(-1).content).toContain("permission denied");
  });

  it("a denied call's block names what it would have run, as an allowed one's does, not its raw JSON", async () => {
    server.enqueue(
      { body: openaiToolCalls([{ id: "c1", name: "bash", input: { command: "rm -rf build\necho gone" } }, { id: "c2", name: "read", input: { path: ".env" } }]) },
      { body: openaiText("Done.") },
    );
    const result = await box.awl(["-p", "go", "--deny", "bash(rm:*)", "--deny", "read(.env)"], { env: providerEnv("openai", server.url) });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("✗ bash rm -rf build …\n  permission denied: the rule \"bash(rm:*)\" denies it");
    expect(result.stderr).toContain("✗ read .env\n");
    expect(result.stderr).not.toContain('{"');
  });

  it("a rule in the user config allows matching calls", async () => {
    userExtension("run.lua", RUN);
    userConfig({ model: "gpt-test", permissions: { allow: ["run(npm test:*)"] } });
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "run", input: { command: "npm test -- --watch" } }]) }, { body: openaiText("ok") });
    expect((await box.awl(["--no-std-tools", "-p", "go"], { env: providerEnv("openai", server.url) })).code).toBe(0);
    expect(lastResult(1).content).toBe("ran npm test -- --watch");
  });

  it("a denied tool is not offered; --deny beats an allow rule", async () => {
    userExtension("run.lua", RUN);
    userExtension("other.lua", RUN.replace('"run"', '"other"'));
    server.enqueue({ body: openaiText("Hi.") });
    const result = await box.awl(["--no-std-tools", "-p", "hi", "--deny", "run", "--allow", "*"], { env: providerEnv("openai", server.url) });
    expect(result.code, result.stderr).toBe(0);
    expect(offered(0)).toEqual(["other"]);
  });

  it("bad rules: an unreadable deny rule denies its whole tool, a bad allow rule allows nothing; both named with file and line", async () => {
    userExtension("run.lua", RUN);
    userConfig({ permissions: { allow: ["run(git status"], deny: ["run(rm"] } });
    server.enqueue({ body: openaiText("Hi.") });
    const result = await box.awl(["--no-std-tools", "-p", "hi"], { env: providerEnv("openai", server.url) });
    expect(result.code, result.stderr).toBe(0);
    const config = join(box.home, ".config", "awl", "config.json");
    expect(result.stderr).toContain(`${config}:4: the rule "run(git status" has a "(" that is never closed`);
    expect(result.stderr).toContain(`${config}:7: the rule "run(rm" has a "("`);
    expect(result.stderr).toContain('every "run" call is denied');
    expect(offered(0)).toEqual([]);
  });

  it("a rule naming a tool no extension offers is named with its file and line; one for an MCP server's tools, or the sandbox's network, is not", async () => {
    userExtension("run.lua", RUN);
    userConfig({ permissions: { allow: ["rnu(ls)", "network(npm install:*)"], deny: ["github_create_issue"] }, mcpServers: { github: { command: "/nonexistent/mcp-github" } } });
    server.enqueue({ body: openaiText("Hi.") });
    const result = await box.awl(["--no-std-tools", "-p", "hi", "--deny", "wirte"], { env: providerEnv("openai", server.url) });
    expect(result.code, result.stderr).toBe(0);
    const config = join(box.home, ".config", "awl", "config.json");
    expect(result.stderr).toContain(`awl: ${config}:4: the allow rule "rnu(ls)" names the tool "rnu", which no extension offers (tools: run); it matches nothing until such a tool exists`);
    expect(result.stderr).toContain('awl: --deny: the deny rule "wirte" names the tool "wirte"');
    expect(result.stderr).not.toContain("github_create_issue");
    expect(result.stderr).not.toContain("network(npm install:*)");
  });

  it("a project config that is not JSON stops awl with its file, line and column", async () => {
    mkdirSync(join(box.cwd, ".awl"), { recursive: true });
    writeFileSync(join(box.cwd, ".awl", "config.json"), '{\n  "permissions": { "allow": ["bash",] }\n}\n');
    const result = await box.awl(["--no-std-tools", "-p", "hi"], { env: providerEnv("openai", server.url) });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${join(box.cwd, ".awl", "config.json")}:2:`);
    expect(server.requests).toHaveLength(0);
  });

  it("bypass says so at start-up, and still honours deny rules", async () => {
    userExtension("run.lua", RUN);
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "run", input: { command: "curl x | grep y" } }, { id: "c2", name: "run", input: { command: "rm -rf /" } }]) }, { body: openaiText("ok") });
    const result = await box.awl(["--no-std-tools", "-p", "go", "--dangerously-skip-permissions", "--deny", "run(rm:*)"], { env: providerEnv("openai", server.url) });
    expect(result.stderr).toContain("awl: bypass mode (--dangerously-skip-permissions): every tool call runs without asking");
    const messages = server.requests[1]!.json().messages;
    expect(messages.at(-2).content).toBe("ran curl x | grep y");
    expect(messages.at(-1).content).toContain('the rule "run(rm:*)" denies it');
  });
});

describe("folder trust", () => {
  const MARKER_EXTENSION = (marker: string) => `local f = io.open(${JSON.stringify(marker)}, "w") f:write("ran") f:close()
awl.register_tool("project_tool", { type = "object" }, function() return "project" end)\n`;

  it("an untrusted folder's extension never runs; the notice names --trust-project; with it the code runs", async () => {
    const marker = join(box.root, "marker");
    box.extension("evil.lua", MARKER_EXTENSION(marker));
    server.enqueue({ body: openaiText("Hi.") }, { body: openaiText("Hi.") });
    const untrusted = await box.awl(["--no-std-tools", "-p", "say hi"], { env: providerEnv("openai", server.url) });
    expect(untrusted.code, untrusted.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(untrusted.stderr).toContain("awl: this folder is not trusted, so its .awl/extensions/ (1 Lua file) was not loaded; run with --trust-project");
    expect(offered(0)).toEqual([]);

    const trusted = await box.awl(["--no-std-tools", "-p", "say hi", "--trust-project"], { env: providerEnv("openai", server.url) });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(existsSync(marker)).toBe(true);
    expect(trusted.stderr).not.toContain("not trusted");
    expect(offered(1)).toEqual(["project_tool"]);
  });

  it("awl extensions and awl tools say the folder's extensions did not load and how to trust it; nothing of them runs", async () => {
    const marker = join(box.root, "marker");
    box.extension("evil.lua", MARKER_EXTENSION(marker));
    const listed = await box.awl(["extensions", "--no-std-tools"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toBe(
      `not loaded: this folder is not trusted, so its .awl/extensions/ (1 Lua file) did not load.
    awl permissions trust   trusts ${box.cwd} (saved in your config)
    --trust-project         trusts it for one run

No extensions found.\n`,
    );
    expect(JSON.parse((await box.awl(["extensions", "--no-std-tools", "--json"])).stdout).project).toEqual({ trusted: false, not_loaded: [".awl/extensions/ (1 Lua file)"] });
    const tools = await box.awl(["tools", "--no-std-tools"]);
    expect(tools.stderr).toContain("awl: this folder is not trusted, so its .awl/extensions/ (1 Lua file) was not loaded; run with --trust-project to load them once, or awl permissions trust");
    expect(existsSync(marker)).toBe(false);
    const trusted = await box.awl(["extensions", "--no-std-tools", "--trust-project"]);
    expect(trusted.stdout).toContain("evil  loaded  .awl/extensions/evil.lua  (project)");
    expect(trusted.stdout).not.toContain("not trusted");
    expect(existsSync(marker)).toBe(true);
  });

  it("the registration cache of a trusted run never offers the folder's tools to an untrusted one", async () => {
    box.extension("tool.lua", MARKER_EXTENSION(join(box.root, "marker")));
    server.enqueue({ body: openaiText("Hi.") }, { body: openaiText("Hi.") });
    await box.awl(["--no-std-tools", "-p", "hi", "--trust-project"], { env: providerEnv("openai", server.url) });
    expect(offered(0)).toEqual(["project_tool"]);
    await box.awl(["--no-std-tools", "-p", "hi"], { env: providerEnv("openai", server.url) });
    expect(offered(1)).toEqual([]);
  });

  it("a folder listed in the user config's trusted_folders is trusted; an untrusted one's allow rules are skipped, its deny rules kept", async () => {
    userExtension("run.lua", RUN);
    mkdirSync(join(box.cwd, ".awl"), { recursive: true });
    writeFileSync(join(box.cwd, ".awl", "config.json"), JSON.stringify({ permissions: { allow: ["run"], deny: ["run(rm:*)"] } }));
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "run", input: { command: "ls" } }, { id: "c2", name: "run", input: { command: "rm x" } }]) }, { body: openaiText("ok") });
    const untrusted = await box.awl(["--no-std-tools", "-p", "go"], { env: providerEnv("openai", server.url) });
    expect(untrusted.stderr).toContain("1 widening permission setting in .awl/config.json");
    let messages = server.requests[1]!.json().messages;
    expect(messages.at(-2).content).toContain("no terminal to ask");
    expect(messages.at(-1).content).toContain('the rule "run(rm:*)" denies it');

    userConfig({ trusted_folders: [box.cwd] });
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "run", input: { command: "ls" } }, { id: "c2", name: "run", input: { command: "rm x" } }]) }, { body: openaiText("ok") });
    const trusted = await box.awl(["--no-std-tools", "-p", "go"], { env: providerEnv("openai", server.url) });
    expect(trusted.stderr).not.toContain("not trusted");
    messages = server.requests[3]!.json().messages;
    expect(messages.at(-2).content).toBe("ran ls");
    expect(messages.at(-1).content).toContain('the rule "run(rm:*)" denies it');
  });
});

describe("awl permissions", () => {
  it("lists every rule with its source, removes one from its file (other keys kept), and the next run sees it gone", async () => {
    userExtension("run.lua", RUN);
    userConfig({ model: "gpt-test", permissions: { allow: ["run(git status)", "run(npm test)"], deny: ["run(rm:*)"] } });
    const config = join(box.home, ".config", "awl", "config.json");
    const listed = await box.awl(["permissions", "--allow", "run(ls)"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain("mode: default (default)");
    expect(listed.stdout).toContain("sandbox: off (--sandbox turns it on)");
    expect((await box.awl(["permissions", "--sandbox", "--json"])).stdout).toContain('"sandbox": {\n    "on": true,\n    "source": "--sandbox",\n    "auto_allow": false\n  }');
    expect(listed.stdout).toMatch(new RegExp(`deny:\\n +1 +run\\(rm:\\*\\) +${config}:9\\nallow:\\n +2 +run\\(git status\\) +${config}:5\\n +3 +run\\(npm test\\) +${config}:6\\n +4 +run\\(ls\\) +--allow\\n`));

    const removed = await box.awl(["permissions", "remove", "2"]);
    expect(removed).toMatchObject({ code: 0, stdout: `removed allow rule "run(git status)" (${config}:5)\n` });
    expect(JSON.parse(readFileSync(config, "utf8"))).toEqual({ model: "gpt-test", permissions: { allow: ["run(npm test)"], deny: ["run(rm:*)"] } });
    const flag = await box.awl(["permissions", "remove", "3", "--allow", "run(ls)"]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("comes from --allow");

    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "run", input: { command: "git status" } }]) }, { body: openaiText("ok") });
    await box.awl(["--no-std-tools", "-p", "go"], { env: providerEnv("openai", server.url) });
    expect(lastResult(1).content).toContain("permission denied");
  });

  it("trust and untrust: the folder's extension loads only while it is trusted", async () => {
    const marker = join(box.root, "marker");
    box.extension("tool.lua", `io.open(${JSON.stringify(marker)}, "w"):close()\nawl.register_tool("project_tool", { type = "object" }, function() return "p" end)\n`);
    expect((await box.awl(["permissions"])).stdout).toContain("not trusted: its .awl/extensions/ (1 Lua file) are not loaded");
    expect((await box.awl(["permissions", "trust"])).code).toBe(0);
    expect((await box.awl(["permissions"])).stdout).toContain("— trusted (");
    server.enqueue({ body: openaiText("Hi.") }, { body: openaiText("Hi.") });
    await box.awl(["--no-std-tools", "-p", "hi"], { env: providerEnv("openai", server.url) });
    expect(existsSync(marker)).toBe(true);
    expect(offered(0)).toEqual(["project_tool"]);
    expect((await box.awl(["permissions", "untrust"])).code).toBe(0);
    await box.awl(["--no-std-tools", "-p", "hi"], { env: providerEnv("openai", server.url) });
    expect(offered(1)).toEqual([]);
  });
});
