/** The model catalogue, exact costs, config overrides and the server's own limits (issue 14 items 1–2). */
import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { askServerLimits, perTokenToPerMillion } from "../../src/providers/model-limits.js";
import { catalogueEntry, entryOf, resolveModelInfo } from "../../src/usage/catalogue.js";
import { modelCatalogue } from "../../src/usage/catalogue-store.js";
import { LOCAL_FAMILIES } from "../../src/usage/local-families.js";
import { bucketsCost, callCost, formatUsd, usdText } from "../../src/usage/cost.js";
import { costReport, UsageMeter } from "../../src/usage/meter.js";
import { ModelInfoResolver } from "../../src/usage/model-info.js";
import { parseModelOverrides } from "../../src/usage/model-overrides.js";
import { LONG_CONTEXT_TOKENS } from "../../src/session/summary.js";

const usd = (cost: ReturnType<typeof callCost>): string => (cost.ok ? usdText(cost.pico) : `unknown: ${cost.reason}`);

describe("the catalogue", () => {
  it.each([
    ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5"],
    ["anthropic/claude-sonnet-4.5", "claude-sonnet-4-5"],
    ["claude-3-5-haiku-latest", "claude-3-5-haiku"],
    ["gpt-4o-mini-2024-07-18", "gpt-4o-mini"],
    ["gpt-4o", "gpt-4o"],
    ["gpt-5-mini", "gpt-5-mini"],
    ["deepseek-chat", "deepseek-chat"],
    ["gemini-2.5-flash-lite", "gemini-2.5-flash-lite"],
    ["mistral-large-latest", "mistral-large"],
    ["qwen2.5-coder:7b", "qwen2.5-coder"],
    ["Qwen/Qwen2.5-Coder-7B-Instruct", "qwen2.5-coder"],
    ["llama3.1:8b", "llama3.1"],
    ["us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5"],
    ["anthropic.claude-3-5-haiku-20241022-v1:0", "claude-3-5-haiku"],
  ])("%s is %s", (name, key) => {
    expect(catalogueEntry(name)?.key).toBe(key);
  });

  it("a priced model's variant with another price is not taken for it", () => {
    expect(catalogueEntry("o3-pro")).toBeUndefined();
    expect(catalogueEntry("gpt-5-pro")).toBeUndefined();
    expect(resolveModelInfo("o3-pro")).toMatchObject({ source: "default", context_window: 128000, note: expect.stringContaining('models."o3-pro".context_window') });
  });

  const bundled = Object.values(modelCatalogue().bundled).flatMap((provider) => Object.values(provider.models));

  it("every long-context tier starts where session listings bucket calls", () => {
    for (const model of bundled) if (model.long_context) expect(model.long_context.above_input_tokens).toBe(LONG_CONTEXT_TOKENS);
  });

  it("every bundled model has a window, an output limit, input and output prices as exact decimals, and capabilities", () => {
    for (const model of bundled) {
      expect(entryOf(model), model.id).toMatchObject({ context_window: expect.any(Number), max_output_tokens: expect.any(Number) });
      for (const price of Object.values({ ...model.prices, ...model.long_context })) if (typeof price === "string") expect(price, model.id).toMatch(/^\d+(\.\d{1,6})?$/);
      expect(model.prices, model.id).toMatchObject({ input: expect.any(String), output: expect.any(String) });
      expect([typeof model.tools, typeof model.images, typeof model.reasoning], model.id).toEqual(["boolean", "boolean", "boolean"]);
    }
  });

  it("local families have no price, and match a name with any suffix", () => {
    for (const key of Object.keys(LOCAL_FAMILIES)) {
      const entry = catalogueEntry(`${key}-q4_k_m.gguf`)?.entry;
      expect([entry?.local, entry?.prices], key).toEqual([true, undefined]);
    }
  });
});

