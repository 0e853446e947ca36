import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Message } from "../../../src/model/message.js";
import { isProviderError, type ProviderError } from "../../../src/providers/errors.js";
import { ChatCompletionAssembler } from "../../../src/providers/openai/assembler.js";
import { createSseDecoder } from "../../../src/providers/sse.js";
import type { EventVerdict } from "../../../src/providers/stream-driver.js";
import { recordingReceiver, type RecordingReceiver } from "../../support/recording-receiver.js";
import { splitAt, splitEvery, splitEveryByte, utf8InteriorOffsets } from "../../support/replay-server.js";
import { awlAssembled, sdkAssemble } from "./oracle.js";

const fixture = (name: string): Buffer => readFileSync(new URL(`../../fixtures/openai/${name}.sse`, import.meta.url));

/** Bytes → SSE → assembler, without HTTP; returns the message (or the error) and the Receiver calls. */
function assemble(pieces: Buffer[]): { result: Message | ProviderError | "truncated"; receiver: RecordingReceiver } {
  const receiver = recordingReceiver();
  const assembler = new ChatCompletionAssembler(receiver, "http://test/v1/chat/completions");
  let verdict: EventVerdict;
  const decoder = createSseDecoder((event) => {
    if (verdict === undefined) verdict = assembler.onEvent(event);
  });
  for (const piece of pieces) if (verdict === undefined) decoder.push(piece);
  decoder.end();
  if (verdict === "done") return { result: assembler.finish(), receiver };
  return { result: verdict ?? "truncated", receiver };
}

function message(pieces: Buffer[]): Message {
  const { result } = assemble(pieces);
  if (isProviderError(result) || result === "truncated") throw new Error(`expected a message, got ${JSON.stringify(result)}`);
  return result;
}

const WELL_FORMED = [
  "plain-text",
  "usage-on-finish-chunk",
  "reasoning-content-deepseek",
  "reasoning-ollama",
  "tool-call",
  "parallel-interleaved",
  "empty-arguments",
  "finish-length",
  "crlf-comments-multiline",
  "two-choices-interleaved",
];

