import { describe, expect, it } from "vitest";
import { resolveSettings, type SettingsSources } from "../../src/config/settings.js";

const resolve = (sources: Partial<SettingsSources>) => resolveSettings({ env: {}, flags: {}, ...sources });

function ok(sources: Partial<SettingsSources>) {
  const result = resolve(sources);
  if (!result.ok) throw new Error(`expected settings, got: ${result.error.message}`);
  return result.value;
}

function error(sources: Partial<SettingsSources>) {
  const result = resolve(sources);
  if (result.ok) throw new Error("expected a config error");
  return result.error;
}

describe("resolveSettings", () => {
  it("reads the AWL_ variables with OpenAI defaults", () => {
    const s = ok({ env: { AWL_API_KEY: "k1", AWL_MODEL: "m1" } });
    expect(s.provider).toEqual({ provider: "openai", model: "m1", baseUrl: "https://api.openai.com/v1", apiKey: "k1", maxRetries: 3, stallTimeoutMs: 90000, firstByteTimeoutMs: 30000 });
    expect(s.maxSteps).toBe(50);
  });

  it("falls back to the vendor's key variable for each provider", () => {
    expect(ok({ env: { OPENAI_API_KEY: "o", ANTHROPIC_API_KEY: "a", AWL_MODEL: "m" } }).provider.apiKey).toBe("o");
    const anthropic = ok({ env: { AWL_PROVIDER: "anthropic", OPENAI_API_KEY: "o", ANTHROPIC_API_KEY: "a", AWL_MODEL: "m" } }).provider;
    expect(anthropic.apiKey).toBe("a");
    expect(anthropic.baseUrl).toBe("https://api.anthropic.com");
    expect(ok({ env: { AWL_API_KEY: "awl", OPENAI_API_KEY: "o", AWL_MODEL: "m" } }).provider.apiKey).toBe("awl");
  });

  it("passes a provider profile's headers to that provider only", () => {
    const file = { providers: { openai: { headers: { "X-Title": "mine" } } } };
    expect(ok({ env: { AWL_API_KEY: "k", AWL_MODEL: "m" }, file }).provider.headers).toEqual({ "X-Title": "mine" });
    expect(ok({ env: { ANTHROPIC_API_KEY: "a", AWL_MODEL: "m" }, file, flags: { provider: "anthropic" } }).provider.headers).toBeUndefined();
  });

  it("--provider anthropic with only AWL_API_KEY set (AWL_PROVIDER unset) does not use it: AWL_API_KEY is openai's", () => {
    const result = resolve({ env: { AWL_API_KEY: "k", AWL_MODEL: "m" }, flags: { provider: "anthropic" } });
    expect(!result.ok && result.error.message).toBe('no API key for provider "anthropic"');
    expect(!result.ok && result.error.hint).toContain("AWL_API_KEY is for openai");
  });

  it("ranks environment < config file < flags", () => {
    const env = { AWL_PROVIDER: "anthropic", AWL_MODEL: "env-model", AWL_BASE_URL: "http://env:1", AWL_API_KEY: "env-key" };
    const file = { provider: "openai", model: "file-model", base_url: "http://file:2/", api_key: "file-key", max_retries: 5 };
    expect(ok({ env }).provider).toMatchObject({ provider: "anthropic", model: "env-model", baseUrl: "http://env:1", apiKey: "env-key" });
    expect(ok({ env, file }).provider).toMatchObject({ provider: "openai", model: "file-model", baseUrl: "http://file:2", apiKey: "file-key", maxRetries: 5 });
    const flags = { provider: "anthropic", model: "flag-model", baseUrl: "http://flag:3", maxRetries: "0" };
    // The file's key is for the file's provider (openai); the flags switch back to anthropic, AWL_PROVIDER's.
    expect(ok({ env, file, flags }).provider).toMatchObject({ provider: "anthropic", model: "flag-model", baseUrl: "http://flag:3", apiKey: "env-key", maxRetries: 0 });
  });

  it("gives AWL_API_KEY and AWL_BASE_URL only to the provider AWL_PROVIDER names (default openai)", () => {
    const env = { AWL_API_KEY: "openai-key", AWL_BASE_URL: "http://openai.local/v1", ANTHROPIC_API_KEY: "ant-key", AWL_MODEL: "m" };
    const switched = ok({ env, flags: { provider: "anthropic" } });
    expect(switched.provider).toMatchObject({ provider: "anthropic", apiKey: "ant-key", baseUrl: "https://api.anthropic.com" });
    expect(switched.keySource).toBe("ANTHROPIC_API_KEY");
    expect(ok({ env }).provider).toMatchObject({ provider: "openai", apiKey: "openai-key", baseUrl: "http://openai.local/v1" });
    expect(ok({ env }).keySource).toBe("AWL_API_KEY");
    // The same for a choice made with /model, above the flags: --base-url stays with the flags' provider.
    const chosen = ok({ env, flags: { baseUrl: "http://flag.local/v1" }, choice: { provider: "anthropic", model: "claude-x" } });
    expect(chosen.provider).toMatchObject({ provider: "anthropic", model: "claude-x", apiKey: "ant-key", baseUrl: "https://api.anthropic.com" });
    const home = ok({ env: { ...env, AWL_PROVIDER: "anthropic" } });
    expect(home.provider).toMatchObject({ provider: "anthropic", apiKey: "openai-key", baseUrl: "http://openai.local/v1" });
  });

  it("gives AWL_MODEL only to the provider AWL_PROVIDER names; others take providers.NAME.model", () => {
    const env = { AWL_PROVIDER: "openai", AWL_MODEL: "gpt-4o", OPENAI_API_KEY: "o", ANTHROPIC_API_KEY: "a" };
    expect(ok({ env }).provider.model).toBe("gpt-4o");
    const e = error({ env, flags: { provider: "anthropic" }, filePath: "/x/config.json" });
    expect(e.message).toBe('no model chosen for provider "anthropic"');
    expect(e.hint).toBe(
      'pass --model NAME (e.g. --model claude-sonnet-4-5) or set "providers.anthropic.model" in /x/config.json (AWL_MODEL is for openai, the provider AWL_PROVIDER names)',
    );
    const file = { providers: { anthropic: { model: "claude-file" } } };
    const fromFile = ok({ env, file, filePath: "/x/config.json", flags: { provider: "anthropic" } });
    expect(fromFile.provider).toMatchObject({ provider: "anthropic", model: "claude-file", apiKey: "a" });
    expect(fromFile.modelSource).toBe('"providers.anthropic.model" in /x/config.json');
    // --model and /model are for the provider they come with.
    expect(ok({ env, file, flags: { provider: "anthropic", model: "claude-flag" } }).provider.model).toBe("claude-flag");
    expect(ok({ env, choice: { provider: "anthropic", model: "claude-chosen" } }).provider.model).toBe("claude-chosen");
    // The file's entry for the home provider beats AWL_MODEL (the file ranks above the environment).
    expect(ok({ env, file: { providers: { openai: { model: "gpt-file" } } } }).provider.model).toBe("gpt-file");
  });

  it("gives the file's model to the file's provider, else AWL_PROVIDER's", () => {
    const env = { OPENAI_API_KEY: "o", ANTHROPIC_API_KEY: "a" };
    const file = { provider: "openai", model: "gpt-file" };
    expect(ok({ env, file }).provider.model).toBe("gpt-file");
    const e = error({ env, file, filePath: "/x/config.json", flags: { provider: "anthropic" } });
    expect(e.hint).toBe('set AWL_MODEL or pass --model NAME (e.g. --model claude-sonnet-4-5), or set "providers.anthropic.model" in /x/config.json ("model" in /x/config.json is for openai)');
    const home = { ...env, AWL_PROVIDER: "openai" };
    expect(error({ env: home, file: { model: "gpt-file" }, flags: { provider: "anthropic" } }).message).toBe('no model chosen for provider "anthropic"');
    expect(ok({ env: { ...env, AWL_PROVIDER: "anthropic" }, file: { model: "claude-file" } }).provider.model).toBe("claude-file");
  });

  it("without AWL_PROVIDER (one provider in use), AWL_MODEL and the file's model go to the provider chosen", () => {
    const env = { AWL_MODEL: "claude-env", ANTHROPIC_API_KEY: "a" };
    expect(ok({ env, flags: { provider: "anthropic" } }).provider).toMatchObject({ provider: "anthropic", model: "claude-env" });
    expect(ok({ env: { ANTHROPIC_API_KEY: "a" }, file: { model: "claude-file" }, flags: { provider: "anthropic" } }).provider.model).toBe("claude-file");
    expect(ok({ env, flags: { provider: "anthropic" } }).modelSource).toBe("AWL_MODEL");
  });

  it("says which variable to set when the provider switched to has no key", () => {
    const e = error({ env: { AWL_API_KEY: "openai-key", AWL_MODEL: "m" }, choice: { provider: "anthropic", model: "claude-x" } });
    expect(e.message).toBe('no API key for provider "anthropic"');
    expect(e.hint).toContain("set ANTHROPIC_API_KEY (e.g. export ANTHROPIC_API_KEY=...) (AWL_API_KEY is for openai, the provider AWL_PROVIDER names)");
    expect(JSON.stringify(e)).not.toContain("openai-key");
  });

  it("takes a provider's base URL and key variable from the file's providers entry", () => {
    const file = { providers: { anthropic: { base_url: "http://proxy.local", api_key_env: "WORK_ANTHROPIC_KEY" } } };
    const env = { AWL_API_KEY: "openai-key", ANTHROPIC_API_KEY: "personal", WORK_ANTHROPIC_KEY: "work", AWL_MODEL: "m" };
    const s = ok({ env, file, filePath: "/x/config.json", flags: { provider: "anthropic" } });
    expect(s.provider).toMatchObject({ apiKey: "work", baseUrl: "http://proxy.local" });
    expect(s.keySource).toBe("WORK_ANTHROPIC_KEY");
    const missing = error({ env: { AWL_MODEL: "m" }, file: { providers: { anthropic: { api_key_env: "WORK_ANTHROPIC_KEY" } } }, flags: { provider: "anthropic" } });
    expect(missing.hint).toContain("set WORK_ANTHROPIC_KEY");
    expect(error({ env, file: { providers: { cohere: {} } }, filePath: "/x/config.json" }).message).toBe('unknown provider "cohere" under "providers" in /x/config.json');
  });

  it("parses the number flags", () => {
    const flags = { maxRetries: "0", stallTimeout: "1500", maxSteps: "7", maxTokens: "4096", thinkingBudget: "2048" };
    const s = ok({ env: { AWL_API_KEY: "k", AWL_MODEL: "m" }, flags });
    expect(s.provider).toMatchObject({ maxRetries: 0, stallTimeoutMs: 1500, maxTokens: 4096, thinking: 2048 });
    expect(s.maxSteps).toBe(7);
  });

  it("refuses a thinking budget under Anthropic's minimum, from the flag or the file", () => {
    const env = { AWL_API_KEY: "k", AWL_MODEL: "m", AWL_PROVIDER: "anthropic" };
    expect(error({ env, flags: { thinkingBudget: "1023" } }).message).toBe("the thinking budget 1023 (from --thinking-budget) is below Anthropic's minimum of 1024 tokens");
    expect(error({ env, flags: { thinking: "1023" } }).message).toBe("the thinking budget 1023 (from --thinking) is below Anthropic's minimum of 1024 tokens");
    expect(error({ env, file: { thinking_budget: 100 }, filePath: "/x/config.json" }).message).toContain('(from "thinking_budget" in /x/config.json)');
    expect(error({ env, file: { thinking: 100 }, filePath: "/x/config.json" }).message).toContain('(from "thinking" in /x/config.json)');
    expect(ok({ env, flags: { thinkingBudget: "1024" } }).provider.thinking).toBe(1024);
  });

  it("reads the thinking setting: off, adaptive or a budget, the flag over the file; nothing when unset", () => {
    const env = { ANTHROPIC_API_KEY: "k", AWL_MODEL: "claude-opus-4-6", AWL_PROVIDER: "anthropic" };
    expect(ok({ env, flags: { thinking: "adaptive" } }).provider.thinking).toBe("adaptive");
    expect(ok({ env, flags: { thinking: " OFF " } }).provider.thinking).toBe("off");
    expect(ok({ env, flags: { thinking: "8000" } }).provider.thinking).toBe(8000);
    expect(ok({ env, file: { thinking: "adaptive" } }).provider.thinking).toBe("adaptive");
    expect(ok({ env, file: { thinking: 8000 }, flags: { thinking: "off" } }).provider.thinking).toBe("off");
    expect(ok({ env, file: { thinking_budget: 8000 } }).provider.thinking).toBe(8000);
    expect("thinking" in ok({ env }).provider).toBe(false);
    expect(error({ env, flags: { thinking: "lots" } })).toEqual({
      message: '--thinking expects off, adaptive or a whole number of tokens, got "lots"',
      hint: "e.g. adaptive, off or 8000 (a budget is at least 1024)",
    });
    expect(error({ env, flags: { thinkingBudget: "adaptive" } }).message).toBe('--thinking-budget expects a whole number of tokens, got "adaptive"');
    expect(error({ env, flags: { thinking: "adaptive", thinkingBudget: "2048" } })).toEqual({
      message: "both --thinking and --thinking-budget are set",
      hint: "keep --thinking only: it takes a budget too",
    });
    expect(error({ env, file: { thinking: "off", thinking_budget: 2048 }, filePath: "/x/config.json" }).message).toBe(
      'both "thinking" in /x/config.json and "thinking_budget" in /x/config.json are set',
    );
  });

  it("refuses an Anthropic thinking budget that is not below max tokens, naming both values and their sources", () => {
    const env = { ANTHROPIC_API_KEY: "k", AWL_MODEL: "claude-sonnet-4-5", AWL_PROVIDER: "anthropic" };
    expect(error({ env, flags: { thinking: "4000", maxTokens: "2000" } })).toEqual({
      message: "the thinking budget 4000 (from --thinking) is not below max tokens 2000 (from --max-tokens); Anthropic requires max_tokens above the budget",
      hint: "raise max tokens above the budget (e.g. --max-tokens 8096, the budget plus room for the answer) or lower the budget",
    });
    expect(error({ env, flags: { thinking: "32000" } }).message).toBe(
      "the thinking budget 32000 (from --thinking) is not below max tokens 32000 (awl's default for claude-sonnet-4-5); Anthropic requires max_tokens above the budget",
    );
    expect(error({ env, file: { thinking_budget: 5000, max_tokens: 5000 }, filePath: "/x/config.json" }).message).toBe(
      'the thinking budget 5000 (from "thinking_budget" in /x/config.json) is not below max tokens 5000 (from "max_tokens" in /x/config.json); Anthropic requires max_tokens above the budget',
    );
    expect(ok({ env, flags: { thinking: "4000", maxTokens: "4001" } }).provider).toMatchObject({ thinking: 4000, maxTokens: 4001 });
    // Adaptive thinking has no budget to fit; other providers ignore the setting.
    expect(ok({ env, flags: { thinking: "adaptive", maxTokens: "1000" } }).provider.thinking).toBe("adaptive");
    expect(ok({ env: { OPENAI_API_KEY: "k", AWL_MODEL: "m" }, flags: { thinking: "4000", maxTokens: "2000" } }).provider.thinking).toBe(4000);
  });

  it("switches interleaved thinking off with the flag or the file", () => {
    const env = { ANTHROPIC_API_KEY: "k", AWL_MODEL: "claude-sonnet-4-5", AWL_PROVIDER: "anthropic" };
    expect("interleavedThinking" in ok({ env }).provider).toBe(false);
    expect(ok({ env, flags: { noInterleavedThinking: true } }).provider.interleavedThinking).toBe(false);
    expect(ok({ env, file: { interleaved_thinking: false } }).provider.interleavedThinking).toBe(false);
    expect(ok({ env, file: { interleaved_thinking: true }, flags: { noInterleavedThinking: true } }).provider.interleavedThinking).toBe(false);
  });

  it("names the flag of a bad number", () => {
    const env = { AWL_API_KEY: "k", AWL_MODEL: "m" };
    expect(error({ env, flags: { maxRetries: "three" } }).message).toBe('--max-retries expects a whole number ≥ 0, got "three"');
    expect(error({ env, flags: { maxSteps: "0" } }).message).toContain("--max-steps expects a whole number ≥ 1");
    expect(error({ env, flags: { stallTimeout: "-5" } }).message).toContain("--stall-timeout");
    expect(error({ env, flags: { maxTokens: "1.5" } }).message).toContain("--max-tokens");
  });

  it("says which variable to set for a missing key, and never includes a key", () => {
    const e = error({ env: { AWL_MODEL: "m" } });
    expect(e.message).toBe('no API key for provider "openai"');
    expect(e.hint).toContain("AWL_API_KEY or OPENAI_API_KEY");
    expect(e.hint).toContain("--provider replay");
    const a = error({ env: { AWL_PROVIDER: "anthropic", AWL_MODEL: "m", OPENAI_API_KEY: "sk-secret" } });
    expect(a.hint).toContain("ANTHROPIC_API_KEY");
    expect(JSON.stringify(a)).not.toContain("sk-secret");
  });

  it("says to set AWL_MODEL or --model for a missing model", () => {
    const e = error({ env: { AWL_API_KEY: "k" } });
    expect(e.message).toBe('no model chosen for provider "openai"');
    expect(e.hint).toBe('set AWL_MODEL or pass --model NAME (e.g. --model gpt-4o-mini), or set "providers.openai.model" in the config file');
    expect(error({}).message).toBe('no API key and no model for provider "openai"');
  });

  it("needs no key for a local OpenAI-compatible server", () => {
    const s = ok({ env: { AWL_BASE_URL: "http://localhost:11434/v1", AWL_MODEL: "llama3" } });
    expect(s.provider.apiKey).toBeUndefined();
  });

  it("rejects an unknown provider and a bad URL, naming where they came from", () => {
    expect(error({ env: { AWL_PROVIDER: "cohere" } }).message).toBe('unknown provider "cohere" (from AWL_PROVIDER)');
    const e = error({ env: { AWL_MODEL: "m", AWL_API_KEY: "k" }, file: { base_url: "localhost:8080" }, filePath: "/x/config.json" });
    expect(e.message).toContain('"base_url" in /x/config.json');
    expect(error({ env: { AWL_MODEL: "m" }, flags: { baseUrl: "not a url" } }).message).toContain("(from --base-url) is not a URL");
  });

  it("configures the replay provider without key or model", () => {
    const s = ok({ flags: { provider: "replay", replay: "/tmp/s.jsonl" } });
    expect(s.provider).toMatchObject({ provider: "replay", model: "replay", replayFile: "/tmp/s.jsonl" });
    expect(error({ flags: { provider: "replay" } }).hint).toContain("--replay FILE");
  });

  it("passes compat settings from the file", () => {
    const s = ok({ env: { AWL_API_KEY: "k", AWL_MODEL: "m" }, file: { compat: { max_tokens_field: "max_completion_tokens" } } });
    expect(s.provider.compat).toEqual({ max_tokens_field: "max_completion_tokens" });
  });
});
