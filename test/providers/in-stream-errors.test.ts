/**
 * Errors from real servers and gateways (issue 14 items 4–6): transient in-stream errors retried like a 5xx with
 * nothing half-streamed committed, the others not; one-line messages; hints from the kind and code; the
 * User-Agent and OpenRouter attribution headers.
 */
import { describe, expect, it } from "vitest";
import { describeProviderError, formatUserMessage } from "../../src/ui/error-text.js";
import type { AwlSettings } from "../../src/config/settings.js";
import { Conversation } from "../../src/model/conversation.js";
import { clientHeaders } from "../../src/providers/client-headers.js";
import { createProvider } from "../../src/providers/create.js";
import type { ProviderError } from "../../src/providers/errors.js";
import type { ProviderSettings, StepResult } from "../../src/providers/types.js";
import { awlVersion } from "../../src/version.js";
import { recordingReceiver } from "../support/recording-receiver.js";
import { sseData, sseEvents, sharedReplayServer } from "../support/replay-server.js";

const shared = sharedReplayServer();

const hello = () => new Conversation([{ role: "user", content: [{ type: "text", text: "hi" }] }]);

function settingsFor(provider: "openai" | "anthropic", overrides: Partial<ProviderSettings> = {}): ProviderSettings {
  return {
    provider,
    model: provider === "openai" ? "gpt-test" : "claude-sonnet-4-5",
    baseUrl: provider === "openai" ? `${shared.server.url}/v1` : shared.server.url,
    apiKey: "sk-test",
    maxRetries: 2,
    stallTimeoutMs: 5_000,
    ...overrides,
  };
}

async function step(provider: "openai" | "anthropic", overrides: Partial<ProviderSettings> = {}) {
  const p = await createProvider(settingsFor(provider, overrides));
  const receiver = recordingReceiver();
  const result: StepResult = await p.streamStep(hello(), receiver);
  return { result, receiver };
}

function errorOf(result: StepResult): ProviderError {
  if (result.ok) throw new Error("expected a failure");
  return result.error;
}

/** An OpenAI-compatible stream: a partial answer, then the error chunk. */
const openaiError = (error: unknown) =>
  sseData([{ choices: [{ index: 0, delta: { role: "assistant", content: "Partial" } }] }, { error, choices: [] }, "[DONE]"]);
const openaiHello = sseData([{ choices: [{ index: 0, delta: { content: "Hello" }, finish_reason: "stop" }] }, "[DONE]"]);

