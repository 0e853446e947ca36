/** The Gemini provider end to end over HTTP, against scripted server responses (issue 29 item 2). */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Conversation, toolResult } from "../../../src/model/conversation.js";
import { createProvider } from "../../../src/providers/create.js";
import type { ProviderSettings, ToolSpec } from "../../../src/providers/types.js";
import { recordingReceiver } from "../../support/recording-receiver.js";
import { splitEvery, splitEveryByte, startReplayServer, type ReplayServer } from "../../support/replay-server.js";
import { fixture } from "./support.js";

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  expect(server.pending()).toBe(0);
});

const json = { "content-type": "application/json" };
const tools: ToolSpec[] = [{ name: "get_weather", description: "Weather.", schema: '{"type": "object", "properties": {"location": {"type": "string"}}}' }];

function provider(overrides: Partial<ProviderSettings> = {}) {
  return createProvider({ provider: "gemini", model: "gemini-2.5-flash", baseUrl: server.url, apiKey: "AIza-test", maxRetries: 0, stallTimeoutMs: 5_000, ...overrides });
}

const hello = () => new Conversation([{ role: "user", content: [{ type: "text", text: "Weather in Paris and Tokyo?" }] }]);

describe("Gemini provider over HTTP", () => {
  it("streams text and sends the documented request: key header, system instruction, tools as JSON Schema, thoughts asked for", async () => {
    server.enqueue({ body: splitEveryByte(fixture("text.sse")) });
    const receiver = recordingReceiver();
    const conversation = hello();
    conversation.addSystemMessage("Use Celsius.");
    const result = await (await provider({ maxTokens: 800 })).streamStep(conversation, receiver, { system: "Be brief.", tools });
    expect(result).toMatchObject({ ok: true, message: { content: [{ type: "text", text: 'Hello, wörld — 👋 line two\nand "quotes"' }], stop_reason: "end_turn" } });
    expect(receiver.calls[0]).toBe("start assistant");
    expect(receiver.calls.at(-1)).toBe("complete end_turn");
    const request = server.requests[0]!;
    expect([request.method, request.url, request.headers["x-goog-api-key"]]).toEqual(["POST", "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", "AIza-test"]);
    expect(request.json()).toEqual({
      contents: [{ role: "user", parts: [{ text: "Weather in Paris and Tokyo?" }] }],
      systemInstruction: { parts: [{ text: "Be brief.\n\nUse Celsius." }] },
      tools: [{ functionDeclarations: [{ name: "get_weather", description: "Weather.", parametersJsonSchema: { type: "object", properties: { location: { type: "string" } } } }] }],
      generationConfig: { maxOutputTokens: 800, thinkingConfig: { includeThoughts: true } },
    });
    expect(request.body).toContain('"parametersJsonSchema":{"type": "object", "properties": {"location": {"type": "string"}}}');
  });

  it("a tool loop sends the signature back on the function call it came with, and both responses, named, in order", async () => {
    server.enqueue({ body: splitEvery(fixture("thoughts-parallel-calls.sse"), 11) }, { body: fixture("answer-after-calls.sse") }, { body: fixture("text.sse") });
    const conversation = hello();
    const p = await provider();
    const first = await p.streamStep(conversation, recordingReceiver(), { tools });
    if (!first.ok) throw new Error(first.error.message);
    conversation.addMessage(first.message);
    const [paris, tokyo] = first.message.content.filter((b) => b.type === "tool_use").map((b) => (b as { id: string }).id);
    conversation.addToolResults([toolResult(paris!, "18°C, sunny"), toolResult(tokyo!, "no such city", true)]);
    const second = await p.streamStep(conversation, recordingReceiver(), { tools });
    if (!second.ok) throw new Error(second.error.message);
    conversation.addMessage(second.message);
    conversation.addUserMessage("Thanks!");
    expect((await p.streamStep(conversation, recordingReceiver(), { tools })).ok).toBe(true);

    const body = server.requests[2]!.json();
    expect(body.contents).toEqual([
      { role: "user", parts: [{ text: "Weather in Paris and Tokyo?" }] },
      {
        role: "model",
        parts: [
          { functionCall: { name: "get_weather", args: { location: "Paris, France" } }, thoughtSignature: expect.stringMatching(/^CiQB0e2K/) },
          { functionCall: { name: "get_weather", args: { location: "Tokyo" } } },
        ],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "get_weather", response: { output: "18°C, sunny" } } },
          { functionResponse: { name: "get_weather", response: { error: "no such city" } } },
        ],
      },
      { role: "model", parts: [{ text: "Paris: 18°C, sunny. Tokyo: 22°C, cloudy." }, { text: "", thoughtSignature: expect.stringMatching(/^CiIB/) }] },
      { role: "user", parts: [{ text: "Thanks!" }] },
    ]);
  });

  it("a stream that ends without finishReason is truncated and retried", async () => {
    server.enqueue({ body: fixture("no-finish.sse") }, { body: fixture("text.sse") });
    const receiver = recordingReceiver();
    const result = await (await provider({ maxRetries: 1 })).streamStep(hello(), receiver);
    expect(result.ok).toBe(true);
    expect(receiver.retries[0]!.error).toMatchObject({ kind: "truncated", message: expect.stringContaining("ended before a chunk with a finishReason") });
  });

  it("429 RESOURCE_EXHAUSTED waits for Gemini's RetryInfo delay, then succeeds", async () => {
    server.enqueue(
      {
        status: 429,
        headers: json,
        body: JSON.stringify({
          error: {
            code: 429,
            message: "You exceeded your current quota, please check your plan and billing details.",
            status: "RESOURCE_EXHAUSTED",
            details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "1s" }],
          },
        }),
      },
      { body: fixture("text.sse") },
    );
    const receiver = recordingReceiver();
    const result = await (await provider({ maxRetries: 2 })).streamStep(hello(), receiver);
    expect(result.ok).toBe(true);
    expect(receiver.retries).toEqual([expect.objectContaining({ attempt: 1, delay_ms: 1000, error: expect.objectContaining({ kind: "rate_limit", status: 429, retry_after_ms: 1000 }) })]);
  });

  it("a 400 for a prompt over the context window is context_length", async () => {
    server.enqueue({
      status: 400,
      headers: json,
      body: '{"error":{"code":400,"message":"The input token count (1248213) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}',
    });
    const result = await (await provider({ maxRetries: 2 })).streamStep(hello(), recordingReceiver());
    expect(result).toMatchObject({ ok: false, error: { kind: "context_length", status: 400, retryable: false } });
    expect(server.requests).toHaveLength(1);
  });

  it("a 503 inside the stream is retried; the partial text is discarded", async () => {
    server.enqueue({ body: fixture("error.sse") }, { body: fixture("text.sse") });
    const receiver = recordingReceiver();
    const result = await (await provider({ maxRetries: 1 })).streamStep(hello(), receiver);
    expect(result).toMatchObject({ ok: true, message: { content: [{ type: "text", text: 'Hello, wörld — 👋 line two\nand "quotes"' }] } });
    expect(receiver.calls.filter((c) => c.startsWith("retry"))).toEqual(["retry 1 server"]);
  });

  it("a safety block is a clear error, not retried", async () => {
    server.enqueue({ body: fixture("safety.sse") });
    const result = await (await provider({ maxRetries: 2 })).streamStep(hello(), recordingReceiver());
    expect(result).toMatchObject({ ok: false, error: { kind: "bad_request", message: "Gemini's safety filters blocked the answer (finishReason SAFETY)" } });
    expect(server.requests).toHaveLength(1);
  });

  it("images in a prompt and in tool results go as inlineData; thinking off and older models ask for no thoughts", async () => {
    server.enqueue({ body: fixture("text.sse") }, { body: fixture("text.sse") });
    const conversation = new Conversation([
      { role: "user", content: [{ type: "text", text: "Look" }, { type: "image", media_type: "image/png", data: "iVBORw0KGgo=" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_01", name: "screenshot", input: "" }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01", content: "taken", images: [{ media_type: "image/jpeg", data: "/9j/" }] }] },
    ]);
    await (await provider({ thinking: "off" })).streamStep(conversation, recordingReceiver());
    await (await provider({ model: "gemini-2.0-flash" })).streamStep(hello(), recordingReceiver());
    const body = server.requests[0]!.json();
    expect(body.contents).toEqual([
      { role: "user", parts: [{ text: "Look" }, { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } }] },
      // A call made on another provider carries Gemini's documented stand-in signature, and its id.
      { role: "model", parts: [{ functionCall: { name: "screenshot", args: {}, id: "toolu_01" }, thoughtSignature: "skip_thought_signature_validator" }] },
      { role: "user", parts: [{ functionResponse: { name: "screenshot", response: { output: "taken" }, id: "toolu_01" } }, { inlineData: { mimeType: "image/jpeg", data: "/9j/" } }] },
    ]);
    expect(body.generationConfig).toBeUndefined();
    expect(server.requests[1]!.json().generationConfig).toBeUndefined();
  });
});
