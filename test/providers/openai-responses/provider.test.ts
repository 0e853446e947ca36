/** The OpenAI Responses provider end to end over HTTP, against scripted server responses (issue 29 item 1). */
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
  return createProvider({ provider: "openai-responses", model: "gpt-5-mini", baseUrl: `${server.url}/v1`, apiKey: "sk-test", maxRetries: 0, stallTimeoutMs: 5_000, ...overrides });
}

const hello = () => new Conversation([{ role: "user", content: [{ type: "text", text: "Weather in Paris and Tokyo?" }] }]);

describe("OpenAI Responses provider over HTTP", () => {
  it("streams text and sends the documented request: store false, encrypted reasoning asked for, instructions, cache key", async () => {
    server.enqueue({ body: splitEveryByte(fixture("text.sse")) });
    const receiver = recordingReceiver();
    const result = await (await provider()).streamStep(hello(), receiver, { system: "Be brief.", tools });
    expect(result).toMatchObject({ ok: true, message: { content: [{ type: "text", text: 'Hello, wörld — 👋 line two\nand "quotes"' }], stop_reason: "end_turn" } });
    expect(receiver.calls[0]).toBe("start assistant");
    expect(receiver.calls.at(-1)).toBe("complete end_turn");
    const request = server.requests[0]!;
    expect([request.method, request.url, request.headers.authorization]).toEqual(["POST", "/v1/responses", "Bearer sk-test"]);
    const body = request.json();
    expect(body).toMatchObject({
      model: "gpt-5-mini",
      stream: true,
      store: false,
      instructions: "Be brief.",
      reasoning: { summary: "auto" },
      include: ["reasoning.encrypted_content"],
      input: [{ role: "user", content: [{ type: "input_text", text: "Weather in Paris and Tokyo?" }] }],
      tools: [{ type: "function", name: "get_weather", description: "Weather.", parameters: { type: "object", properties: { location: { type: "string" } } }, strict: false }],
    });
    expect(body.prompt_cache_key).toMatch(/^awl-[0-9a-f]{32}$/);
    expect(request.body).toContain('"parameters":{"type": "object", "properties": {"location": {"type": "string"}}}');
  });

  it("a tool loop sends the reasoning item back with its encrypted content (no id), the calls and their outputs; the cache key stays", async () => {
    server.enqueue({ body: splitEvery(fixture("reasoning-tools.sse"), 9) }, { body: fixture("answer-after-tools.sse") });
    const conversation = hello();
    const p = await provider();
    const first = await p.streamStep(conversation, recordingReceiver(), { tools });
    if (!first.ok) throw new Error(first.error.message);
    conversation.addMessage(first.message);
    conversation.addToolResults([toolResult("call_Xq3vJ8Ljb2Wc0EwR1nT5", "18°C, sunny"), toolResult("call_7hKp2VzQm4Yr9NsT3dLe", "no such city", true)]);
    const second = await p.streamStep(conversation, recordingReceiver(), { tools });
    expect(second).toMatchObject({ ok: true, message: { stop_reason: "end_turn", usage: { cache_read_input_tokens: 2048, reasoning_tokens: 64 } } });
    const [one, two] = server.requests.map((r) => r.json());
    expect(two.prompt_cache_key).toBe(one.prompt_cache_key);
    expect(two.input.slice(1)).toEqual([
      {
        type: "reasoning",
        summary: [{ type: "summary_text", text: expect.stringContaining("**Planning the lookup**") }],
        encrypted_content: expect.stringMatching(/^gAAAAAB/),
      },
      { type: "function_call", call_id: "call_Xq3vJ8Ljb2Wc0EwR1nT5", name: "get_weather", arguments: '{"location": "Paris, France"}' },
      { type: "function_call", call_id: "call_7hKp2VzQm4Yr9NsT3dLe", name: "get_weather", arguments: '{"location": "Tokyo"}' },
      { type: "function_call_output", call_id: "call_Xq3vJ8Ljb2Wc0EwR1nT5", output: "18°C, sunny" },
      { type: "function_call_output", call_id: "call_7hKp2VzQm4Yr9NsT3dLe", output: "Error: no such city" },
    ]);
  });

  it("thinking from another provider is dropped with no error; its text and tool calls still go", async () => {
    server.enqueue({ body: fixture("text.sse") });
    const conversation = new Conversation([
      { role: "user", content: [{ type: "text", text: "hi" }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Anthropic's reasoning", signature: "EqQBCgIYAhIM" },
          { type: "thinking", thinking: "Gemini's", signature: "CiQB0e2Kb", origin: "gemini" },
          { type: "thinking", thinking: "DeepSeek's, unsigned" },
          { type: "text", text: "Calling." },
          { type: "tool_use", id: "toolu_01", name: "get_weather", input: '{"location":"Paris"}' },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01", content: "sunny" }] },
    ]);
    const result = await (await provider()).streamStep(conversation, recordingReceiver(), { tools });
    expect(result.ok).toBe(true);
    expect(server.requests[0]!.json().input).toEqual([
      { role: "user", content: [{ type: "input_text", text: "hi" }] },
      { role: "assistant", content: "Calling." },
      { type: "function_call", call_id: "toolu_01", name: "get_weather", arguments: '{"location":"Paris"}' },
      { type: "function_call_output", call_id: "toolu_01", output: "sunny" },
    ]);
  });

  it("a model that does not reason gets no reasoning parameter; images go as input_image", async () => {
    server.enqueue({ body: fixture("text.sse") });
    const conversation = new Conversation([{ role: "user", content: [{ type: "text", text: "What is this?" }, { type: "image", media_type: "image/png", data: "iVBORw0KGgo=" }] }]);
    await (await provider({ model: "gpt-4.1", maxTokens: 500 })).streamStep(conversation, recordingReceiver());
    const body = server.requests[0]!.json();
    expect(body.reasoning).toBeUndefined();
    expect(body.include).toBeUndefined();
    expect(body.max_output_tokens).toBe(500);
    expect(body.input[0].content[1]).toEqual({ type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=", detail: "auto" });
  });

  it("an unknown event type is ignored and noted once per provider", async () => {
    server.enqueue({ body: fixture("unknown-events.sse") }, { body: fixture("unknown-events.sse") });
    const notices: string[] = [];
    const p = await provider({ onNotice: (text) => notices.push(text) });
    for (let i = 0; i < 2; i++) expect(await p.streamStep(hello(), recordingReceiver())).toMatchObject({ ok: true, message: { content: [{ type: "text", text: "Hi!" }] } });
    expect(notices).toEqual([
      expect.stringContaining('unknown type "response.future_feature.delta"'),
      expect.stringContaining('unknown type "response.other_future.done"'),
    ]);
  });

  it("429 with retry-after is retried after the wait, then succeeds", async () => {
    server.enqueue(
      { status: 429, headers: { ...json, "retry-after": "1" }, body: '{"error":{"message":"Rate limit reached for gpt-5-mini","type":"requests","code":"rate_limit_exceeded"}}' },
      { body: fixture("text.sse") },
    );
    const receiver = recordingReceiver();
    const result = await (await provider({ maxRetries: 2 })).streamStep(hello(), receiver);
    expect(result.ok).toBe(true);
    expect(receiver.retries).toEqual([expect.objectContaining({ attempt: 1, delay_ms: 1000, error: expect.objectContaining({ kind: "rate_limit", status: 429, retry_after_ms: 1000 }) })]);
  });

  it("a 400 context-window refusal is context_length and is not retried", async () => {
    server.enqueue({
      status: 400,
      headers: json,
      body: '{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}',
    });
    const result = await (await provider({ maxRetries: 2 })).streamStep(hello(), recordingReceiver());
    expect(result).toMatchObject({ ok: false, error: { kind: "context_length", status: 400, retryable: false } });
    expect(server.requests).toHaveLength(1);
  });

  it("a mid-stream server error is retried, and the partial message is discarded", async () => {
    server.enqueue({ body: fixture("error.sse") }, { body: fixture("text.sse") });
    const receiver = recordingReceiver();
    const result = await (await provider({ maxRetries: 1 })).streamStep(hello(), receiver);
    expect(result).toMatchObject({ ok: true, message: { content: [{ type: "text", text: 'Hello, wörld — 👋 line two\nand "quotes"' }] } });
    expect(receiver.calls.filter((c) => c.startsWith("retry"))).toEqual(["retry 1 server"]);
  });

  it("a body that ends before response.completed is truncated, naming the marker", async () => {
    const bytes = fixture("text.sse");
    server.enqueue({ body: bytes.subarray(0, bytes.indexOf("event: response.completed")) });
    const result = await (await provider()).streamStep(hello(), recordingReceiver());
    expect(result).toMatchObject({ ok: false, error: { kind: "truncated", message: expect.stringContaining("response.completed") } });
  });
});
