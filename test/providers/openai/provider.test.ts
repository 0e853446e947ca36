/** The OpenAI-compatible provider end to end over HTTP, against scripted server responses (issue 2 item 10). */
import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Conversation, toolResult } from "../../../src/model/conversation.js";
import { createProvider } from "../../../src/providers/create.js";
import type { ProviderSettings, StepResult } from "../../../src/providers/types.js";
import { recordingReceiver } from "../../support/recording-receiver.js";
import {
  crlfOffsets,
  offsetsAfter,
  splitAt,
  splitEvery,
  splitEveryByte,
  sseData,
  startReplayServer,
  utf8InteriorOffsets,
  type ReplayServer,
} from "../../support/replay-server.js";
import { awlAssembled, sdkAssemble } from "./oracle.js";

const fixture = (name: string): Buffer => readFileSync(new URL(`../../fixtures/openai/${name}.sse`, import.meta.url));
const json = { "content-type": "application/json" };

let server: ReplayServer;
let settings: ProviderSettings;
beforeEach(async () => {
  server = await startReplayServer();
  settings = { provider: "openai", model: "gpt-test", baseUrl: `${server.url}/v1`, apiKey: "sk-test", maxRetries: 0, stallTimeoutMs: 5_000 };
});
afterEach(() => server.close());

function conversation(): Conversation {
  const c = new Conversation();
  c.addSystemMessage("Be brief.");
  c.addUserMessage("Hello");
  return c;
}

async function step(c = conversation()) {
  const provider = await createProvider(settings);
  const receiver = recordingReceiver();
  const result: StepResult = await provider.streamStep(c, receiver, {
    tools: [{ name: "get_weather", description: "Weather.", schema: '{"type":"object","properties":{"city":{"type":"string"}}}' }],
  });
  return { result, receiver, conversation: c };
}

function errorOf(result: StepResult) {
  if (result.ok) throw new Error("expected a failure");
  return result.error;
}

