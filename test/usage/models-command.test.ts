/**
 * The model catalogue through the built awl (issue 29 item 5): `awl models` lists the catalogue merged with the
 * server's own list, `awl models --refresh` caches models.dev's catalogue from a local server ($AWL_MODELS_URL), the
 * cost display uses the cached copy, and a corrupt cache or a failed refresh loses nothing.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAwl, tempDir } from "../cli/run-awl.js";
import { fixture } from "../providers/anthropic/support.js";
import { startReplayServer, type ReplayServer } from "../support/replay-server.js";

const API_JSON = readFileSync(new URL("../fixtures/models-dev/api.json", import.meta.url), "utf8");
const json = (body: unknown) => ({ headers: { "content-type": "application/json" }, body: typeof body === "string" ? body : JSON.stringify(body) });

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

/** A cache folder, and the environment of a run on Anthropic through the replay server with `model`. */
function setup(model = "claude-opus-4-6") {
  const cache = tempDir("awl-cache-");
  const env = { XDG_CACHE_HOME: cache, AWL_MODELS_URL: `${server.url}/api.json`, AWL_PROVIDER: "anthropic", AWL_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-models", AWL_MODEL: model };
  return { cache, file: join(cache, "awl", "models.json"), env };
}

/** `awl -p` on text.sse (25 input, 15 output, 1830 cache-read tokens), its JSON result and stderr. */
async function costRun(env: Record<string, string>) {
  server.enqueue({ body: fixture("text.sse") });
  const run = await runAwl(["-p", "hi", "--output-format", "json"], { env });
  return { result: JSON.parse(run.stdout), stderr: run.stderr };
}

describe("awl models --refresh", () => {
  it("caches models.dev's catalogue in that format; cost, the window and awl models use it from then on", async () => {
    const { file, env } = setup();
    const before = await costRun(env);
    expect(before.result).toMatchObject({ cost_usd: null, context: { window: 128000, window_source: "default" } });

    server.enqueue(json(API_JSON));
    const refreshed = await runAwl(["models", "--refresh"], { env });
    expect(refreshed).toMatchObject({ code: 0, stdout: `updated ${file} from ${server.url}/api.json: 3 providers, 6 models (1 fields of an unexpected type left out)\n` });
    expect(server.requests.at(-1)).toMatchObject({ method: "GET", url: "/api.json" });
    // The models.dev format, with the fields awl reads (release dates and the like left out).
    const cached = JSON.parse(readFileSync(file, "utf8"));
    expect(cached.anthropic.models["claude-opus-4-6"]).toEqual({
      id: "claude-opus-4-6", name: "Claude Opus 4.6", attachment: true, reasoning: true, tool_call: true,
      modalities: { input: ["text", "image", "pdf"], output: ["text"] },
      cost: { input: 5, output: 25, cache_read: 0.5, cache_write: 6.25 }, limit: { context: 1000000, output: 128000 },
    });
    expect(cached.groq.api).toBe("https://api.groq.com/openai/v1");

    // 25 × $5 + 15 × $25 + 1830 × $0.50 per million = $0.001415
    const after = await costRun(env);
    expect(after.result).toMatchObject({ cost_usd: 0.001415, context: { window: 1000000, window_source: "catalogue" } });
    expect(after.stderr).toBe("");
    // A model the refresh does not list keeps its bundled figures: claude-sonnet-4-5 (25 × 3 + 15 × 15 + 1830 × 0.3).
    expect((await costRun({ ...env, AWL_MODEL: "claude-sonnet-4-5" })).result.cost_usd).toBe(0.000849);

    const groq = JSON.parse((await runAwl(["models", "--provider", "groq", "--json"], { env })).stdout);
    expect(groq).toMatchObject({ provider: "groq", catalogue_provider: "groq", catalogue_file: file, server: { listed: false } });
    expect(groq.models).toEqual([
      { id: "llama-3.3-70b-versatile", name: "Llama 3.3 70B Versatile", context_window: 131072, max_output_tokens: 32768, prices: { input: "0.59", output: "0.79" }, tools: true, images: false, reasoning: false, in_catalogue: true },
      // cost.input was a string: left out (unknown), the rest kept.
      { id: "whisper-large-v3", name: "Whisper Large V3", context_window: 448, max_output_tokens: 448, prices: { output: "0" }, tools: false, images: false, reasoning: false, in_catalogue: true },
    ]);
    const google = JSON.parse((await runAwl(["models", "--provider", "google", "--json"], { env })).stdout);
    expect(google.models.find((m: { id: string }) => m.id === "gemini-3-pro-preview")).toMatchObject({
      prices: { input: "2", output: "12", cache_read: "0.2" }, long_context: { above_input_tokens: 200000, input: "4", output: "18", cache_read: "0.4" },
    });
    const anthropic = JSON.parse((await runAwl(["models", "--provider", "anthropic", "--json"], { env: { ...env, ANTHROPIC_API_KEY: "" } })).stdout);
    expect(anthropic.models.find((m: { id: string }) => m.id === "claude-sonnet-4-5-20250929")).toMatchObject({
      long_context: { above_input_tokens: 200000, input: "6", output: "22.5", cache_read: "0.6", cache_write: "7.5" },
    });
    // The bundled models of the provider are still there, beside the refreshed ones.
    expect(google.models.map((m: { id: string }) => m.id)).toEqual(expect.arrayContaining(["gemini-2.5-pro", "gemini-3-pro-preview", "gemini-2.5-flash-image"]));
  });

  it.each([
    ["an HTTP error", { status: 503, ...json({ error: "maintenance" }) }, /answered HTTP 503/],
    ["a body that is not JSON", json("<html>oops</html>"), /did not answer JSON \(Unexpected token/],
    ["JSON of the wrong shape", json({ anthropic: { id: "anthropic" } }), /did not answer a models\.dev catalogue: provider "anthropic" has no "models" object/],
    ["an empty object", json({}), /answered a catalogue with no providers/],
  ])("a refresh that gets %s fails, says why and keeps the previous copy", async (_what, response, reason) => {
    const { file, env } = setup();
    server.enqueue(json(API_JSON));
    expect((await runAwl(["models", "--refresh"], { env })).code).toBe(0);
    const previous = readFileSync(file, "utf8");
    server.enqueue(response);
    const failed = await runAwl(["models", "--refresh"], { env });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(reason);
    expect(failed.stderr).toContain(`the previous catalogue is kept (${file})`);
    expect(readFileSync(file, "utf8")).toBe(previous);
    expect((await costRun(env)).result.cost_usd).toBe(0.001415);
  });

  it("a server that cannot be reached: the reason, and no cache written", async () => {
    const { file, env } = setup();
    const closed = createServer();
    await new Promise<void>((listening) => closed.listen(0, "127.0.0.1", listening));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/api.json`;
    await new Promise((gone) => closed.close(gone));
    const failed = await runAwl(["models", "--refresh"], { env: { ...env, AWL_MODELS_URL: url } });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`${url} could not be fetched: connect ECONNREFUSED`);
    expect(failed.stderr).toContain("nothing was written; the bundled catalogue stays in use");
    expect(existsSync(file)).toBe(false);
  });
});

it("a models.dev file copied into the cache as it is (not awl's one-provider-per-line layout) is read whole", async () => {
  const { file, env } = setup();
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, API_JSON);
  const run = await costRun(env);
  expect([run.result.cost_usd, run.stderr]).toEqual([0.001415, ""]);
});

describe("a corrupt cached catalogue", () => {
  it.each([
    ["a partial write", '{"anthropic": {"id": "anthropic", "models": {"claude-opus-4-6": {"limit": {"cont', /is not valid JSON/],
    ["not JSON at all", "\u0000\u0000\u0000", /is not valid JSON/],
    ["the wrong shape", '[{"id": "anthropic"}]', /is not a models\.dev catalogue: the top level is an array, not an object of providers/],
    ["a model that is not an object", '{"anthropic": {"models": {"claude-opus-4-6": 5}}}', /is not a models\.dev catalogue: model "anthropic\.models\.claude-opus-4-6" is a number/],
  ])("%s: the bundled catalogue is used and the user is told once, naming the file", async (_what, text, reason) => {
    const { file, env } = setup("claude-sonnet-4-5");
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, text);
    const run = await costRun(env);
    expect(run.result.cost_usd).toBe(0.000849);
    expect(run.stderr).toMatch(reason);
    expect(run.stderr.split(file).length - 1).toBe(1);
    expect(run.stderr).toContain("using the bundled catalogue (awl models --refresh fetches it again)");
    const listed = await runAwl(["models", "--provider", "anthropic", "--json"], { env: { ...env, ANTHROPIC_API_KEY: "" } });
    expect(JSON.parse(listed.stdout)).toMatchObject({ catalogue_file: "the bundled catalogue (catalogue/models.json)" });
    expect(listed.stderr.split(file).length - 1).toBe(1);
  });
});

describe("awl models", () => {
  it("merges the server's own list: catalogue figures by name, the others listed without figures", async () => {
    const cache = tempDir("awl-cache-");
    server.enqueue(json({ object: "list", data: [{ id: "gpt-4o-2024-08-06", object: "model" }, { id: "my-local-model", object: "model" }] }));
    const run = await runAwl(["models", "--json"], { env: { XDG_CACHE_HOME: cache, AWL_PROVIDER: "openai", AWL_BASE_URL: `${server.url}/v1`, AWL_API_KEY: "sk-list", AWL_MODEL: "my-local-model" } });
    expect(run.code).toBe(0);
    expect(server.requests.at(-1)).toMatchObject({ url: "/v1/models", headers: { authorization: "Bearer sk-list" } });
    expect(JSON.parse(run.stdout)).toEqual({
      provider: "openai", catalogue_provider: null, catalogue_file: "the bundled catalogue (catalogue/models.json)", base_url: `${server.url}/v1`,
      server: { listed: true, count: 2 },
      models: [
        { id: "gpt-4o-2024-08-06", in_catalogue: false, offered: true, context_window: 128000, max_output_tokens: 16384, prices: { input: "2.5", output: "10", cache_read: "1.25" } },
        { id: "my-local-model", in_catalogue: false, offered: true },
      ],
    });
    server.enqueue(json({ object: "list", data: [{ id: "gpt-4o-2024-08-06" }, { id: "my-local-model" }] }));
    const text = await runAwl(["models"], { env: { XDG_CACHE_HOME: cache, AWL_PROVIDER: "openai", AWL_BASE_URL: `${server.url}/v1`, AWL_API_KEY: "sk-list", AWL_MODEL: "x" } });
    expect(text.stdout).toMatch(/^MODEL +CONTEXT +OUTPUT +IN \$\/M +OUT \$\/M +CACHE R +CACHE W +TOOLS +IMAGES +REASONING +SERVER$/m);
    expect(text.stdout).toMatch(/^gpt-4o-2024-08-06 +128k +16k +2\.5 +10 +1\.25 +- +\? +\? +\? +yes$/m);
    expect(text.stdout).toMatch(/^my-local-model +\? +\? +- +- +- +- +\? +\? +\? +yes$/m);
    expect(text.stdout).toContain("a model with no figures works: its cost shows as unknown");
  });

  it("without a key: the provider's catalogue models, the server not asked and why; an unknown provider is a usage error", async () => {
    const cache = tempDir("awl-cache-");
    const requests = server.requests.length;
    const run = await runAwl(["models", "--provider", "anthropic"], { env: { XDG_CACHE_HOME: cache } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('server: not asked: no API key for provider "anthropic"');
    expect(run.stdout).toMatch(/^claude-sonnet-4-5 +200k +64k +3 +15 +0\.3 +3\.75 +yes +yes +yes$/m);
    expect(server.requests.length).toBe(requests);
    const deepseek = JSON.parse((await runAwl(["models", "--provider", "deepseek", "--json"], { env: { XDG_CACHE_HOME: cache } })).stdout);
    expect(deepseek.models.map((m: { id: string }) => m.id)).toEqual(["deepseek-chat", "deepseek-reasoner"]);
    const bad = await runAwl(["models", "--provider", "nowhere"], { env: { XDG_CACHE_HOME: cache } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/"nowhere" is neither one of awl's providers \(openai, openai-responses, gemini, anthropic, bedrock, google-vertex, google-vertex-anthropic, copilot, chatgpt\) nor a provider of the catalogue \(anthropic, deepseek, google, mistral, openai\)/);
  });
});
