/** The built `awl -p` with AWL_PROVIDER=anthropic against the replay server: a tool loop with signed thinking. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAwl } from "../../cli/run-awl.js";
import { startReplayServer, type ReplayServer } from "../../support/replay-server.js";
import { fixture } from "./support.js";

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

describe("awl -p with the Anthropic provider", () => {
  it("runs a tool loop, sends the signed thinking back, and reports cache usage in the JSON result", async () => {
    // The model calls get_weather, a tool no extension offers: the agent answers with an is_error result.
    server.enqueue({ body: fixture("thinking-tool.sse") }, { body: fixture("text.sse") });
    const run = await runAwl(["-p", "Weather in Paris?", "--output-format", "json", "--thinking-budget", "2048", "--max-tokens", "1000"], {
      env: { AWL_PROVIDER: "anthropic", AWL_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-e2e", AWL_MODEL: "claude-sonnet-4-5" },
    });
    expect(run.stderr).toBe("awl: max tokens 1000 is not above the thinking budget 2048: sending 6144 (the budget plus 4096 for the answer)\n");
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.stop_reason).toBe("end_turn");
    expect(result.usage).toEqual({ input_tokens: 437, output_tokens: 104, cache_read_input_tokens: 1830, cache_creation_input_tokens: 2048 });
    expect(result.messages.at(-1).content).toEqual([{ type: "text", text: 'Hello, wörld — 👋 line two\nand "quotes"' }]);

    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests.map((r) => r.json());
    expect(server.requests[0]!.headers["x-api-key"]).toBe("sk-ant-e2e");
    expect(first).toMatchObject({ model: "claude-sonnet-4-5", max_tokens: 6144, thinking: { type: "enabled", budget_tokens: 2048 }, stream: true });
    expect(second.messages[1].content[0]).toMatchObject({ type: "thinking", signature: expect.stringMatching(/^EqQB/) });
    expect(second.messages[2].content).toEqual([
      expect.objectContaining({ type: "tool_result", tool_use_id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", is_error: true, cache_control: { type: "ephemeral" } }),
    ]);
  });

  it("reports an HTTP 529 as overloaded after the retries, with Anthropic's message", async () => {
    const overloaded = { status: 529, headers: { "content-type": "application/json" }, body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' };
    server.enqueue(overloaded);
    const run = await runAwl(["-p", "hi", "--max-retries", "0"], {
      env: { AWL_PROVIDER: "anthropic", AWL_BASE_URL: server.url, AWL_MODEL: "claude-sonnet-4-5" },
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("Overloaded");
  });
});
