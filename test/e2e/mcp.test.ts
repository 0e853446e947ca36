// MCP servers through the built `awl -p`: the reference servers configured in awl's config file and in a
// project's .mcp.json, their tools offered beside the Lua ones, called in parallel with them, their results
// (text, images) sent back to each provider, progress in stream-json.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ReplayServer } from "../support/replay-server.js";
import { EVERYTHING } from "../extensions/mcp/servers.js";
import { anthropicText, anthropicToolCalls, installExamples, openaiText, openaiToolCalls, providerEnv, toolNamesOffered, withServerAndSandbox, type Sandbox, type ScriptedCall } from "./support.js";

type Provider = "openai" | "anthropic";
const wire = {
  openai: { calls: openaiToolCalls, text: openaiText },
  anthropic: { calls: anthropicToolCalls, text: anthropicText },
} as const;


let server: ReplayServer;
let box: Sandbox;
withServerAndSandbox((made) => ({ server, box } = made));

function userConfig(servers: Record<string, unknown>, extra: Record<string, unknown> = {}): void {
  const dir = join(box.home, ".config", "awl");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "config.json"), JSON.stringify({ mcpServers: servers, ...extra }));
}

describe.each(["openai", "anthropic"] as const)("%s: MCP tools through awl -p", (provider) => {
  const run = (prompt: string, extra: string[] = []) => box.awl(["--trust-project", "--allow", "*", "-p", prompt, ...extra], { env: providerEnv(provider, server.url) });

  it("offers the server's tools beside Lua's and runs an MCP call and a Lua call in parallel", async () => {
    installExamples(box, ["echo.lua"]);
    userConfig({ everything: { command: EVERYTHING } });
    const calls: ScriptedCall[] = [
      { id: "c_mcp", name: "everything_echo", input: { message: "from MCP" } },
      { id: "c_lua", name: "echo", input: { message: "from Lua" } },
    ];
    server.enqueue({ body: wire[provider].calls(calls) }, { body: wire[provider].text("Both answered.") });
    const result = await run("use both");
    expect(result.stderr).not.toContain("awl:");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Both answered.");
    const offered = toolNamesOffered(provider, server.requests[0]!);
    expect(offered).toContain("echo");
    expect(offered).toContain("everything_echo");
    expect(offered).toContain("everything_get-tiny-image");
    // The server's instructions (from initialize) follow awl's system prompt.
    const first = server.requests[0]!.json();
    const system: string = provider === "openai" ? first.messages[0].content : first.system[0].text;
    expect(system).toMatch(/^You are awl/);
    expect(system).toContain('Instructions from the MCP server "everything" (its tools are named everything_*):\n');
    const sent = JSON.stringify(server.requests[1]!.json());
    expect(sent).toContain("Echo: from MCP");
    expect(sent).toContain("from Lua");
  }, 60_000);

  it("sends an image an MCP tool returned to the model", async () => {
    userConfig({ everything: { command: EVERYTHING } });
    server.enqueue({ body: wire[provider].calls([{ id: "c_img", name: "everything_get-tiny-image", input: {} }]) }, { body: wire[provider].text("A logo.") });
    const result = await run("show me");
    expect(result.code).toBe(0);
    const body = server.requests[1]!.json();
    const sent = JSON.stringify(body);
    expect(sent).toContain("iVBORw0KGgo"); // the PNG's base64, as an image part of the request
    expect(sent).toMatch(provider === "openai" ? /"image_url"/ : /"type":"image"/);
  }, 60_000);
});

