/** The built `awl -p` with AWL_PROVIDER=openai-responses against the replay server: a tool loop with encrypted reasoning. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAwl } from "../../cli/run-awl.js";
import { startReplayServer, type ReplayServer } from "../../support/replay-server.js";
import { weatherExtension } from "../weather-extension.js";
import { fixture } from "./support.js";

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

describe("awl -p with the OpenAI Responses provider", () => {
  it("runs parallel tool calls, sends the encrypted reasoning back, and reports cached and reasoning tokens", async () => {
    server.enqueue({ body: fixture("reasoning-tools.sse") }, { body: fixture("answer-after-tools.sse") });
    const run = await runAwl(["-p", "Weather in Paris and Tokyo?", "--allow", "*", "--output-format", "json", "--no-std-tools", "--extensions-dir", weatherExtension()], {
      env: { AWL_PROVIDER: "openai-responses", AWL_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-e2e", AWL_MODEL: "gpt-5-mini" },
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.stop_reason).toBe("end_turn");
    expect(result.usage).toMatchObject({ input_tokens: 4120, output_tokens: 508, cache_read_input_tokens: 3584, reasoning_tokens: 384 });
    expect(result.messages.at(-1).content.at(-1)).toEqual({ type: "text", text: "Paris: 18°C, sunny. Tokyo: 22°C, cloudy." });

    const [first, second] = server.requests.map((r) => r.json());
    expect(server.requests[0]!.headers.authorization).toBe("Bearer sk-e2e");
    expect(first).toMatchObject({ store: false, include: ["reasoning.encrypted_content"] });
    const types = second.input.map((item: { type?: string; role?: string }) => item.type ?? item.role);
    expect(types).toEqual(["user", "reasoning", "function_call", "function_call", "function_call_output", "function_call_output"]);
    expect(second.input[4]).toEqual({ type: "function_call_output", call_id: "call_Xq3vJ8Ljb2Wc0EwR1nT5", output: "weather in Paris, France" });
  });
});
