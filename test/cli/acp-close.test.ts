/**
 * ACP's `session/close` (issue 30: an editor opening and closing sessions all day must not keep what each held
 * until awl exits): a closed session's Lua workers stop (their extensions' `on_unload` hooks run), its MCP servers
 * exit, its id is unknown after, and a prompt running in it ends cancelled first.
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openaiToolCalls } from "../e2e/support.js";
import type { ReplayServer } from "../support/replay-server.js";
import { acpPlaces, withAcp } from "./acp-client.js";
import { openaiAnswer, unfinishedAnswer } from "./openai-answer.js";
import { EVERYTHING } from "../extensions/mcp/servers.js";
import { waitUntil } from "../support/processes.js";

let server: ReplayServer;
let home: string;
let cwd: string;
beforeEach(async () => {
  ({ server, home, cwd } = await acpPlaces("awl-acp-close-"));
});
afterEach(() => server.close());

const env = () => ({ AWL_BASE_URL: `${server.url}/v1`, AWL_API_KEY: "sk-test", AWL_MODEL: "gpt-test" });

/** A user extension whose `on_unload` hook appends a line to `mark` each time one of its Lua states is discarded. */
function unloadMarker(mark: string): void {
  const dir = join(home, ".config/awl/extensions");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "marker.lua"), `awl.on_unload(function() local f = assert(io.open(${JSON.stringify(mark)}, "a")); f:write("unloaded\\n"); f:close() end)\n`);
}