describe("MCP in print mode", () => {
  const env = () => providerEnv("openai", server.url);

  it("shows progress of a long-running MCP tool in stream-json", async () => {
    userConfig({ everything: { command: EVERYTHING } });
    server.enqueue(
      { body: openaiToolCalls([{ id: "c_long", name: "everything_trigger-long-running-operation", input: { duration: 0.9, steps: 3 } }]) },
      { body: openaiText("Done.") },
    );
    const result = await box.awl(["--allow", "*", "-p", "--output-format", "stream-json", "go"], { env: env() });
    expect(result.code).toBe(0);
    const events = result.stdout.trim().split("\n").map((l) => JSON.parse(l));
    const progress = events.filter((e) => e.type === "tool_progress");
    // All three the server sends before its result, in order, before the tool's end.
    expect(progress.map((e) => Math.round(e.update.fraction * 3))).toEqual([1, 2, 3]);
    expect(progress[0]).toMatchObject({ tool_use_id: "c_long", name: "everything_trigger-long-running-operation", update: { kind: "progress" } });
    expect(progress[0].update.fraction).toBeCloseTo(1 / 3);
    expect(events.findIndex((e) => e.type === "tool_end")).toBeGreaterThan(events.lastIndexOf(progress[2]));
  }, 60_000);

  it("starts a project's .mcp.json servers headless only with --approve-mcp-json", async () => {
    writeFileSync(join(box.cwd, ".mcp.json"), JSON.stringify({ mcpServers: { proj: { command: EVERYTHING } } }));
    server.enqueue({ body: openaiText("One.") }, { body: openaiText("Two.") });
    const refused = await box.awl(["--allow", "*", "-p", "hi"], { env: env() });
    expect(refused.code).toBe(0);
    expect(refused.stderr).toContain('MCP server "proj"');
    expect(refused.stderr).toContain("not approved for this project yet");
    expect(refused.stderr).toContain("--approve-mcp-json");
    expect(toolNamesOffered("openai", server.requests[0]!)).not.toContain("proj_echo");
    const approved = await box.awl(["--allow", "*", "-p", "--approve-mcp-json", "hi"], { env: env() });
    expect(approved.code).toBe(0);
    expect(approved.stderr).not.toContain("awl:");
    expect(toolNamesOffered("openai", server.requests[1]!)).toContain("proj_echo");
  }, 60_000);

  it("starts a trusted folder's .mcp.json servers with the rest of what it brings, in a run and in awl mcp list", async () => {
    writeFileSync(join(box.cwd, ".mcp.json"), JSON.stringify({ mcpServers: { proj: { command: EVERYTHING } } }));
    server.enqueue({ body: openaiText("One.") });
    const trusted = await box.awl(["--trust-project", "-p", "hi"], { env: env() });
    expect(trusted.code).toBe(0);
    expect(trusted.stderr).not.toContain("not approved");
    expect(toolNamesOffered("openai", server.requests[0]!)).toContain("proj_echo");
    expect((await box.awl(["mcp", "list"])).stdout).toContain("not approved for this project yet");
    expect((await box.awl(["mcp", "list", "--trust-project"])).stdout).toMatch(/^mcp:proj {2}ready/m);
  }, 60_000);

  it("reports a server that fails, and the turn goes on without it", async () => {
    userConfig({ broken: { command: "/nonexistent/server" }, everything: { command: EVERYTHING } });
    server.enqueue({ body: openaiText("Fine.") });
    const result = await box.awl(["--allow", "*", "-p", "hi"], { env: env() });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Fine.");
    expect(result.stderr).toContain('awl: MCP server "broken" failed: the command "/nonexistent/server" was not found');
    expect(toolNamesOffered("openai", server.requests[0]!)).toContain("everything_echo");
  }, 60_000);

  it("offers the tools a server listed last time before it is ready; a call then waits for it", async () => {
    const odd = join(import.meta.dirname, "../fixtures/mcp/odd-server.mjs");
    const modeFile = join(box.root, "mode");
    writeFileSync(modeFile, "normal");
    // The first run lists the server's tools (a start-up timeout a loaded machine cannot miss)...
    userConfig({ odd: { command: process.execPath, args: [odd, `@${modeFile}`] } }, { mcp_startup_timeout_ms: 60_000 });
    server.enqueue({ body: openaiText("First.") });
    expect((await box.awl(["--allow", "*", "-p", "hi"], { env: env() })).code).toBe(0);
    expect(toolNamesOffered("openai", server.requests[0]!)).toContain("odd_slow");
    // Next run the server never answers initialize: its cached tools are offered at once (no wait, no warning)...
    userConfig({ odd: { command: process.execPath, args: [odd, `@${modeFile}`] } }, { mcp_startup_timeout_ms: 4000 });
    writeFileSync(modeFile, "silent");
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "odd_slow", input: { ms: 1 } }]) }, { body: openaiText("Second.") });
    const second = await box.awl(["--allow", "*", "-p", "hi"], { env: env() });
    expect(second.code).toBe(0);
    expect(second.stderr).not.toContain("not ready after");
    expect(toolNamesOffered("openai", server.requests[1]!)).toContain("odd_slow");
    // ...and the call waits for the start, which fails: an error result naming the server.
    const results = server.requests[2]!.json().messages.filter((m: any) => m.role === "tool");
    expect(results[0].content).toMatch(/the MCP server "odd" is not running: .*did not answer initialize within 4 s/);
    expect(second.stderr).toContain('MCP server "odd" failed');
  }, 90_000);

  it("does not start a server whose tools are cached for a reply that needs no tool", async () => {
    const odd = join(import.meta.dirname, "../fixtures/mcp/odd-server.mjs");
    const starts = join(box.root, "starts");
    userConfig({ odd: { command: process.execPath, args: [odd, "normal"], env: { ODD_STARTED_FILE: starts } } });
    server.enqueue({ body: openaiText("First.") }, { body: openaiText("Second.") });
    expect((await box.awl(["-p", "hi"], { env: env() })).code).toBe(0);
    expect(readFileSync(starts, "utf8")).toBe("started\n"); // the first run waits for it: nothing is known of it yet
    const second = await box.awl(["-p", "hi"], { env: env() });
    expect(second.code).toBe(0);
    expect(toolNamesOffered("openai", server.requests[1]!)).toContain("odd_slow");
    expect(readFileSync(starts, "utf8")).toBe("started\n"); // offered from the cache, never started
  }, 90_000);
});

