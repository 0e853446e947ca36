// Servers that misbehave: each gets a clear message, and the others (and the session) keep working.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { McpToolSet, type McpToolSetOptions } from "../../../src/extensions/mcp/mcp-tool-set.js";
import type { McpServerConfig } from "../../../src/extensions/mcp/config.js";
import type { ToolCall, ToolProgress } from "../../../src/tools/types.js";
import { EVERYTHING, freePort, serverConfig, stdio, waitForPort } from "./servers.js";
import { tempDir } from "../../support/temp-dir.js";

const ODD = resolve(import.meta.dirname, "../../fixtures/mcp/odd-server.mjs");
const odd = (name: string, mode: string, extra: Partial<McpServerConfig> = {}): McpServerConfig => serverConfig(name, stdio(process.execPath, [ODD, mode]), extra);
const signal = new AbortController().signal;
let n = 0;
const call = (name: string, input: unknown = {}): ToolCall => ({ id: `call_${++n}`, name, input: JSON.stringify(input) });

/** Running, not a zombie waiting for its parent to reap it. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

let open: McpToolSet[] = [];
function start(servers: McpServerConfig[], options: Partial<McpToolSetOptions> = {}): McpToolSet {
  const set = McpToolSet.start({ servers, env: process.env, spillDir: join(tempDir("awl-mcp-"), "spill"), ...options });
  open.push(set);
  return set;
}
afterEach(async () => {
  await Promise.all(open.map((s) => s.close()));
  open = [];
});

describe("MCP servers that misbehave", () => {
  it("gives each bad server its own message while a good one serves", async () => {
    const tools = start(
      [
        serverConfig("missing", stdio("/nonexistent/mcp-server")),
        odd("garbage", "garbage"),
        odd("silent", "silent"),
        odd("crash", "crash"),
        odd("bad", "bad-tools"),
        serverConfig("good", stdio(EVERYTHING)),
      ],
      { startupTimeoutMs: 8_000 },
    );
    expect(await tools.waitForStart(30_000)).toEqual([]);
    await tools.refresh();
    const byName = Object.fromEntries(tools.servers().map((s) => [s.name, s]));
    expect(byName.missing).toMatchObject({ state: "failed", error: expect.stringContaining('the command "/nonexistent/mcp-server" was not found') });
    expect(byName.silent).toMatchObject({ state: "failed", error: expect.stringContaining("did not answer initialize within 8 s") });
    expect(byName.crash!.state).toBe("failed");
    expect(byName.crash!.error).toContain("exited before answering initialize");
    expect(byName.crash!.stderr).toEqual(["odd-server: cannot open its database /nonexistent/db"]);
    // Garbage on stdout is skipped: the server still serves.
    expect(byName.garbage!.state).toBe("ready");
    expect(await tools.execute(call("garbage_slow", { ms: 1 }), signal)).toMatchObject({ content: "slow done", is_error: false });
    // A non-object schema is refused with a reason; a long name is cut to fit, the rest offered.
    expect(byName.bad!.refused).toEqual(['tool "stringly" is not offered: its input schema has type "string", but tool input must be an object']);
    const long = tools.definitions().find((t) => t.server === "bad" && t.tool.startsWith("xxx"))!;
    expect(long.name).toMatch(/^bad_x+_[0-9a-f]{8}$/);
    expect(long.name.length).toBe(64);
    expect(await tools.execute(call(long.name), signal)).toMatchObject({ status: "result" });
    expect(await tools.execute(call("good_echo", { message: "still here" }), signal)).toMatchObject({ content: "Echo: still here" });
    expect(tools.problems().join("\n")).toContain('MCP server "missing" failed');
  }, 60_000);

  it("cuts a 10 MB result to the limit and spills the whole text", async () => {
    const tools = start([odd("odd", "normal")]);
    await tools.waitForStart(30_000);
    await tools.refresh();
    const outcome = await tools.execute(call("odd_big", { mb: 10 }), signal);
    expect(outcome.status).toBe("result");
    const content = (outcome as { content: string }).content;
    expect(content.length).toBeLessThan(50_000);
    expect(content).toMatch(/the whole output is in .+odd_big/);
  }, 60_000);

  it("answers a call in flight with is_error when the server dies, restarts it, and serves again", async () => {
    const tools = start([odd("odd", "normal")]);
    await tools.waitForStart(30_000);
    await tools.refresh();
    const outcome = await tools.execute(call("odd_exit"), signal);
    expect(outcome).toMatchObject({ status: "result", is_error: true });
    expect((outcome as { content: string }).content).toMatch(/the MCP server "odd" stopped during the call \(awl restarts it\)/);
    expect((outcome as { content: string }).content).toContain("odd-server: exiting mid-call");
    expect(tools.servers()[0]!.state).toBe("starting");
    // A call made while it restarts waits for it.
    expect(await tools.execute(call("odd_slow", { ms: 1 }), signal)).toMatchObject({ content: "slow done", is_error: false });
    expect(tools.servers()[0]!.state).toBe("ready");
  }, 60_000);

  it("a killed server (SIGKILL mid-call) is restarted", async () => {
    const tools = start([serverConfig("everything", stdio(EVERYTHING))]);
    await tools.waitForStart(30_000);
    await tools.refresh();
    const running = tools.execute(call("everything_trigger-long-running-operation", { duration: 20, steps: 20 }), signal);
    const pid = tools.servers()[0]!.pid!;
    await new Promise((r) => setTimeout(r, 300));
    process.kill(pid, "SIGKILL");
    const outcome = await running;
    expect(outcome).toMatchObject({ status: "result", is_error: true, content: expect.stringContaining('the MCP server "everything" stopped during the call') });
    await tools.waitForStart(30_000);
    expect(tools.servers()[0]!.pid).not.toBe(pid);
    expect(await tools.execute(call("everything_echo", { message: "back" }), signal)).toMatchObject({ content: "Echo: back" });
  }, 60_000);

  it("times a call out after the server's timeout", async () => {
    const tools = start([odd("odd", "normal", { timeoutMs: 300 })]);
    await tools.waitForStart(30_000);
    await tools.refresh();
    expect(await tools.execute(call("odd_slow", { ms: 5_000 }), signal)).toEqual({ status: "timeout", timeout_ms: 300 });
    expect(await tools.execute(call("odd_slow", { ms: 1 }), signal)).toMatchObject({ content: "slow done" });
  }, 60_000);

  it("reports every progress notification that came in the same read as the result", async () => {
    // A client busy elsewhere reads a server's pipe late and gets the notifications and the result together.
    const tools = start([odd("odd", "normal")]);
    await tools.waitForStart(30_000);
    await tools.refresh();
    const updates: ToolProgress[] = [];
    const outcome = await tools.execute(call("odd_burst", { steps: 3 }), signal, (u) => updates.push(u));
    expect(outcome).toMatchObject({ status: "result", content: "burst of 3 done" });
    expect(updates.map((u) => (u.kind === "progress" ? Math.round(u.fraction * 3) : u.kind))).toEqual([1, 2, 3]);
    expect(tools.servers()[0]!.error).toBeUndefined();
  }, 60_000);

  it("picks up list_changed at the next refresh, not before", async () => {
    const tools = start([odd("odd", "normal")]);
    await tools.waitForStart(30_000);
    await tools.refresh();
    const before = tools.definitions();
    expect(before.map((t) => t.name)).not.toContain("odd_grown_1");
    await tools.execute(call("odd_grow"), signal);
    await new Promise((r) => setTimeout(r, 300));
    expect(tools.definitions()).toBe(before);
    await tools.refresh();
    expect(tools.definitions().map((t) => t.name)).toContain("odd_grown_1");
    expect(await tools.execute(call("odd_grown_1"), signal)).toMatchObject({ content: "grown_1 ran" });
  }, 60_000);

  it("kills a server's process tree at close", async () => {
    const dir = tempDir("awl-mcp-tree-");
    const child = join(dir, "child.pid");
    const tools = start([serverConfig("tree", stdio("/bin/sh", ["-c", `sleep 300 & echo $! > ${child}; exec ${process.execPath} ${ODD} normal`]))]);
    await tools.waitForStart(30_000);
    const pids = [tools.servers()[0]!.pid!, Number(readFileSync(child, "utf8"))];
    expect(pids.map(alive)).toEqual([true, true]);
    await tools.close();
    // SIGKILL is delivered asynchronously: a busy machine may show the child for a few more milliseconds.
    const deadline = Date.now() + 5_000;
    while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(pids.map(alive)).toEqual([false, false]);
  }, 60_000);

  it("names an HTTP server that answers 401 or a web page, while the others keep working", async () => {
    const http = createServer((req, res) => {
      req.resume();
      if (req.url === "/locked") {
        res.writeHead(401, { "www-authenticate": 'Bearer realm="mcp"', "content-type": "application/json" });
        res.end('{"error":"unauthorized"}');
      } else {
        res.writeHead(200, { "content-type": "text/html" });
        res.end("<!doctype html><html><body><h1>Welcome to our website</h1></body></html>");
      }
    });
    await new Promise<void>((done) => http.listen(0, "127.0.0.1", done));
    const base = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
    try {
      const tools = start([
        serverConfig("locked", { type: "http", url: `${base}/locked`, headers: {} }),
        serverConfig("page", { type: "http", url: `${base}/page`, headers: {} }),
        odd("odd", "normal"),
      ]);
      await tools.waitForStart(30_000);
      await tools.refresh();
      const byName = Object.fromEntries(tools.servers().map((r) => [r.name, r]));
      expect(byName.locked).toMatchObject({ state: "failed", error: expect.stringContaining(`${base}/locked answered HTTP 401 Unauthorized: it needs credentials`) });
      expect(byName.page).toMatchObject({ state: "failed", error: expect.stringContaining("answered with a web page (HTML), not MCP") });
      expect(await tools.execute(call("odd_slow", { ms: 1 }), signal)).toMatchObject({ content: "slow done" });
    } finally {
      http.close();
    }
  }, 60_000);

  it("falls back to the legacy SSE transport for a server that only speaks it", async () => {
    const port = await freePort();
    const child = spawn(EVERYTHING, ["sse"], { env: { ...process.env, PORT: String(port) }, stdio: "ignore", detached: true });
    try {
      await waitForPort(port);
      const tools = start([serverConfig("old", { type: "http", url: `http://127.0.0.1:${port}/sse`, headers: {} })]);
      await tools.waitForStart(30_000);
      await tools.refresh();
      expect(tools.servers()[0]).toMatchObject({ state: "ready", transport: "sse" });
      expect(await tools.execute(call("old_echo", { message: "over sse" }), signal)).toMatchObject({ content: "Echo: over sse" });
    } finally {
      process.kill(-child.pid!, "SIGKILL");
    }
  }, 60_000);
});