const anthropicStart = { event: "message_start", data: { type: "message_start", message: { usage: { input_tokens: 5, output_tokens: 1 } } } };
const anthropicPartial = [
  anthropicStart,
  { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
  { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Partial" } } },
];
const anthropicError = (type: string, message: string) =>
  sseEvents([...anthropicPartial, { event: "error", data: { type: "error", error: { type, message } } }]);
const anthropicHello = sseEvents([
  anthropicStart,
  { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
  { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hello" } } },
  { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
  { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 2 } } },
  { event: "message_stop", data: { type: "message_stop" } },
]);

describe("transient errors inside a 200 stream are retried, nothing half-streamed committed", () => {
  it.each([
    ["OpenAI server_error", { message: "The server had an error while processing your request.", type: "server_error", code: null }, "server"],
    ["OpenRouter chunk with code 502", { code: 502, message: "Upstream provider returned an error: overloaded" }, "server"],
    ["OpenRouter chunk with code 429", { code: 429, message: "Rate limit exceeded upstream" }, "rate_limit"],
    ["OpenRouter 'Provider disconnected'", { message: "Provider disconnected" }, "server"],
    ["LiteLLM code \"500\"", { message: "litellm.APIConnectionError: boom", type: null, param: null, code: "500" }, "server"],
  ])("%s", async (_name, error, kind) => {
    shared.server.enqueue({ body: openaiError(error) }, { body: openaiHello });
    const { result, receiver } = await step("openai");
    expect(result).toMatchObject({ ok: true, message: { content: [{ type: "text", text: "Hello" }] } });
    expect(receiver.retries.map((r) => r.error.kind)).toEqual([kind]);
    // The retry voids "Partial": the receiver was told, and the next attempt starts with a new message.
    const retryAt = receiver.calls.findIndex((c) => c.startsWith("retry"));
    expect(receiver.calls.slice(retryAt + 1)[0]).toBe("start assistant");
    expect(shared.server.requests).toHaveLength(2);
  });

  it.each([
    ["api_error", "Internal server error", "server"],
    ["overloaded_error", "Overloaded", "overloaded"],
    ["rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit", "rate_limit"],
  ])("Anthropic %s", async (type, message, kind) => {
    shared.server.enqueue({ body: anthropicError(type, message) }, { body: anthropicHello });
    const { result, receiver } = await step("anthropic");
    expect(result).toMatchObject({ ok: true, message: { content: [{ type: "text", text: "Hello" }] } });
    expect(receiver.retries.map((r) => [r.error.kind, r.error.code])).toEqual([[kind, type]]);
    expect(shared.server.requests).toHaveLength(2);
  });
});

describe("errors that are not transient are not retried", () => {
  it.each([
    ["invalid request", { message: "Invalid value for 'tools'", type: "invalid_request_error", code: null }, "bad_request"],
    ["content policy", { message: "flagged by the content filter", type: "invalid_request_error", code: "content_policy_violation" }, "bad_request"],
    ["context length", { message: "This model's maximum context length is 8192 tokens.", type: "invalid_request_error", code: "context_length_exceeded" }, "context_length"],
    ["an error awl does not know", { message: "something odd" }, "stream_error"],
  ])("OpenAI-compatible: %s", async (_name, error, kind) => {
    shared.server.enqueue({ body: openaiError(error) });
    const { result } = await step("openai");
    expect(errorOf(result)).toMatchObject({ kind, retryable: false });
    expect(shared.server.requests).toHaveLength(1);
  });

  it.each([
    ["invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum", "context_length"],
    ["invalid_request_error", "messages.1: tool_use ids must be unique", "bad_request"],
  ])("Anthropic %s: %s", async (type, message, kind) => {
    shared.server.enqueue({ body: anthropicError(type, message) });
    const { result } = await step("anthropic");
    expect(errorOf(result)).toMatchObject({ kind, retryable: false, code: type });
    expect(shared.server.requests).toHaveLength(1);
  });
});

describe("errors from gateways (LiteLLM 1.80.7)", () => {
  const traceback = [
    "litellm.InternalServerError: AnthropicException - Traceback (most recent call last):",
    ...Array.from({ length: 20 }, (_, i) => `  File "/usr/lib/python3.11/site-packages/litellm/llms/x.py", line ${i + 10}, in handler`),
    "Received Model Group=claude-sonnet",
  ].join("\n");

  it("a multi-line stream error is printed as one line and its hint", async () => {
    shared.server.enqueue({ body: openaiError({ message: traceback, type: null, param: null, code: "500" }) });
    const { result } = await step("openai", { maxRetries: 0 });
    const text = formatUserMessage(describeProviderError(errorOf(result), awlSettings()));
    const lines = text.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^awl: .*litellm\.InternalServerError: AnthropicException - Traceback \(most recent call last\): File/);
    expect(lines[0]!.length).toBeLessThan(500);
    expect(lines[1]).toMatch(/^ {2}→ /);
  });

  it("a context-window 400 that names the Model Group gets the context hint, not the model-name hint", async () => {
    shared.server.enqueue({
      status: 400,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        error: {
          message:
            "litellm.ContextWindowExceededError: litellm.BadRequestError: AnthropicException - prompt is too long: 201234 tokens > 200000 maximum\nmodel=claude-sonnet. context_window_fallbacks=None. Received Model Group=claude-sonnet\nAvailable Model Group Fallbacks=None",
          type: null,
          param: null,
          code: "400",
        },
      }),
    });
    const { result } = await step("openai");
    const error = errorOf(result);
    expect(error).toMatchObject({ kind: "context_length", status: 400, retryable: false });
    const described = describeProviderError(error, awlSettings());
    expect(described.hint).toContain("/compact");
    expect(described.hint).not.toContain("model name");
  });

  it("a content-filter 400 that names the Model Group gets no model-name hint; a 404 does", async () => {
    shared.server.enqueue(
      {
        status: 400,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ error: { message: "litellm.ContentPolicyViolationError: flagged. Received Model Group=gpt-4o", type: null, param: null, code: "400" } }),
      },
      { status: 404, headers: { "content-type": "application/json" }, body: '{"error":{"message":"The model `gpt-5x` does not exist","type":"invalid_request_error","code":"model_not_found"}}' },
    );
    const filtered = describeProviderError(errorOf((await step("openai")).result), awlSettings());
    expect(filtered.hint ?? "").not.toContain("model name");
    const missing = describeProviderError(errorOf((await step("openai")).result), awlSettings());
    expect(missing.hint).toContain('check the model name "gpt-test"');
  });

  it("a bare data: {\"error\": ...} in an Anthropic stream is an error with its message, not a truncation", async () => {
    shared.server.enqueue({ body: sseEvents([anthropicStart, { data: { error: { message: "litellm.BadRequestError: invalid beta flag", type: "invalid_request_error", code: "400" } } }]) });
    const { result } = await step("anthropic");
    expect(errorOf(result)).toMatchObject({ kind: "bad_request", retryable: false });
    expect(errorOf(result).message).toContain("litellm.BadRequestError: invalid beta flag");
  });

  it("and a transient one there is retried", async () => {
    shared.server.enqueue({ body: sseEvents([anthropicStart, { data: { error: { message: "litellm.InternalServerError: connection reset", code: "500" } } }]) }, { body: anthropicHello });
    const { result } = await step("anthropic");
    expect(result.ok).toBe(true);
    expect(shared.server.requests).toHaveLength(2);
  });
});