describe("OpenAI assembly of recorded streams", () => {
  it("plain text with usage in a trailing choices:[] chunk", () => {
    const { result, receiver } = assemble([fixture("plain-text")]);
    expect(result).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "Hello! How can I help — today? 👋" }],
      stop_reason: "end_turn",
      stop_reason_raw: "stop",
      usage: { input_tokens: 19, output_tokens: 10, cache_read_input_tokens: 0 },
    });
    expect(receiver.calls).toEqual([
      "block_start 0 text",
      'delta 0 "Hello"',
      'delta 0 "!"',
      'delta 0 " How can I"',
      'delta 0 " help — today? 👋"',
      "block_complete 0 text",
    ]);
  });

  it("usage on the finish chunk, unknown fields ignored, null content makes no block", () => {
    expect(message([fixture("usage-on-finish-chunk")])).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "Sure." }],
      stop_reason: "end_turn",
      stop_reason_raw: "stop",
      usage: { input_tokens: 12, output_tokens: 2 },
    });
  });

  it("reasoning from reasoning_content (DeepSeek) becomes a thinking block before the text", () => {
    const { result, receiver } = assemble([fixture("reasoning-content-deepseek")]);
    expect(result).toMatchObject({
      content: [
        { type: "thinking", thinking: "The user asks 9.11 vs 9.8.\n9.8 is larger." },
        { type: "text", text: "9.8 is larger — 更大." },
      ],
      usage: { input_tokens: 15, output_tokens: 40, cache_read_input_tokens: 0 },
    });
    expect(receiver.calls.filter((c) => !c.startsWith("delta"))).toEqual([
      "block_start 0 thinking",
      "block_complete 0 thinking",
      "block_start 1 text",
      "block_complete 1 text",
    ]);
  });

  it("reasoning from reasoning (Ollama), a delta carrying both names counted once", () => {
    expect(message([fixture("reasoning-ollama")]).content).toEqual([
      { type: "thinking", thinking: "Okay, the user says hi. Greet back." },
      { type: "text", text: "Hi there!" },
    ]);
  });

  it("one tool call: id and name from the first delta, argument fragments concatenated and streamed", () => {
    const { result, receiver } = assemble([fixture("tool-call")]);
    expect(result).toMatchObject({
      content: [{ type: "tool_use", id: "call_DdmO9pD3xa9XTPNJ32zg2hcA", name: "get_weather", input: '{"city":"Zürich"}' }],
      stop_reason: "tool_use",
      stop_reason_raw: "tool_calls",
    });
    expect(receiver.calls[0]).toBe("block_start 0 tool_use call_DdmO9pD3xa9XTPNJ32zg2hcA get_weather");
    expect(receiver.deltas.get(0)).toBe('{"city":"Zürich"}');
    expect(receiver.calls.at(-1)).toBe("block_complete 0 tool_use");
  });

  it("three parallel calls with interleaved deltas: keyed by index, each its own block, strictly sequential", () => {
    const { result, receiver } = assemble([fixture("parallel-interleaved")]);
    expect(result).toMatchObject({
      content: [
        { type: "text", text: "Checking three cities." },
        { type: "tool_use", id: "call_a", name: "get_weather", input: '{"city":"Paris"}' },
        { type: "tool_use", id: "call_b", name: "get_weather", input: '{"city":"Oslo"}' },
        { type: "tool_use", id: "call_c", name: "get_time", input: '{"tz":"UTC"}' },
      ],
      stop_reason: "tool_use",
    });
    expect(receiver.calls.filter((c) => !c.startsWith("delta"))).toEqual([
      "block_start 0 text",
      "block_complete 0 text",
      "block_start 1 tool_use call_a get_weather",
      "block_complete 1 tool_use",
      "block_start 2 tool_use call_b get_weather",
      "block_complete 2 tool_use",
      "block_start 3 tool_use call_c get_time",
      "block_complete 3 tool_use",
    ]);
    // Every block's deltas add up to its final content, and fall between its start and completion.
    expect([1, 2, 3].map((i) => receiver.deltas.get(i))).toEqual(['{"city":"Paris"}', '{"city":"Oslo"}', '{"tz":"UTC"}']);
    let open: number | undefined;
    for (const call of receiver.calls) {
      const [kind, index] = call.split(" ");
      if (kind === "block_start") open = Number(index);
      if (kind === "delta") expect(Number(index)).toBe(open);
      if (kind === "block_complete") open = undefined;
    }
  });

  it("empty and whitespace arguments mean {}", () => {
    expect(message([fixture("empty-arguments")]).content).toEqual([
      { type: "tool_use", id: "call_e1", name: "list_files", input: "{}" },
      { type: "tool_use", id: "call_e2", name: "now", input: "{}" },
    ]);
  });

  it("finish_reason length is max_tokens, raw value kept", () => {
    expect(message([fixture("finish-length")])).toMatchObject({
      content: [{ type: "text", text: "Once upon a time" }],
      stop_reason: "max_tokens",
      stop_reason_raw: "length",
    });
  });

  it("CRLF, comments, id/event/retry fields and multi-line data", () => {
    expect(message([fixture("crlf-comments-multiline")]).content).toEqual([{ type: "text", text: "Line one,\nline two — ünïcödé 日本語" }]);
  });

  it("an error object inside a 200 stream is an error with the server's message (OpenRouter's code 502: server, retryable)", () => {
    const { result, receiver } = assemble([fixture("error-in-stream")]);
    expect(result).toMatchObject({ kind: "server", retryable: true });
    expect((result as ProviderError).message).toContain("Upstream provider returned an error: overloaded");
    expect(receiver.calls).toEqual(["block_start 0 text", 'delta 0 "Partial"']);
  });

  it("a malformed JSON chunk is a classified error, not a crash", () => {
    const body = Buffer.from('data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\ndata: {"choices":[{"ind\n\ndata: [DONE]\n\n');
    const { result } = assemble([body]);
    expect(result).toMatchObject({ kind: "bad_response" });
    expect((result as ProviderError).message).toContain('malformed JSON in the stream from http://test/v1/chat/completions: {"choices":[{"ind');
  });

  it("non-object payloads and choices without delta change nothing", () => {
    const body = 'data: 42\n\ndata: null\n\ndata: {"choices":[null,{"index":1}]}\n\ndata: {"choices":[{"index":0}]}\n\ndata: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
    expect(message([Buffer.from(body)])).toEqual({ role: "assistant", content: [{ type: "text", text: "ok" }], stop_reason: "end_turn", stop_reason_raw: "stop" });
  });

  it("thinking → text → thinking opens three blocks", () => {
    const d = (delta: object) => `data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`;
    const body = d({ reasoning_content: "a" }) + d({ content: "b" }) + d({ reasoning: "c" }) + "data: [DONE]\n\n";
    expect(message([Buffer.from(body)])).toMatchObject({
      content: [
        { type: "thinking", thinking: "a" },
        { type: "text", text: "b" },
        { type: "thinking", thinking: "c" },
      ],
      stop_reason: "unknown",
    });
  });

  it("tool calls without an index are told apart by id; a call without id gets one", () => {
    const d = (delta: object) => `data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`;
    const body =
      d({ tool_calls: [{ id: "x1", function: { name: "a", arguments: '{"n":' } }] }) +
      d({ tool_calls: [{ function: { arguments: "1}" } }] }) +
      d({ tool_calls: [{ id: "x2", function: { name: "b", arguments: "{}" } }] }) +
      d({ tool_calls: [{ index: 5, function: { name: "c" } }] }) +
      'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
    expect(message([Buffer.from(body)])).toMatchObject({
      content: [
        { type: "tool_use", id: "x1", name: "a", input: '{"n":1}' },
        { type: "tool_use", id: "x2", name: "b", input: "{}" },
        { type: "tool_use", id: "call_2", name: "c", input: "{}" },
      ],
      // Ollama ends tool calls with "stop": the message still waits for tool results.
      stop_reason: "tool_use",
      stop_reason_raw: "stop",
    });
  });

  it("assembles only the choice with index 0: other choices, even alone in a chunk or first in the array, change nothing", () => {
    const { result, receiver } = assemble([fixture("two-choices-interleaved")]);
    expect(result).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "Answer zero" },
        { type: "tool_use", id: "call_zero", name: "get_weather", input: '{"city":"Oslo"}' },
      ],
      stop_reason: "tool_use",
      stop_reason_raw: "tool_calls",
      usage: { input_tokens: 21, output_tokens: 14 },
    });
    expect(receiver.calls).toEqual([
      "block_start 0 text",
      'delta 0 "Answer "',
      'delta 0 "zero"',
      "block_complete 0 text",
      "block_start 1 tool_use call_zero get_weather",
      'delta 1 "{\\"city\\":\\"Oslo\\"}"',
      "block_complete 1 tool_use",
    ]);
    // The only choice of a chunk has index 1: nothing of it reaches the message, not even its finish_reason.
    const alone = 'data: {"choices":[{"index":0,"delta":{"content":"ok"}}]}\n\ndata: {"choices":[{"index":1,"delta":{"content":"NO","tool_calls":[{"index":0,"id":"c","function":{"name":"n","arguments":"{}"}}]},"finish_reason":"length"}]}\n\ndata: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
    expect(message([Buffer.from(alone)])).toEqual({ role: "assistant", content: [{ type: "text", text: "ok" }], stop_reason: "end_turn", stop_reason_raw: "stop" });
  });

  it("an unknown finish_reason is 'unknown', keeping the raw value", () => {
    const body = 'data: {"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"eos_token"}]}\n\ndata: [DONE]\n\n';
    expect(message([Buffer.from(body)])).toMatchObject({ stop_reason: "unknown", stop_reason_raw: "eos_token" });
  });

  it("the same message at every split point, byte by byte, and inside every UTF-8 sequence", () => {
    for (const name of WELL_FORMED) {
      const bytes = fixture(name);
      const expected = message([bytes]);
      expect(message(splitEveryByte(bytes)), name).toEqual(expected);
      expect(message(splitAt(bytes, utf8InteriorOffsets(bytes))), name).toEqual(expected);
      for (let i = 1; i < bytes.length; i += 7) expect(message(splitAt(bytes, [i])), `${name} cut at ${i}`).toEqual(expected);
    }
  });

  it("a stream without [DONE] is not a message", () => {
    const bytes = fixture("plain-text");
    const cut = bytes.indexOf("data: [DONE]");
    expect(assemble([bytes.subarray(0, cut)]).result).toBe("truncated");
  });

  it.each(WELL_FORMED)("matches the openai SDK's assembly of %s (same bytes, small pieces)", async (name) => {
    const bytes = fixture(name);
    const sdk = await sdkAssemble(splitEvery(bytes, 3));
    expect(awlAssembled(message(splitEvery(bytes, 3)))).toEqual(sdk);
  });
});
