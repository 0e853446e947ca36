/** The built `awl -p` with AWL_PROVIDER=gemini against the replay server: parallel calls and thought signatures. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAwl, tempDir } from "../../cli/run-awl.js";
import { startReplayServer, type ReplayServer } from "../../support/replay-server.js";
import { weatherExtension } from "../weather-extension.js";
import { fixture } from "./support.js";

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

describe("awl -p with the Gemini provider", () => {
  it("runs parallel tool calls, sends the thought signature back, and reports cached and thought tokens", async () => {
    server.enqueue({ body: fixture("thoughts-parallel-calls.sse") }, { body: fixture("answer-after-calls.sse") });
    const run = await runAwl(["-p", "Weather in Paris and Tokyo?", "--allow", "*", "--output-format", "json", "--no-std-tools", "--extensions-dir", weatherExtension()], {
      env: { AWL_PROVIDER: "gemini", AWL_BASE_URL: server.url, GEMINI_API_KEY: "AIza-e2e", AWL_MODEL: "gemini-2.5-flash" },
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.stop_reason).toBe("end_turn");
    expect(result.usage).toMatchObject({ input_tokens: 2516, output_tokens: 153, cache_read_input_tokens: 2048, reasoning_tokens: 108 });
    expect(server.requests[0]!.headers["x-goog-api-key"]).toBe("AIza-e2e");
    const second = server.requests[1]!.json();
    expect(second.contents[1].parts[0]).toEqual({ functionCall: { name: "get_weather", args: { location: "Paris, France" } }, thoughtSignature: expect.stringMatching(/^CiQB/) });
    expect(second.contents[2].parts).toEqual([
      { functionResponse: { name: "get_weather", response: { output: "weather in Paris, France" } } },
      { functionResponse: { name: "get_weather", response: { output: "weather in Tokyo" } } },
    ]);
  });

  it("an image the model makes is named on screen, kept in the session, and sent back with its signature on the next turn", async () => {
    const home = tempDir();
    const env = { HOME: home, AWL_PROVIDER: "gemini", AWL_BASE_URL: server.url, GEMINI_API_KEY: "AIza-e2e", AWL_MODEL: "gemini-3-pro-image-preview" };
    server.enqueue({ body: fixture("image.sse") }, { body: fixture("text.sse") });
    const first = await runAwl(["-p", "Draw a red square", "--no-std-tools"], { env, cwd: home });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("Here is a red square:");
    expect(first.stdout + first.stderr).toContain("[image from the model: image/png, 1 KB]");
    const second = await runAwl(["-p", "Now make it blue", "-c", "--no-std-tools"], { env, cwd: home });
    expect(second.code).toBe(0);
    const body = server.requests.at(-1)!.json();
    expect(body.contents.map((c: { role: string }) => c.role)).toEqual(["user", "model", "user"]);
    expect(body.contents[1].parts).toEqual([
      { text: "Here is a red square:", thoughtSignature: "CiQBAdHtim9sZWdlIHRoZSBzaWduYXR1cmUgb2YgdGhlIHRleHQ=" },
      { inlineData: { mimeType: "image/png", data: expect.stringMatching(/^iVBORw0KGgo/) }, thoughtSignature: "CiIBAdHtim9pbWFnZSBzaWduYXR1cmU=" },
    ]);
    const exported = JSON.parse((await runAwl(["sessions", "export", JSON.parse((await runAwl(["sessions", "--json"], { env })).stdout)[0].id, "--format", "json"], { env })).stdout);
    expect(JSON.stringify(exported)).toContain('"type":"image","media_type":"image/png"');
  });

  it("without a key, says which variable to set", async () => {
    const run = await runAwl(["-p", "hi"], { env: { AWL_PROVIDER: "gemini", AWL_MODEL: "gemini-2.5-flash" } });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("GEMINI_API_KEY");
  });
});