/** An MCP server started through a shell that first notes its pid in `pids` (it then becomes the server: `exec`). */
function notedMcpServer(pids: string): { name: string; command: string; args: string[]; env: [] } {
  return { name: "everything", command: "/bin/sh", args: ["-c", `echo $$ >> '${pids}'; exec '${EVERYTHING}'`], env: [] };
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const threadsOf = (pid: number): number => readdirSync(`/proc/${pid}/task`).length;
/** How many objects of class `name` the heap snapshot in `file` holds; undefined while the file is not whole JSON yet. */
function objectsNamed(file: string, name: string): number | undefined {
  let snapshot: { snapshot: { meta: { node_fields: string[]; node_types: [string[]] } }; nodes: number[]; strings: string[] };
  try {
    snapshot = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
  const { node_fields: fields, node_types: [types] } = snapshot.snapshot.meta;
  const [type, named, object] = [fields.indexOf("type"), fields.indexOf("name"), types.indexOf("object")];
  let count = 0;
  for (let i = 0; i < snapshot.nodes.length; i += fields.length) if (snapshot.nodes[i + type] === object && snapshot.strings[snapshot.nodes[i + named]!] === name) count++;
  return count;
}
const ODD = join(import.meta.dirname, "../fixtures/mcp/odd-server.mjs");
const lines = (file: string): string[] => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : []);

describe("awl acp session/close", () => {
  it("stops the session's Lua workers and MCP servers now, not at exit; the id is unknown after", async () => {
    const mark = join(home, "unloaded.txt");
    const pids = join(home, "mcp-pids.txt");
    unloadMarker(mark);
    let unloadedAtClose = 0;
    server.enqueue({ body: openaiToolCalls([{ id: "call_ls", name: "ls", input: { path: "." } }]) }, openaiAnswer("Listed."));
    await withAcp({ home, cwd, env: env() }, async (ctx, awl) => {
      const init = await ctx.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
      expect(init.agentCapabilities.sessionCapabilities?.close).toEqual({});
      const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [notedMcpServer(pids)] });
      expect((await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "list" }] })).stopReason).toBe("end_turn");
      await waitUntil(() => lines(pids).length === 1, "the MCP server to start");
      const mcpPid = Number(lines(pids)[0]);
      expect(alive(mcpPid)).toBe(true);
      expect(lines(mark)).toEqual([]);

      await ctx.request("session/close", { sessionId });
      // awl is still running (stdin open): what the session held is gone already.
      expect(awl.child.exitCode).toBeNull();
      unloadedAtClose = lines(mark).length;
      expect(unloadedAtClose).toBeGreaterThan(0);
      await waitUntil(() => !alive(mcpPid), `the session's MCP server (pid ${mcpPid}) to exit`);
      await expect(ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "again" }] })).rejects.toThrow(/not found/i);
      // Closing it again ends in the same state: awl answers "not found", which ACP's client side takes as success.
      await expect(ctx.request("session/close", { sessionId })).resolves.toEqual({});
    });
    // Closed once: awl's exit finds nothing more of it to unload.
    expect(lines(mark).length).toBe(unloadedAtClose);
  }, 90_000);

  it("opening and closing sessions leaves no thread behind: the process has as many threads as after the first", async () => {
    for (let i = 0; i < 6; i++) server.enqueue({ body: openaiToolCalls([{ id: `call_${i}`, name: "ls", input: { path: "." } }]) }, openaiAnswer("Listed."));
    await withAcp({ home, cwd, env: env() }, async (ctx, awl) => {
      const cycle = async (): Promise<void> => {
        const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
        expect((await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "list" }] })).stopReason).toBe("end_turn");
        await ctx.request("session/close", { sessionId });
      };
      await cycle();
      const pid = awl.child.pid!;
      const after = threadsOf(pid);
      // Open five at once (each with its Lua worker running a call), then close them all.
      const open = await Promise.all([0, 1, 2, 3, 4].map(() => ctx.request("session/new", { cwd, mcpServers: [] })));
      await Promise.all(open.map(({ sessionId }) => ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "list" }] })));
      expect(threadsOf(pid)).toBeGreaterThan(after);
      await Promise.all(open.map(({ sessionId }) => ctx.request("session/close", { sessionId })));
      await waitUntil(() => threadsOf(pid) <= after, () => `the threads of the closed sessions to end (${threadsOf(pid)} now, ${after} after the first session)`);
    });
  }, 120_000);

  it("closed sessions are freed: no tool set or runtime of theirs is left on the heap", async () => {
    // A probe (NODE_OPTIONS=--import) writes a heap snapshot on SIGUSR2 (after a full GC, as every snapshot is).
    // Before, every closed session stayed whole: its Lua and MCP tool sets were held by the clean-ups kept for a
    // signal and by the subscriptions to late credentials (a sign-in's refreshed token), and they held the rest.
    mkdirSync(home, { recursive: true });
    const probe = join(home, "snapshot-probe.mjs");
    const snapshot = join(home, "after.heapsnapshot");
    writeFileSync(probe, `import v8 from "node:v8";\nprocess.on("SIGUSR2", () => v8.writeHeapSnapshot(${JSON.stringify(snapshot)}));\n`);
    const odd = { name: "odd", command: process.execPath, args: [ODD], env: [] };
    for (let i = 0; i < 3; i++) server.enqueue({ body: openaiToolCalls([{ id: `call_${i}`, name: "ls", input: { path: "." } }]) }, openaiAnswer("Listed."));
    await withAcp({ home, cwd, env: { ...env(), NODE_OPTIONS: `--import=${probe}` } }, async (ctx, awl) => {
      for (let i = 0; i < 3; i++) {
        const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [odd] });
        expect((await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "list" }] })).stopReason).toBe("end_turn");
        await ctx.request("session/close", { sessionId });
      }
      awl.child.kill("SIGUSR2");
      await waitUntil(() => existsSync(snapshot), "the heap snapshot");
      await waitUntil(() => objectsNamed(snapshot, "Runtime") !== undefined, "the heap snapshot to be complete");
    });
    expect({ LuaToolSet: objectsNamed(snapshot, "LuaToolSet"), McpToolSet: objectsNamed(snapshot, "McpToolSet"), Runtime: objectsNamed(snapshot, "Runtime") }).toEqual({ LuaToolSet: 0, McpToolSet: 0, Runtime: 0 });
  }, 120_000);

  it("closing a session while its prompt runs ends that prompt cancelled, saved, before the close answers", async () => {
    server.enqueue(unfinishedAnswer(["Working", "on"]));
    let closed = "";
    await withAcp({ home, cwd, env: env() }, async (ctx, awl) => {
      const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
      closed = sessionId;
      const running = ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
      await awl.waitForUpdate((n) => n.update.sessionUpdate === "agent_message_chunk");
      await ctx.request("session/close", { sessionId });
      expect((await running).stopReason).toBe("cancelled");
    });
    const saved = readFileSync(join(home, ".local/share/awl/sessions", `${closed}.jsonl`), "utf8");
    expect(saved).toContain(`"text":"go"`);
  }, 60_000);
});
