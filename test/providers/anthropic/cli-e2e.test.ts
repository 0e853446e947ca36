/** The built `awl -p` with AWL_PROVIDER=anthropic against the replay server: a tool loop with signed, interleaved thinking. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAwl } from "../../cli/run-awl.js";
import { startReplayServer, type ReplayServer } from "../../support/replay-server.js";
import { fixture } from "./support.js";
import { tempDir } from "../../support/temp-dir.js";

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

/** A real Lua extension offering the tool the recorded model calls. */
function weatherExtension(): string {
  const dir = tempDir("awl-weather-");
  writeFileSync(
    join(dir, "weather.lua"),
    `awl.register_tool("get_weather", { type = "object", properties = { location = { type = "string" } } }, function(input) return "18°C, sunny" end)\n`,
  );
  return dir;
}

describe("awl -p with the Anthropic provider", () => {
  it("runs a tool loop with interleaved thinking, sends every signed thinking block back, and reports cache usage", async () => {
    server.enqueue({ body: fixture("thinking-tool.sse") }, { body: fixture("thinking-after-tool.sse") });
    const run = await runAwl(["-p", "Weather in Paris?", "--allow", "*", "--output-format", "json", "--thinking", "2048", "--no-std-tools", "--extensions-dir", weatherExtension()], {
      env: { AWL_PROVIDER: "anthropic", AWL_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-e2e", AWL_MODEL: "claude-sonnet-4-5" },
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.stop_reason).toBe("end_turn");
    expect(result.usage).toEqual({ input_tokens: 942, output_tokens: 130, cache_read_input_tokens: 2048, cache_creation_input_tokens: 2168 });
    expect(result.messages.at(-1).content.map((b: { type: string }) => b.type)).toEqual(["thinking", "thinking", "text"]);

    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests.map((r) => r.json());
    for (const request of server.requests) {
      expect(request.headers["x-api-key"]).toBe("sk-ant-e2e");
      expect(request.headers["anthropic-beta"]).toBe("interleaved-thinking-2025-05-14");
    }
    expect(first).toMatchObject({ model: "claude-sonnet-4-5", max_tokens: 32000, thinking: { type: "enabled", budget_tokens: 2048 }, stream: true });
    expect(first.tools.map((t: { name: string }) => t.name)).toEqual(["get_weather"]);
    expect(second.messages[1].content[0]).toEqual({
      type: "thinking",
      thinking: "The user wants the weather. I should call get_weather for Paris.",
      signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds7wdjxOJwqyGbvDvOWyrGvQ4r2JpU5czTtIvlk3OBlL5EjcaQEEtZW0Q==",
    });
    expect(second.messages[2].content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", content: "18°C, sunny", cache_control: { type: "ephemeral" } },
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
