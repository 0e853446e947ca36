// The MCP servers of an interactive run set up once the prompt is drawn (src/runtime/later-mcp.ts): nothing is offered
// before the set-up, every model call waits for it, and exiting before it began sets nothing up.
import { describe, expect, it } from "vitest";
import { LaterMcp } from "../../src/runtime/later-mcp.js";
import type { McpToolSet } from "../../src/extensions/mcp/mcp-tool-set.js";
import type { ToolDefinition } from "../../src/tools/types.js";

function fakeServers(): { mcp: McpToolSet; log: string[] } {
  const log: string[] = [];
  const tools: ToolDefinition[] = [{ name: "files_read", description: "reads", schema: "{\"type\":\"object\"}", extension: "mcp:files", file: "", parallel: true, timeout_ms: 1000, kinds: ["read"] }];
  const mcp = {
    definitions: () => tools,
    instructions: () => ["use files_read"],
    refresh: async () => void log.push("refresh"),
    prewarm: (why?: string) => void log.push(`prewarm ${why}`),
    execute: async () => ({ status: "result" as const, content: "read it", is_error: false }),
    close: async () => void log.push("close"),
  };
  return { mcp: mcp as unknown as McpToolSet, log };
}

describe("LaterMcp", () => {
  it("offers nothing before the set-up, and the servers' cached tools from the first model call on", async () => {
    const { mcp, log } = fakeServers();
    let setUps = 0;
    const later = new LaterMcp(async () => (setUps++, mcp), () => undefined);
    expect(later.definitions()).toEqual([]);
    expect(later.instructions()).toEqual([]);
    later.prewarm("request"); // nothing to start yet
    expect(setUps).toBe(0);
    await later.refresh(); // what the agent awaits before every model call
    expect(setUps).toBe(1);
    expect(later.definitions().map((t) => t.name)).toEqual(["files_read"]);
    expect(later.instructions()).toEqual(["use files_read"]);
    expect(later.current).toBe(mcp);
    await later.begin(); // once only
    expect(setUps).toBe(1);
    expect(await later.execute({ id: "1", name: "files_read", input: "{}" }, new AbortController().signal)).toMatchObject({ content: "read it" });
    await later.close();
    expect(log).toEqual(["refresh", "close"]);
  });

  it("a call before the set-up waits for it; exiting before it began sets nothing up", async () => {
    const { mcp } = fakeServers();
    const waiting = new LaterMcp(async () => mcp, () => undefined);
    expect(await waiting.execute({ id: "1", name: "files_read", input: "{}" }, new AbortController().signal)).toMatchObject({ content: "read it" });

    let setUps = 0;
    const unused = new LaterMcp(async () => (setUps++, mcp), () => undefined);
    await unused.close();
    expect(setUps).toBe(0);
  });

  it("what the set-up finds wrong goes where begin() is told, and after a failure its tools are unknown", async () => {
    const warnings: string[] = [];
    const later = new LaterMcp(async (warn) => (warn("a server entry is odd"), Promise.reject(new Error("bad config"))), (text) => warnings.push(`warned: ${text}`));
    const shown: string[] = [];
    await later.begin((text) => shown.push(text)); // the interactive mode: above its prompt
    expect(shown).toEqual(["a server entry is odd", "the MCP servers could not be set up: bad config"]);
    expect(warnings).toEqual([]);
    expect(await later.execute({ id: "1", name: "files_read", input: "{}" }, new AbortController().signal)).toMatchObject({ is_error: true, content: 'unknown tool "files_read"' });
  });
});