describe("OpenAI-compatible provider over HTTP", () => {
  it("streams a plain answer, sends the documented request, and leaves the conversation alone", async () => {
    server.enqueue({ body: splitEvery(fixture("plain-text"), 17) });
    const { result, receiver, conversation: c } = await step();
    expect(result).toEqual({
      ok: true,
      message: {
        role: "assistant",
        content: [{ type: "text", text: "Hello! How can I help — today? 👋" }],
        stop_reason: "end_turn",
        stop_reason_raw: "stop",
        usage: { input_tokens: 19, output_tokens: 10, cache_read_input_tokens: 0 },
      },
    });
    expect(receiver.calls[0]).toBe("start assistant");
    expect(receiver.calls.at(-1)).toBe("complete end_turn");
    expect(c.length).toBe(2);
    const request = server.requests[0]!;
    expect(request).toMatchObject({ method: "POST", url: "/v1/chat/completions" });
    expect(request.headers).toMatchObject({ authorization: "Bearer sk-test", "content-type": "application/json", accept: "text/event-stream" });
    expect(request.body).toBe(
      '{"model":"gpt-test","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hello"}],' +
        '"tools":[{"type":"function","function":{"name":"get_weather","description":"Weather.","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]}',
    );
  });

  it("sends a tool loop back: assistant tool_calls then one role:tool message per result", async () => {
    server.enqueue({ body: fixture("plain-text") });
    const c = conversation();
    c.addMessage({ role: "assistant", content: [{ type: "tool_use", id: "call_1", name: "get_weather", input: '{"city":"Oslo"}' }] });
    c.addToolResults([toolResult("call_1", "-3°C")]);
    await step(c);
    expect(server.requests[0]!.json().messages.slice(2)).toEqual([
      { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } }] },
      { role: "tool", tool_call_id: "call_1", content: "-3°C" },
    ]);
  });

  it.each([
    ["usage-on-finish-chunk", "one piece per byte", (b: Buffer) => splitEveryByte(b)],
    ["reasoning-content-deepseek", "UTF-8 sequences split across reads", (b: Buffer) => splitAt(b, utf8InteriorOffsets(b))],
    ["reasoning-ollama", "3-byte pieces", (b: Buffer) => splitEvery(b, 3)],
    ["tool-call", "cuts inside the arguments JSON", (b: Buffer) => splitAt(b, offsetsAfter(b, '"arguments":"').map((o) => o + 1))],
    ["parallel-interleaved", "5-byte pieces", (b: Buffer) => splitEvery(b, 5)],
    ["empty-arguments", "one piece", (b: Buffer) => [b]],
    ["finish-length", "7-byte pieces", (b: Buffer) => splitEvery(b, 7)],
    ["crlf-comments-multiline", "CR and LF in separate reads, and split UTF-8", (b: Buffer) => splitAt(b, [...crlfOffsets(b), ...utf8InteriorOffsets(b)])],
  ])("assembles %s (%s) like the openai SDK does", async (name, _how, split) => {
    const pieces = split(fixture(name));
    expect(pieces.length).toBeGreaterThan(name === "empty-arguments" ? 0 : 5);
    server.enqueue({ body: pieces });
    const { result } = await step();
    if (!result.ok) throw new Error(result.error.message);
    expect(awlAssembled(result.message)).toEqual(await sdkAssemble(pieces));
  });

  it("an error object inside a 200 stream is an error with the server's message (OpenRouter's code 502: server, retryable)", async () => {
    server.enqueue({ body: fixture("error-in-stream") });
    const { result, receiver } = await step();
    expect(errorOf(result)).toMatchObject({ kind: "server", retryable: true });
    expect(errorOf(result).message).toContain("Upstream provider returned an error: overloaded");
    expect(receiver.calls.at(-1)).toBe("error server");
  });

  it("401 is an auth error that says to check the key, and is not retried", async () => {
    settings.maxRetries = 3;
    server.enqueue({
      status: 401,
      headers: json,
      body: '{"error":{"message":"Incorrect API key provided: sk-test.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}',
    });
    const { result, receiver } = await step();
    expect(errorOf(result)).toMatchObject({ kind: "auth", status: 401, retryable: false });
    expect(errorOf(result).message).toContain("Incorrect API key provided");
    expect(errorOf(result).message).toContain("HTTP 401 Unauthorized from");
    expect(receiver.calls).toEqual(["error auth"]);
    expect(server.requests).toHaveLength(1);
  });

  it("400 is a bad_request with the server's message", async () => {
    server.enqueue({
      status: 400,
      headers: json,
      body: '{"error":{"message":"Invalid schema for function \'get_weather\'.","type":"invalid_request_error","param":"tools[0].function.parameters","code":"invalid_function_parameters"}}',
    });
    expect(errorOf((await step()).result)).toMatchObject({ kind: "bad_request", status: 400, message: expect.stringContaining("Invalid schema for function") });
  });

  it("429 with retry-after is retried after the wait, then succeeds", async () => {
    settings.maxRetries = 2;
    server.enqueue(
      { status: 429, headers: { ...json, "retry-after": "1" }, body: '{"error":{"message":"Rate limit reached for gpt-test","type":"requests","code":"rate_limit_exceeded"}}' },
      { body: fixture("plain-text") },
    );
    const { result, receiver } = await step();
    expect(result.ok).toBe(true);
    expect(receiver.retries).toEqual([
      expect.objectContaining({ attempt: 1, max_retries: 2, delay_ms: 1000, error: expect.objectContaining({ kind: "rate_limit", status: 429, retry_after_ms: 1000 }) }),
    ]);
    expect(server.requests.map((r) => r.body)).toEqual([server.requests[0]!.body, server.requests[0]!.body]);
  });

  it("500 is a retryable server error", async () => {
    server.enqueue({ status: 500, headers: json, body: '{"error":{"message":"The server had an error while processing your request."}}' });
    expect(errorOf((await step()).result)).toMatchObject({ kind: "server", status: 500, retryable: true });
  });

  it("502 with an HTML page is a server error with a clean excerpt", async () => {
    server.enqueue({
      status: 502,
      headers: { "content-type": "text/html" },
      body: "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n",
    });
    const error = errorOf((await step()).result);
    expect(error).toMatchObject({ kind: "server", status: 502 });
    expect(error.message).toBe(`HTTP 502 Bad Gateway from ${server.url}/v1/chat/completions: 502 Bad Gateway`);
  });

  it("a body that ends cleanly before [DONE] is truncated", async () => {
    const bytes = fixture("tool-call");
    server.enqueue({ body: bytes.subarray(0, bytes.indexOf("data: [DONE]")) });
    const { result, receiver } = await step();
    expect(errorOf(result)).toMatchObject({ kind: "truncated", retryable: true });
    expect(errorOf(result).message).toContain("ended before data: [DONE]");
    expect(receiver.calls.at(-1)).toBe("error truncated");
    expect(receiver.calls).not.toContain("complete tool_use");
    // The usage chunk came before the cut: the failed attempt says what it cost.
    expect(errorOf(result).usage).toEqual({ input_tokens: 19, output_tokens: 10, cache_read_input_tokens: 0 });
  });

  it("a socket killed in the middle of tool arguments is truncated; the retry delivers the whole message", async () => {
    settings.maxRetries = 1;
    const bytes = fixture("tool-call");
    const cut = offsetsAfter(bytes, '"arguments":"city')[0]!;
    server.enqueue({ body: [bytes.subarray(0, cut)], ending: "kill" }, { body: bytes });
    const { result, receiver } = await step();
    expect(receiver.retries[0]!.error).toMatchObject({ kind: "truncated" });
    expect(receiver.retries[0]!.error.usage).toBeUndefined(); // cut before the usage chunk: nothing reported
    expect(receiver.calls.filter((c) => c.startsWith("start") || c.startsWith("retry") || c.startsWith("complete"))).toEqual([
      "start assistant",
      "retry 1 truncated",
      "start assistant",
      "complete tool_use",
    ]);
    expect(result).toMatchObject({ ok: true, message: { content: [{ type: "tool_use", input: '{"city":"Zürich"}' }] } });
  });

  it("a stalled stream is a retryable stalled error", async () => {
    settings.stallTimeoutMs = 200;
    const bytes = fixture("plain-text");
    server.enqueue({ body: [bytes.subarray(0, 400)], ending: "stall" });
    const { result, receiver } = await step();
    expect(errorOf(result)).toMatchObject({ kind: "stalled", retryable: true });
    expect(errorOf(result).message).toContain("for 200 ms");
    expect(receiver.calls.at(-1)).toBe("error stalled");
  });

  it("a server that accepts and never answers is stalled, not a hang", async () => {
    settings.stallTimeoutMs = 200;
    server.enqueue({ ending: "hang" });
    expect(errorOf((await step()).result)).toMatchObject({ kind: "stalled", message: expect.stringContaining("sent no response") });
  });

  it("a 200 that is not SSE is a clear error", async () => {
    server.enqueue({ headers: json, body: '{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}]}' });
    const error = errorOf((await step()).result);
    expect(error).toMatchObject({ kind: "bad_response", status: 200, retryable: false });
    expect(error.message).toContain("got HTTP 200 with application/json");
  });

  it("a refused connection names the URL to check", async () => {
    await server.close();
    const error = errorOf((await step()).result);
    expect(error).toMatchObject({ kind: "network" });
    expect(error.message).toContain(`${server.url}/v1/chat/completions`);
    expect(error.message).toContain("check that the server is running and that the base URL is right");
  });

  it("a malformed JSON chunk is a classified error", async () => {
    server.enqueue({ body: sseData([{ choices: [{ index: 0, delta: { content: "a" } }] }]) + 'data: {"choices":[{"index":0,"delta":{"content":"b"}\n\n' + "data: [DONE]\n\n" });
    const { result, receiver } = await step();
    expect(errorOf(result)).toMatchObject({ kind: "bad_response", message: expect.stringContaining("malformed JSON") });
    expect(receiver.calls.at(-1)).toBe("error bad_response");
  });

  it("unknown fields everywhere change nothing", async () => {
    server.enqueue({
      body: sseData([
        { weird: [1, 2], choices: [{ index: 0, delta: { role: "assistant", content: "ok", annotations: [], audio: null }, extra: true, logprobs: null }] },
        { choices: [{ index: 0, delta: { tool_calls: null, function_call: null }, finish_reason: "stop", stop_reason: 151645 }], usage: null },
        { choices: [], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4, new_thing: { a: 1 } } },
        "[DONE]",
      ]),
    });
    expect((await step()).result).toEqual({
      ok: true,
      message: { role: "assistant", content: [{ type: "text", text: "ok" }], stop_reason: "end_turn", stop_reason_raw: "stop", usage: { input_tokens: 3, output_tokens: 1 } },
    });
  });
});
