/** The Anthropic provider end to end over HTTP, against the replay server. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Conversation, toolResult } from "../../../src/model/conversation.js";
import { createAnthropicProvider } from "../../../src/providers/anthropic/provider.js";
import { ProviderConfigError } from "../../../src/providers/errors.js";
import type { ProviderSettings, ToolSpec } from "../../../src/providers/types.js";
import { recordingReceiver } from "../../support/recording-receiver.js";
import { crlfOffsets, splitAt, splitEvery, splitEveryByte, startReplayServer, utf8InteriorOffsets, type ReplayServer } from "../../support/replay-server.js";
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

function provider(overrides: Partial<ProviderSettings> = {}) {
  return createAnthropicProvider({
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    baseUrl: server.url,
    apiKey: "sk-ant-test",
    maxRetries: 2,
    stallTimeoutMs: 5_000,
    ...overrides,
  });
}

const hello = () => new Conversation([{ role: "user", content: [{ type: "text", text: "hi" }] }]);
const OVERLOADED_BODY = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';

describe("Anthropic provider over HTTP", () => {
  it("streams text with the Receiver calls in order and sends the documented request", async () => {
    server.enqueue({ body: splitEveryByte(fixture("text.sse")) });
    const receiver = recordingReceiver();
    const result = await provider().streamStep(hello(), receiver);
    expect(result).toMatchObject({ ok: true, message: { content: [{ type: "text", text: 'Hello, wörld — 👋 line two\nand "quotes"' }], stop_reason: "end_turn" } });
    expect(receiver.calls[0]).toBe("start assistant");
    expect(receiver.calls[1]).toBe("block_start 0 text");
    expect(receiver.calls.slice(-2)).toEqual(["block_complete 0 text", "complete end_turn"]);
    const request = server.requests[0]!;
    expect([request.method, request.url]).toEqual(["POST", "/v1/messages"]);
    expect(request.headers).toMatchObject({ "x-api-key": "sk-ant-test", "anthropic-version": "2023-06-01" });
    expect(request.json()).toMatchObject({ model: "claude-sonnet-4-5", stream: true, max_tokens: 32000 });
  });

  it("assembles thinking + text + tool_use with a signature, and sends it back in the next request", async () => {
    server.enqueue({ body: splitEvery(fixture("thinking-tool.sse"), 7) }, { body: fixture("text.sse") });
    const conversation = hello();
    const tools: ToolSpec[] = [{ name: "get_weather", description: "Weather.", schema: '{"type": "object", "properties": {"location": {"type": "string"}}}' }];
    const first = await provider({ thinking: 2048 }).streamStep(conversation, recordingReceiver(), { tools });
    if (!first.ok) throw new Error(first.error.message);
    conversation.addMessage(first.message);
    conversation.addToolResults([toolResult("toolu_01T1x1fJ34qAmk2tNTrN7Up6", "18°C, sunny")]);
    const second = await provider({ thinking: 2048 }).streamStep(conversation, recordingReceiver(), { tools });
    expect(second.ok).toBe(true);

    const body = server.requests[1]!.json();
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect(body.messages[1].content[0]).toEqual({
      type: "thinking",
      thinking: "The user wants the weather. I should call get_weather for Paris.",
      signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds7wdjxOJwqyGbvDvOWyrGvQ4r2JpU5czTtIvlk3OBlL5EjcaQEEtZW0Q==",
    });
    expect(body.messages[2]).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", content: "18°C, sunny", cache_control: { type: "ephemeral" } }],
    });
    expect(server.requests[1]!.body).toContain('"input_schema":{"type": "object", "properties": {"location": {"type": "string"}}},"cache_control"');
  });

  it("interleaved thinking across a tool loop: the beta header on each call, every signed and redacted block sent back unchanged", async () => {
    server.enqueue({ body: splitEvery(fixture("thinking-tool.sse"), 5) }, { body: splitEvery(fixture("thinking-after-tool.sse"), 5) }, { body: fixture("text.sse") });
    const tools: ToolSpec[] = [{ name: "get_weather", description: "Weather.", schema: '{"type":"object"}' }];
    const conversation = hello();
    const step = async () => {
      const result = await provider({ thinking: 2048 }).streamStep(conversation, recordingReceiver(), { tools });
      if (!result.ok) throw new Error(result.error.message);
      conversation.addMessage(result.message);
      return result.message;
    };
    await step();
    conversation.addToolResults([toolResult("toolu_01T1x1fJ34qAmk2tNTrN7Up6", "18°C, sunny")]);
    const afterTool = await step();
    // The model thought again after the tool result: the thinking between tool calls that the beta allows.
    expect(afterTool.content.map((b) => b.type)).toEqual(["thinking", "thinking", "text"]);
    conversation.addUserMessage("Thanks!");
    await step();

    expect(server.requests).toHaveLength(3);
    for (const request of server.requests) {
      expect(request.headers["anthropic-beta"]).toBe("interleaved-thinking-2025-05-14");
      expect(request.json()).toMatchObject({ max_tokens: 32000, thinking: { type: "enabled", budget_tokens: 2048 } });
    }
    const EPHEMERAL = { type: "ephemeral" };
    const firstTurn = {
      role: "assistant",
      content: [
        {
          type: "thinking",
          thinking: "The user wants the weather. I should call get_weather for Paris.",
          signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds7wdjxOJwqyGbvDvOWyrGvQ4r2JpU5czTtIvlk3OBlL5EjcaQEEtZW0Q==",
        },
        { type: "text", text: "Let me check the weather in Paris." },
        { type: "tool_use", id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather", input: { location: "Paris, France", unit: "celsius" } },
      ],
    };
    const toolResultMessage = (cached: boolean) => ({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", content: "18°C, sunny", ...(cached ? { cache_control: EPHEMERAL } : {}) }],
    });
    expect(server.requests[1]!.json().messages).toEqual([
      { role: "user", content: [{ type: "text", text: "hi", cache_control: EPHEMERAL }] },
      firstTurn,
      toolResultMessage(true),
    ]);
    expect(server.requests[2]!.json().messages).toEqual([
      { role: "user", content: [{ type: "text", text: "hi" }] },
      firstTurn,
      toolResultMessage(true),
      {
        role: "assistant",
        content: [
          {
            type: "thinking",
            thinking: "The tool says 18°C and sunny. That answers the question.",
            signature: "ErUBCkYIBxgCIkB3kYvN5fWz0pR8sT2uV4xY6aC8eG0iK2mO4qS6uW8yA0cE2gI4kM6oQ8sU0wY2aC4eG6iK8mO0qS2uW4yA6cE8gIEgzLx5dF1pQ9rT3vX7bZ==",
          },
          { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj2pabXIGCCb6R8MSIsr" },
          { type: "text", text: "It is 18°C and sunny in Paris." },
        ],
      },
      { role: "user", content: [{ type: "text", text: "Thanks!", cache_control: EPHEMERAL }] },
    ]);
  });

  it("refuses to be built with a thinking budget not below max tokens (a config error naming both)", () => {
    expect(() => provider({ thinking: 8000, maxTokens: 8000 })).toThrow(ProviderConfigError);
    expect(() => provider({ thinking: 40000 })).toThrow("the thinking budget 40000 is not below max_tokens 32000");
    expect(() => provider({ thinking: "adaptive", maxTokens: 1000 })).not.toThrow();
  });

  it("assembles two parallel tool_use blocks, one with empty input", async () => {
    server.enqueue({ body: splitEvery(fixture("parallel-tools.sse"), 3) });
    const receiver = recordingReceiver();
    const result = await provider().streamStep(hello(), receiver);
    expect(result.ok && result.message.content.map((b) => (b.type === "tool_use" ? [b.name, b.input] : b.type))).toEqual([
      ["read_file", '{"path": "src/main.ts", "limit": 12345678901234567890}'],
      ["list_tools", "{}"],
    ]);
    expect(receiver.calls.filter((c) => c.startsWith("block_start"))).toEqual([
      "block_start 0 tool_use toolu_01Sp8Gc5YtPRjXB1vEhJ8WnE read_file",
      "block_start 1 tool_use toolu_01Ho5gLq2kWqvKxTRhAHVbqz list_tools",
    ]);
  });

  it("ignores ping and unknown event types", async () => {
    server.enqueue({ body: fixture("unknown-events.sse") });
    const result = await provider().streamStep(hello(), recordingReceiver());
    expect(result).toMatchObject({ ok: true, message: { content: [{ type: "text", text: "Found it." }] } });
  });

  it("an overloaded_error mid-stream is retried; the partial message is discarded", async () => {
    server.enqueue({ body: fixture("overloaded-midstream.sse") }, { body: fixture("text.sse") });
    const receiver = recordingReceiver();
    const result = await provider().streamStep(hello(), receiver);
    expect(result.ok).toBe(true);
    expect(receiver.retries.map((r) => r.error.kind)).toEqual(["overloaded"]);
    // message_start had reported the input: the discarded attempt carries what it cost.
    expect(receiver.retries[0]!.error.usage).toEqual({ input_tokens: 10, output_tokens: 1 });
    expect(receiver.calls.filter((c) => c.startsWith("start") || c.startsWith("retry") || c.startsWith("complete"))).toEqual([
      "start assistant",
      "retry 1 overloaded",
      "start assistant",
      "complete end_turn",
    ]);
    expect(result.ok && result.message.content).toEqual([{ type: "text", text: 'Hello, wörld — 👋 line two\nand "quotes"' }]);
  });

  it("an overloaded_error mid-stream without retries left is an overloaded error", async () => {
    server.enqueue({ body: fixture("overloaded-midstream.sse") });
    const receiver = recordingReceiver();
    const result = await provider({ maxRetries: 0 }).streamStep(hello(), receiver);
    expect(result).toMatchObject({ ok: false, error: { kind: "overloaded", retryable: true, usage: { input_tokens: 10, output_tokens: 1 } } });
    expect(receiver.calls.at(-1)).toBe("error overloaded");
  });

  it("a step cancelled mid-stream carries the tokens the stream had reported", async () => {
    const bytes = fixture("overloaded-midstream.sse");
    server.enqueue({ body: [bytes.subarray(0, bytes.indexOf("event: error"))], ending: "stall" });
    const controller = new AbortController();
    const receiver = recordingReceiver();
    const onContentDelta = receiver.onContentDelta!.bind(receiver);
    receiver.onContentDelta = (index, delta) => {
      onContentDelta(index, delta);
      controller.abort();
    };
    const result = await provider().streamStep(hello(), receiver, { signal: controller.signal });
    expect(result).toMatchObject({ ok: false, error: { kind: "aborted", usage: { input_tokens: 10, output_tokens: 1 } } });
    expect(receiver.error?.usage).toEqual({ input_tokens: 10, output_tokens: 1 });
  });

  it("HTTP 529 is overloaded, with Anthropic's own message", async () => {
    server.enqueue({ status: 529, headers: { "content-type": "application/json" }, body: OVERLOADED_BODY });
    const result = await provider({ maxRetries: 0 }).streamStep(hello(), recordingReceiver());
    expect(result).toMatchObject({ ok: false, error: { kind: "overloaded", status: 529, retryable: true } });
    expect(!result.ok && result.error.message).toContain("Overloaded");
  });

  it("HTTP 429 with retry-after is retried after the wait the server asked for, then succeeds", async () => {
    server.enqueue(
      {
        status: 429,
        headers: { "content-type": "application/json", "retry-after": "0" },
        body: '{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}',
      },
      { body: fixture("text.sse") },
    );
    const receiver = recordingReceiver();
    const result = await provider().streamStep(hello(), receiver);
    expect(result.ok).toBe(true);
    expect(receiver.retries).toMatchObject([{ attempt: 1, delay_ms: 0, error: { kind: "rate_limit", status: 429, retry_after_ms: 0 } }]);
    expect(receiver.retries[0]!.error.usage).toBeUndefined(); // refused before any stream: nothing spent
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.body).toBe(server.requests[0]!.body);
  });

  it("a body cut in the middle of an event is truncated (retryable), never a half-built message", async () => {
    const bytes = fixture("thinking-tool.sse");
    const cut = bytes.indexOf("is, France") + 3;
    server.enqueue({ body: bytes.subarray(0, cut) }, { body: bytes.subarray(0, cut), ending: "kill" });
    const receiver = recordingReceiver();
    const result = await provider({ maxRetries: 1 }).streamStep(hello(), receiver);
    expect(result).toMatchObject({ ok: false, error: { kind: "truncated", retryable: true } });
    expect(receiver.message).toBeUndefined();
    expect(receiver.calls.filter((c) => c.startsWith("retry") || c.startsWith("error"))).toEqual(["retry 1 truncated", "error truncated"]);
  });

  it("CRLF line ends split between reads and UTF-8 characters split between reads", async () => {
    const crlf = Buffer.from(fixture("text.sse").toString("utf8").replace(/\n/g, "\r\n"));
    server.enqueue({ body: splitAt(crlf, [...crlfOffsets(crlf), ...utf8InteriorOffsets(crlf)]) });
    const result = await provider().streamStep(hello(), recordingReceiver());
    expect(result).toMatchObject({ ok: true, message: { content: [{ type: "text", text: 'Hello, wörld — 👋 line two\nand "quotes"' }] } });
  });

  it("a malformed stream is a bad_response and is not retried", async () => {
    server.enqueue({ body: "event: message_start\ndata: {oops\n\n" });
    const result = await provider().streamStep(hello(), recordingReceiver());
    expect(result).toMatchObject({ ok: false, error: { kind: "bad_response", retryable: false } });
    expect(server.requests).toHaveLength(1);
  });
});
