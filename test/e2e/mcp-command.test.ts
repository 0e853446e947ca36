// `awl mcp add|remove|list|approve` and `awl extensions` with MCP servers, through the built awl.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EVERYTHING } from "../extensions/mcp/servers.js";
import { sandbox, type Sandbox } from "./support.js";

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.remove());

const configPath = () => join(box.home, ".config", "awl", "config.json");

describe("awl mcp", () => {
  it("adds servers to the config file keeping its other keys, lists them started, and removes one", async () => {
    mkdirSync(join(box.home, ".config", "awl"), { recursive: true });
    writeFileSync(configPath(), `{\n    "model": "gpt-4o-mini",\n    "max_steps": 7\n}\n`);
    expect(await box.awl(["mcp", "add", "ev", "--", EVERYTHING])).toMatchObject({ code: 0, stdout: expect.stringContaining('added MCP server "ev"') });
    expect((await box.awl(["mcp", "add", "mem", "--env", "MEMORY_FILE_PATH=${HOME}/m.jsonl", "--", "mcp-server-memory", "--flag"])).code).toBe(0);
    expect((await box.awl(["mcp", "add", "web", "--transport", "http", "--header", "Authorization: Bearer ${TOKEN}", "https://example.invalid/mcp"])).code).toBe(0);
    const written = JSON.parse(readFileSync(configPath(), "utf8"));
    expect(written).toEqual({
      model: "gpt-4o-mini",
      max_steps: 7,
      mcpServers: {
        ev: { command: EVERYTHING },
        mem: { command: "mcp-server-memory", args: ["--flag"], env: { MEMORY_FILE_PATH: "${HOME}/m.jsonl" } },
        web: { type: "http", url: "https://example.invalid/mcp", headers: { Authorization: "Bearer ${TOKEN}" } },
      },
    });
    expect(readFileSync(configPath(), "utf8")).toMatch(/^\{\n {4}"model"/); // the file's indentation is kept
    expect((await box.awl(["mcp", "remove", "mem"])).code).toBe(0);
    expect((await box.awl(["mcp", "remove", "web"])).code).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(configPath(), "utf8")).mcpServers)).toEqual(["ev"]);
    const removedTwice = await box.awl(["mcp", "remove", "web"]);
    expect(removedTwice.code).toBe(2);
    expect(removedTwice.stderr).toContain("has no MCP server of that name");

    const listed = await box.awl(["mcp", "list"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^mcp:ev {2}ready {2}stdio /);
    expect(listed.stdout).toMatch(/13 tools, schemas \d+\.\d KB ≈ [\d.]+k? tokens per request: ev_echo, /);
    const json = JSON.parse((await box.awl(["mcp", "list", "--json"])).stdout);
    expect(json.mcp_servers[0]).toMatchObject({ name: "ev", state: "ready", transport: "stdio", source: "user" });
    expect(json.mcp_servers[0].schema_tokens).toBe(Math.ceil(json.mcp_servers[0].schema_bytes / 4));
  }, 90_000);

  it("names each server's own line of the config file, not the line of the mcpServers key", async () => {
    mkdirSync(join(box.home, ".config", "awl"), { recursive: true });
    writeFileSync(configPath(), `{\n  "mcpServers": {\n    "one": { "command": "/nonexistent/one" },\n\n    "two": { "command": "/nonexistent/two" }\n  }\n}\n`);
    const listed = await box.awl(["mcp", "list"]);
    expect(listed.stdout).toContain(`mcp:one  failed  stdio  /nonexistent/one  (user: ${configPath()}:3)`);
    expect(listed.stdout).toContain(`mcp:two  failed  stdio  /nonexistent/two  (user: ${configPath()}:5)`);
  });

  it("takes --trust-project as the other subcommands do: the folder's own servers are listed for that run", async () => {
    mkdirSync(join(box.cwd, ".awl"), { recursive: true });
    writeFileSync(join(box.cwd, ".awl", "config.json"), JSON.stringify({ mcpServers: { local: { command: "/nonexistent/local" } } }));
    const untrusted = await box.awl(["mcp", "list"]);
    expect(untrusted.code).toBe(0);
    expect(untrusted.stdout).not.toContain("mcp:local");
    const trusted = await box.awl(["mcp", "list", "--trust-project"]);
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toContain("mcp:local  failed");
  });

  it("refuses to overwrite a config file that is not JSON", async () => {
    mkdirSync(join(box.home, ".config", "awl"), { recursive: true });
    writeFileSync(configPath(), "{ not json");
    const result = await box.awl(["mcp", "add", "ev", "--", EVERYTHING]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("is not valid JSON");
    expect(readFileSync(configPath(), "utf8")).toBe("{ not json");
  });

  it("shows failed servers in awl extensions with their last stderr lines, beside the ready ones", async () => {
    const odd = join(import.meta.dirname, "../fixtures/mcp/odd-server.mjs");
    mkdirSync(join(box.home, ".config", "awl"), { recursive: true });
    writeFileSync(configPath(), JSON.stringify({ mcpServers: { crash: { command: process.execPath, args: [odd, "crash"] }, ev: { command: EVERYTHING }, off: { command: "x", disabled: true } } }));
    writeFileSync(join(box.cwd, ".mcp.json"), JSON.stringify({ mcpServers: { proj: { command: EVERYTHING } } }));
    const result = await box.awl(["extensions"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("mcp:crash  failed  stdio");
    expect(result.stdout).toContain("odd-server: cannot open its database /nonexistent/db");
    expect(result.stdout).toContain("mcp:ev  ready  stdio");
    expect(result.stdout).toContain("mcp:off  disabled");
    expect(result.stdout).toMatch(/mcp:proj {2}unapproved .*\n {4}error: from .*\.mcp\.json, not approved for this project yet/);
    // Approved once, it starts from then on.
    expect((await box.awl(["mcp", "approve", "proj"])).code).toBe(0);
    expect((await box.awl(["extensions"])).stdout).toContain("mcp:proj  ready");
  }, 90_000);

  it("awl tools lists MCP tools with their schema cost, and awl tool call runs one; a failed server is a problem", async () => {
    const odd = join(import.meta.dirname, "../fixtures/mcp/odd-server.mjs");
    mkdirSync(join(box.home, ".config", "awl"), { recursive: true });
    writeFileSync(configPath(), JSON.stringify({ mcpServers: { ev: { command: EVERYTHING }, broken: { command: process.execPath, args: [odd, "crash"] } } }));
    const listed = await box.awl(["tools", "--no-std-tools"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^ev_echo {2}· {2}MCP server "ev" \(its tool "echo"\) {2}· {2}.*config\.json(:\d+)? {2}· {2}read {2}· {2}\d+ B ≈ \d+ tokens\n {4}Echoes back the input/m);
    expect(listed.stdout).toMatch(/\n13 tools offered to the model: \d+ B ≈ \d+ tokens in every request\n/);
    expect(listed.stdout).toMatch(/\n1 problem:\n  MCP server "broken" failed: /);
    const json = JSON.parse((await box.awl(["tools", "--no-std-tools", "--json"])).stdout);
    const echo = json.tools.find((t: { name: string }) => t.name === "ev_echo");
    expect(echo).toMatchObject({ offered: true, mcp_server: "ev", mcp_tool: "echo", kinds: ["read"], schema: { type: "object" } });
    expect(echo.request_bytes).toBeGreaterThan(100);
    expect(json.total.request_bytes).toBe(json.tools.reduce((sum: number, t: { request_bytes: number }) => sum + t.request_bytes, 0));

    const called = await box.awl(["tool", "call", "ev_echo", '{"message":"from the command line"}', "--no-std-tools"]);
    expect(called).toMatchObject({ code: 0, stdout: "Echo: from the command line\n" });
    const bad = await box.awl(["tool", "call", "ev_echo", '{"message":7}', "--no-std-tools"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("message");
    const unknown = await box.awl(["tool", "call", "ev_nope", "--no-std-tools"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no tool named "ev_nope" \(tools: ev_echo, /);
  }, 90_000);
});
