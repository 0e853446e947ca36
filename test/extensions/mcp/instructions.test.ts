// Each MCP server's `instructions` (from initialize) follow the system prompt: in server-name order whatever order
// the servers got ready in, bounded per server and in all, and a server ready after a model call adds its
// instructions from the next call on.
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "../../../src/agent/agent.js";
import { McpToolSet, MAX_ALL_INSTRUCTIONS_CHARS, MAX_INSTRUCTIONS_CHARS } from "../../../src/extensions/mcp/mcp-tool-set.js";
import { Conversation } from "../../../src/model/conversation.js";
import type { Provider, StreamOptions } from "../../../src/providers/types.js";
import { serverConfig, stdio } from "./servers.js";
import { tempDir } from "../../support/temp-dir.js";

const ODD = resolve(import.meta.dirname, "../../fixtures/mcp/odd-server.mjs");
/** The fake server with these instructions; with `gate`, it answers initialize only once that file exists. */
const odd = (name: string, instructions: string, gate?: string) =>
  serverConfig(name, stdio(process.execPath, [ODD, "normal"], { ODD_INSTRUCTIONS: instructions, ...(gate && { ODD_WAIT_FOR_FILE: gate }) }));

let open: McpToolSet[] = [];
afterEach(async () => {
  await Promise.all(open.map((s) => s.close()));
  open = [];
});
function start(servers: ReturnType<typeof odd>[]): McpToolSet {
  const set = McpToolSet.start({ servers, env: process.env, spillDir: join(tempDir("awl-mcp-"), "spill") });
  open.push(set);
  return set;
}

/** A provider that answers every call at once and keeps the system prompt each call was sent with. */
function recordingProvider(): Provider & { systems: (string | undefined)[] } {
  const systems: (string | undefined)[] = [];
  return {
    name: "fake",
    model: "m",
    systems,
    async streamStep(_conversation, _receiver, options: StreamOptions = {}) {
      systems.push(options.system);
      return { ok: true, message: { role: "assistant", content: [{ type: "text", text: "ok" }], stop_reason: "end_turn" } };
    },
  };
}

describe("MCP servers' instructions in the system prompt", () => {
  it("come after awl's prompt in server-name order; a server ready after a call adds its own from the next call on", async () => {
    // "zeta" is ready first, "alpha" only after the first call: the prompt still lists alpha first once both are.
    const gate = join(tempDir("awl-gate-"), "open");
    const tools = start([odd("zeta", "Zeta says: use zeta_grow."), odd("alpha", "Alpha says: be careful.", gate)]);
    expect(await tools.waitForStart(30_000, (c) => c.name === "zeta")).toEqual([]);
    const provider = recordingProvider();
    const agent = new Agent({ provider, tools, system: "You are awl." });
    const conversation = new Conversation();
    conversation.addUserMessage("hi");
    await agent.runStep(conversation);
    expect(provider.systems[0]).toBe('You are awl.\n\nInstructions from the MCP server "zeta" (its tools are named zeta_*):\nZeta says: use zeta_grow.');

    writeFileSync(gate, "");
    expect(await tools.waitForStart(30_000)).toEqual([]);
    conversation.addUserMessage("again");
    await agent.runStep(conversation);
    expect(provider.systems[1]).toBe(
      'You are awl.\n\nInstructions from the MCP server "alpha" (its tools are named alpha_*):\nAlpha says: be careful.' +
        '\n\nInstructions from the MCP server "zeta" (its tools are named zeta_*):\nZeta says: use zeta_grow.',
    );
    // Nothing changed: the same bytes on the next call (the provider's prompt cache keeps hitting).
    conversation.addUserMessage("once more");
    await agent.runStep(conversation);
    expect(provider.systems[2]).toBe(provider.systems[1]);
  }, 60_000);

  it("are cut per server and in all, each cut saying so", async () => {
    const long = (letter: string) => `${letter} `.repeat(MAX_INSTRUCTIONS_CHARS);
    const tools = start(["s1", "s2", "s3", "s4", "s5"].map((name, i) => odd(name, long("abcde"[i]!))));
    expect(await tools.waitForStart(30_000)).toEqual([]);
    await tools.refresh();
    const instructions = tools.instructions();
    expect(instructions).toHaveLength(5);
    for (const text of instructions.slice(0, 4)) {
      expect(text).toContain(`[awl: cut here; this server's instructions are ${long("a").trim().length} characters, more than awl sends]`);
      expect(text.length).toBeLessThan(MAX_INSTRUCTIONS_CHARS + 200);
    }
    expect(instructions[4]).toBe(`[awl: the instructions of the MCP server "s5" were left out: all servers' instructions are limited to ${MAX_ALL_INSTRUCTIONS_CHARS} characters]`);
    expect(instructions.join("").length).toBeLessThan(MAX_ALL_INSTRUCTIONS_CHARS + 1_000);
  }, 60_000);
});
