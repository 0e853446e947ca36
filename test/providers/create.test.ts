import { describe, expect, it } from "vitest";
import { createProvider, PROVIDER_NAMES } from "../../src/providers/create.js";
import { ProviderConfigError } from "../../src/providers/errors.js";
import type { ProviderSettings } from "../../src/providers/types.js";

const base: ProviderSettings = { provider: "openai", model: "m", baseUrl: "http://127.0.0.1:1/v1", maxRetries: 0, stallTimeoutMs: 1000 };

describe("createProvider", () => {
  it("builds the OpenAI-compatible provider", async () => {
    const provider = await createProvider(base);
    expect(provider).toMatchObject({ name: "openai", model: "m" });
  });

  it("rejects an unknown provider with a config error listing the valid names", async () => {
    const error = await createProvider({ ...base, provider: "cohere" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderConfigError);
    expect((error as ProviderConfigError).error.kind).toBe("config");
    expect((error as ProviderConfigError).message).toBe(`unknown provider "cohere": use one of ${PROVIDER_NAMES.map((n) => `"${n}"`).join(", ")}`);
    expect(PROVIDER_NAMES).toContain("openai");
  });

  it("does not accept inherited object keys as provider names", async () => {
    await expect(createProvider({ ...base, provider: "toString" })).rejects.toBeInstanceOf(ProviderConfigError);
  });

  it("rejects an unknown or invalid compat setting", async () => {
    await expect(createProvider({ ...base, compat: { sendReasoning: true } })).rejects.toThrow(/unknown OpenAI compatibility setting "sendReasoning"/);
    await expect(createProvider({ ...base, compat: { maxTokensField: "max" } })).rejects.toThrow(/expected one of "max_tokens", "max_completion_tokens"/);
  });

  it("speaks the Responses API to OpenAI's own endpoint, Chat Completions to any other and to a base URL naming /chat/completions", async () => {
    expect(await createProvider({ ...base, baseUrl: "https://api.openai.com/v1" })).toMatchObject({ name: "openai-responses" });
    expect(await createProvider({ ...base, baseUrl: "https://api.openai.com/v1/chat/completions" })).toMatchObject({ name: "openai" });
    expect(await createProvider({ ...base, baseUrl: "https://openrouter.ai/api/v1" })).toMatchObject({ name: "openai" });
    expect(await createProvider({ ...base, provider: "openai-responses" })).toMatchObject({ name: "openai-responses" });
  });
});