describe("cost, against hand-computed values", () => {
  const info = (model: string) => resolveModelInfo(model);

  it("OpenAI: cached tokens are part of input_tokens and priced at the cache rate", () => {
    // gpt-4o: 600 × $2.50 + 400 × $1.25 + 500 × $10 per million = $0.007
    expect(usd(callCost({ input_tokens: 1000, output_tokens: 500, cache_read_input_tokens: 400 }, info("gpt-4o"), "openai"))).toBe("0.007");
  });

  it("Anthropic: input, cache reads and cache writes are priced apart", () => {
    // claude-sonnet-4-5: 1000 × 3 + 2000 × 0.30 + 3000 × 3.75 + 500 × 15 = 22 350 per million
    const usage = { input_tokens: 1000, output_tokens: 500, cache_read_input_tokens: 2000, cache_creation_input_tokens: 3000 };
    expect(usd(callCost(usage, info("claude-sonnet-4-5"), "anthropic"))).toBe("0.02235");
  });

  it("the >200K tier prices the whole call when its input (the cache included) passes 200 000 tokens", () => {
    // 150 000 + 60 000 cache reads = 210 000 input: 150 000 × 6 + 60 000 × 0.60 + 1000 × 22.50 = 958 500 per million
    const usage = { input_tokens: 150_000, output_tokens: 1000, cache_read_input_tokens: 60_000 };
    expect(usd(callCost(usage, info("claude-sonnet-4-5"), "anthropic"))).toBe("0.9585");
    // 200 000 exactly is not above: 150 000 × 3 + 50 000 × 0.30 + 1000 × 15 = 480 000 per million
    expect(usd(callCost({ ...usage, cache_read_input_tokens: 50_000 }, info("claude-sonnet-4-5"), "anthropic"))).toBe("0.48");
    // Gemini 2.5 Pro's tier, OpenAI convention: 250 000 input × 2.50 + 100 × 15
    expect(usd(callCost({ input_tokens: 250_000, output_tokens: 100 }, info("gemini-2.5-pro"), "openai"))).toBe("0.6265");
  });

  it("sums never drift: ten calls of $0.0000006 are $0.000006", () => {
    const meter = new UsageMeter("openai", info("gpt-4o-mini"));
    for (let i = 0; i < 10; i++) meter.record({ input_tokens: 0, output_tokens: 1 });
    expect(meter.snapshot().session.cost_usd).toBe("0.000006");
  });

  it("an unknown price is unknown, never a guess", () => {
    expect(usd(callCost({ input_tokens: 10, output_tokens: 1 }, info("my-own-model"), "openai"))).toBe('unknown: the input price of "my-own-model" is not known');
    // Mistral publishes no cache price: only cached tokens make it unknown.
    expect(usd(callCost({ input_tokens: 10, output_tokens: 0 }, info("mistral-small-latest"), "openai"))).toBe("0.000001");
    expect(usd(callCost({ input_tokens: 10, output_tokens: 0, cache_read_input_tokens: 5 }, info("mistral-small-latest"), "openai"))).toMatch(/cache read price/);
  });

  it("usage that does not add up has an unknown cost and a note; the meter keeps counting", () => {
    const meter = new UsageMeter("openai", info("gpt-4o"));
    meter.record({ input_tokens: 300, output_tokens: 10, cache_read_input_tokens: 500 });
    const snapshot = meter.snapshot();
    expect(snapshot.session.cost_usd).toBeUndefined();
    expect(snapshot.session.unknown_reason).toBe("the usage reported does not add up (500 cached tokens out of 300 input tokens)");
    expect(snapshot.note).toContain("does not add up");
    expect(snapshot.session.usage).toEqual({ input_tokens: 300, output_tokens: 10, cache_read_input_tokens: 500 });
    expect(usd(callCost({ input_tokens: -1, output_tokens: 0 }, info("gpt-4o"), "openai"))).toMatch(/input_tokens is -1/);
  });

  it("per turn and per session, resumed calls included; context use as a % of the window", () => {
    const usage = new UsageMeter("anthropic", info("claude-haiku-4-5"));
    usage.seed([{ provider: "anthropic", model: "claude-haiku-4-5", usage: { input_tokens: 1000, output_tokens: 100 } }], (c) => info(c.model));
    usage.beginTurn();
    usage.record({ input_tokens: 2000, output_tokens: 200, cache_read_input_tokens: 18_000 });
    const s = usage.snapshot();
    // 1000 × 1 + 100 × 5 = 1500; 2000 × 1 + 200 × 5 + 18 000 × 0.10 = 4800 (per million)
    expect([s.turn.cost_usd, s.session.cost_usd]).toEqual(["0.0048", "0.0063"]);
    expect([s.context_tokens, s.context_window, s.context_percent]).toEqual([20_200, 200_000, 10.1]);
    expect(costReport(s)).toContain("session: $0.0063 · ↑3.0k ↓300 · cache read 18k · 2 calls");
    expect(formatUsd(0n)).toBe("$0.00");
  });

  it("a listing's buckets cost the same as the calls one by one", () => {
    const buckets = [
      { provider: "anthropic", model: "claude-sonnet-4-5", long_context: false, usage: { input_tokens: 1000, output_tokens: 500, cache_read_input_tokens: 2000, cache_creation_input_tokens: 3000 } },
      { provider: "anthropic", model: "claude-sonnet-4-5", long_context: true, usage: { input_tokens: 150_000, output_tokens: 1000, cache_read_input_tokens: 60_000 } },
    ];
    expect(bucketsCost(buckets, (m) => resolveModelInfo(m))).toEqual({ cost_usd: "0.98085" });
  });
});

