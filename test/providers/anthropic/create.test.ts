import { describe, expect, it } from "vitest";
import { Conversation } from "../../../src/model/conversation.js";
import { createProvider, PROVIDER_NAMES } from "../../../src/providers/create.js";
import type { ProviderSettings } from "../../../src/providers/types.js";

const settings: ProviderSettings = { provider: "anthropic", model: "claude-sonnet-4-5", baseUrl: "http://127.0.0.1:1", maxRetries: 0, stallTimeoutMs: 1000 };

describe("createProvider: anthropic", () => {
  it("builds the Anthropic provider", async () => {
    expect(PROVIDER_NAMES).toContain("anthropic");
    expect(await createProvider(settings)).toMatchObject({ name: "anthropic", model: "claude-sonnet-4-5" });
  });

  it("refuses a tool whose schema is not a JSON object before sending anything", async () => {
    const provider = await createProvider(settings);
    const conversation = new Conversation([{ role: "user", content: [{ type: "text", text: "hi" }] }]);
    const result = await provider.streamStep(conversation, {}, { tools: [{ name: "bad", description: "", schema: "[1]" }] });
    expect(result).toMatchObject({ ok: false, error: { kind: "bad_request", message: expect.stringContaining('"bad"') } });
  });
});