describe("the client is named on every request", () => {
  it.each(["openai", "anthropic"] as const)("%s sends User-Agent: awl/VERSION", async (provider) => {
    shared.server.enqueue({ body: provider === "openai" ? openaiHello : anthropicHello });
    await step(provider);
    expect(awlVersion()).toMatch(/^\d+\.\d+\.\d+/);
    expect(shared.server.requests[0]!.headers["user-agent"]).toBe(`awl/${awlVersion()}`);
    expect(shared.server.requests[0]!.headers["x-title"]).toBeUndefined();
  });

  it("a profile's headers are sent and replace awl's own; an empty one is left out", async () => {
    shared.server.enqueue({ body: openaiHello });
    await step("openai", { headers: { "HTTP-Referer": "https://example.com/me", "X-Title": "my tool", "User-Agent": "" } });
    const headers = shared.server.requests[0]!.headers;
    expect(headers["http-referer"]).toBe("https://example.com/me");
    expect(headers["x-title"]).toBe("my tool");
    expect(headers["user-agent"]).toBeUndefined();
  });
});

describe("OpenRouter attribution", () => {
  it("openrouter.ai gets X-Title: awl unless the profile says otherwise", () => {
    expect(clientHeaders({ baseUrl: "https://openrouter.ai/api/v1" })).toEqual({ "user-agent": `awl/${awlVersion()}`, "x-title": "awl" });
    expect(clientHeaders({ baseUrl: "https://openrouter.ai/api/v1", headers: { "X-Title": "", "HTTP-Referer": "https://me.example" } })).toEqual({
      "user-agent": `awl/${awlVersion()}`,
      "http-referer": "https://me.example",
    });
  });
});

function awlSettings(): AwlSettings {
  return { provider: settingsFor("openai"), maxSteps: 50, modelSource: "--model", keySource: "AWL_API_KEY" } as AwlSettings;
}