describe("config overrides", () => {
  it("replace the catalogue's figures per model", () => {
    const parsed = parseModelOverrides({ "gpt-4o": { context_window: 64_000, prices: { input: "1", output: 2, cache_read: "0.5" } }, "my-model": { context_window: 32768 } }, "/c/config.json");
    if (!parsed.ok) throw new Error(parsed.error.message);
    expect(resolveModelInfo("gpt-4o-2024-08-06", parsed.value)).toMatchObject({ context_window: 128_000, source: "catalogue" });
    expect(resolveModelInfo("gpt-4o", parsed.value)).toMatchObject({ context_window: 64_000, source: "config", prices: { input: "1", output: "2", cache_read: "0.5" } });
    expect(resolveModelInfo("my-model", parsed.value)).toMatchObject({ context_window: 32768, source: "config" });
    expect(resolveModelInfo("my-model", parsed.value).note).toBeUndefined();
  });

  it.each([
    [{ "gpt-4o": { context_window: "big" } }, 'key "models" entry "gpt-4o.context_window" must be a whole number of tokens ≥ 1024, got "big"'],
    [{ "gpt-4o": { prices: { input: "1e-7" } } }, 'entry "gpt-4o.prices.input" must be USD per million tokens as a decimal with at most 6 decimals, like "0.15", got "1e-7"'],
    [{ "gpt-4o": { prices: { inptu: "1" } } }, 'entry "gpt-4o.prices.inptu" is not a price awl knows'],
    [{ "gpt-4o": { window: 1 } }, 'entry "gpt-4o.window" is not a field awl knows'],
    [{ "gpt-4o": 5 }, 'entry "gpt-4o" must be an object'],
    [[], 'key "models" must be an object'],
  ])("a wrong type is an error naming the file, model and field: %j", (value, message) => {
    const parsed = parseModelOverrides(value, "/c/config.json");
    expect(!parsed.ok && parsed.error.message).toContain(`the config file /c/config.json ${message.startsWith("key") ? "" : 'key "models" '}`.trim());
    expect(!parsed.ok && parsed.error.message).toContain(message);
  });
});

describe("an unknown model's window, asked from the server", () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

  async function serve(routes: Record<string, unknown>): Promise<{ url: string; paths: string[] }> {
    const paths: string[] = [];
    server = createServer((req, res) => {
      paths.push(`${req.method} ${req.url}`);
      const body = routes[req.url ?? ""];
      if (body === undefined) {
        res.writeHead(404).end("not found");
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
    await new Promise<void>((done) => server!.listen(0, "127.0.0.1", () => done()));
    const address = server.address();
    return { url: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`, paths };
  }

  const settings = (baseUrl: string, model = "local-model") => ({ provider: "openai", model, baseUrl, maxRetries: 0, stallTimeoutMs: 1000 });

  it("llama.cpp: /props n_ctx, the window the server runs with, over the family's trained one", async () => {
    const { url, paths } = await serve({
      "/props": { default_generation_settings: { n_ctx: 8192 } },
      "/v1/models": { data: [{ id: "qwen2.5-coder-7b-instruct-q4_k_m.gguf", meta: { n_ctx_train: 32768 } }] },
    });
    const resolver = new ModelInfoResolver(settings(`${url}/v1`, "qwen2.5-coder-7b-instruct-q4_k_m.gguf"));
    expect(resolver.current).toMatchObject({ context_window: 32768, source: "catalogue" });
    expect(await resolver.ensure()).toMatchObject({ context_window: 8192, source: "server" });
    expect(paths.sort()).toEqual(["GET /props", "GET /v1/models"]);
  });

  it("vLLM: /v1/models max_model_len", async () => {
    const { url } = await serve({ "/v1/models": { object: "list", data: [{ id: "meta-llama/Llama-3.1-8B-Instruct", max_model_len: 16384 }, { id: "other", max_model_len: 4096 }] } });
    expect(await askServerLimits(settings(`${url}/v1`, "meta-llama/Llama-3.1-8B-Instruct"))).toMatchObject({ context_window: 16384 });
  });

  it("OpenRouter-style /models: context_length, max completion tokens and per-token prices", async () => {
    const { url } = await serve({
      "/api/v1/models": { data: [{ id: "vendor/some-model", context_length: 262144, top_provider: { max_completion_tokens: 65536 }, pricing: { prompt: "0.0000025", completion: "0.00001", input_cache_read: "0.00000025" } }] },
    });
    const resolver = new ModelInfoResolver(settings(`${url}/api/v1`, "vendor/some-model"));
    const info = await resolver.ensure();
    expect(info).toMatchObject({ context_window: 262144, max_output_tokens: 65536, source: "server", prices: { input: "2.5", output: "10", cache_read: "0.25" } });
    expect(perTokenToPerMillion("-1")).toBeUndefined();
  });

  it("a server that tells nothing: the stated default and its note; a known model never asks", async () => {
    const { url, paths } = await serve({});
    const unknown = new ModelInfoResolver(settings(`${url}/v1`));
    expect(await unknown.ensure()).toMatchObject({ context_window: 128000, source: "default", note: expect.stringContaining("assuming 128000 tokens") });
    paths.length = 0;
    const known = new ModelInfoResolver(settings(`${url}/v1`, "gpt-4o"));
    expect(known.canAsk).toBe(false);
    expect(await known.ensure()).toMatchObject({ context_window: 128000, source: "catalogue" });
    expect(paths).toEqual([]);
  });
});
