import { describe, expect, it } from "vitest";
import { AnthropicAssembler } from "../../../src/providers/anthropic/assembler.js";
import { mapStopReason } from "../../../src/providers/anthropic/map-stop-reason.js";
import { recordingReceiver } from "../../support/recording-receiver.js";
import { assemble, assembleMessage, fixture, sse } from "./support.js";

const START = ["message_start", { type: "message_start", message: { usage: { input_tokens: 3, output_tokens: 1 } } }] as [string, unknown];
const STOP = ["message_stop", { type: "message_stop" }] as [string, unknown];
const textStart = (index: number): [string, unknown] => ["content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }];
const textDelta = (index: number, text: string): [string, unknown] => [
  "content_block_delta",
  { type: "content_block_delta", index, delta: { type: "text_delta", text } },
];
const d = (index: number, text: string): string => `delta ${index} ${JSON.stringify(text)}`;
const blockStop = (index: number): [string, unknown] => ["content_block_stop", { type: "content_block_stop", index }];

describe("Anthropic assembly (SPEC §3 rule 4)", () => {
  it("assembles text, calls the Receiver in order, and keeps cache usage", () => {
    const outcome = assemble(fixture("text.sse"));
    expect(outcome.calls).toEqual([
      "block_start 0 text",
      d(0, "Hello"),
      d(0, ", wörld — 👋 "),
      d(0, 'line two\nand "quotes"'),
      "block_complete 0 text",
    ]);
    expect("message" in outcome && outcome.message).toEqual({
      role: "assistant",
      content: [{ type: "text", text: 'Hello, wörld — 👋 line two\nand "quotes"' }],
      stop_reason: "end_turn",
      stop_reason_raw: "end_turn",
      usage: { input_tokens: 25, output_tokens: 15, cache_read_input_tokens: 1830, cache_creation_input_tokens: 0 },
    });
  });

  it("keeps thinking with its signature, text and a tool_use with its raw input", () => {
    const outcome = assemble(fixture("thinking-tool.sse"));
    expect(outcome.calls).toEqual([
      "block_start 0 thinking",
      d(0, "The user wants the weather. "),
      d(0, "I should call get_weather for Paris."),
      "block_complete 0 thinking",
      "block_start 1 text",
      d(1, "Let me check the weather in Paris."),
      "block_complete 1 text",
      "block_start 2 tool_use toolu_01T1x1fJ34qAmk2tNTrN7Up6 get_weather",
      d(2, '{"location": "Par'),
      d(2, 'is, France", "unit": "celsius"}'),
      "block_complete 2 tool_use",
    ]);
    const message = "message" in outcome ? outcome.message : undefined;
    expect(message?.content).toEqual([
      {
        type: "thinking",
        thinking: "The user wants the weather. I should call get_weather for Paris.",
        signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds7wdjxOJwqyGbvDvOWyrGvQ4r2JpU5czTtIvlk3OBlL5EjcaQEEtZW0Q==",
      },
      { type: "text", text: "Let me check the weather in Paris." },
      { type: "tool_use", id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather", input: '{"location": "Paris, France", "unit": "celsius"}' },
    ]);
    expect(message?.stop_reason).toBe("tool_use");
    expect(message?.usage).toEqual({ input_tokens: 412, output_tokens: 89, cache_read_input_tokens: 0, cache_creation_input_tokens: 2048 });
  });

  it("assembles two parallel tool_use blocks; one without fragments has input {}", () => {
    const message = assembleMessage(fixture("parallel-tools.sse"));
    expect(message.content).toEqual([
      // The model's bytes are kept: the 20-digit number is not rounded.
      { type: "tool_use", id: "toolu_01Sp8Gc5YtPRjXB1vEhJ8WnE", name: "read_file", input: '{"path": "src/main.ts", "limit": 12345678901234567890}' },
      { type: "tool_use", id: "toolu_01Ho5gLq2kWqvKxTRhAHVbqz", name: "list_tools", input: "{}" },
    ]);
  });

  it("ignores ping, comments, unknown events, unknown delta types and block types it does not model; keeps a text's web citations", () => {
    const outcome = assemble(fixture("unknown-events.sse"));
    // The server_tool_use block (wire index 0) is skipped, so the text is awl's block 0; no result block came for
    // it, so it is reported at message_stop as unfinished.
    expect(outcome.calls).toEqual([
      "block_start 0 text",
      d(0, "Found it."),
      "block_complete 0 text",
      'server_tool srvtoolu_01 web_search {"query":"awl"} error no result came before the message ended',
    ]);
    const message = "message" in outcome ? outcome.message : undefined;
    expect(message?.content).toEqual([{ type: "text", text: "Found it.", citations: [{ url: "https://example.com", title: "Example", cited_text: "awl" }] }]);
    // message_delta usage replaces the message_start values field by field.
    expect(message?.usage).toEqual({ input_tokens: 12, output_tokens: 20, cache_read_input_tokens: 7 });
  });

  it("reports the provider's own search in its place, with its input, between the text blocks around it", () => {
    const outcome = assemble(fixture("web-search.sse"));
    const at = outcome.calls.findIndex((call) => call.startsWith("server_tool"));
    expect(outcome.calls.slice(at - 1, at + 2)).toEqual([
      "block_complete 0 text",
      'server_tool srvtoolu_014hJH82Qum7Td6UV8gDXThB web_search {"query":"claude shannon birth date"}',
      "block_start 1 text",
    ]);
  });

  it("reports a search that failed with the provider's error code, and a search input that is not JSON as it came", () => {
    const serverUse = (index: number, id: string): [string, unknown] => [
      "content_block_start",
      { type: "content_block_start", index, content_block: { type: "server_tool_use", id, name: "web_search", input: {} } },
    ];
    const inputDelta = (index: number, partial_json: string): [string, unknown] => [
      "content_block_delta",
      { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } },
    ];
    const result = (index: number, id: string, content: unknown): [string, unknown] => [
      "content_block_start",
      { type: "content_block_start", index, content_block: { type: "web_search_tool_result", tool_use_id: id, content } },
    ];
    const outcome = assemble(
      sse(
        START,
        serverUse(0, "srvtoolu_a"),
        inputDelta(0, '{"query": "one"}'),
        blockStop(0),
        result(1, "srvtoolu_a", { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" }),
        blockStop(1),
        serverUse(2, "srvtoolu_b"),
        inputDelta(2, '{"query": "tw'),
        blockStop(2),
        result(3, "srvtoolu_b", []),
        blockStop(3),
        textStart(4),
        textDelta(4, "Nothing found."),
        blockStop(4),
        STOP,
      ),
    );
    expect(outcome.calls).toEqual([
      'server_tool srvtoolu_a web_search {"query":"one"} error max_uses_exceeded',
      'server_tool srvtoolu_b web_search {"input":"{\\"query\\": \\"tw"}',
      "block_start 0 text",
      d(0, "Nothing found."),
      "block_complete 0 text",
    ]);
  });

  it("keeps redacted thinking opaque and maps refusal to content_filter", () => {
    const message = assembleMessage(fixture("redacted-thinking.sse"));
    expect(message.content[0]).toEqual({
      type: "thinking",
      thinking: "",
      redacted: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj2pabXIGCCb6R8MSIsr",
    });
    expect(message.stop_reason).toBe("content_filter");
    expect(message.stop_reason_raw).toBe("refusal");
  });

  it("gives the same message for every split, CRLF line ends, and UTF-8 split across reads", () => {
    for (const name of ["text.sse", "thinking-tool.sse", "parallel-tools.sse", "unknown-events.sse", "redacted-thinking.sse", "web-search.sse"]) {
      const bytes = fixture(name);
      const whole = assembleMessage(bytes);
      const crlf = Buffer.from(bytes.toString("utf8").replace(/\n/g, "\r\n"));
      for (const piece of [1, 2, 3, 7, 64]) {
        expect(assembleMessage(bytes, piece), `${name} in pieces of ${piece}`).toEqual(whole);
        expect(assembleMessage(crlf, piece), `${name} with CRLF in pieces of ${piece}`).toEqual(whole);
      }
    }
  });

  it("an in-stream overloaded_error is a retryable overloaded error, and no message is produced", () => {
    const outcome = assemble(fixture("overloaded-midstream.sse"));
    expect(outcome).toMatchObject({ error: { kind: "overloaded", retryable: true } });
    expect("error" in outcome && outcome.error.message).toContain("Overloaded");
  });

  it("classifies rate_limit_error, other error types, and an error event whose data is not JSON", () => {
    const kinds = ["rate_limit_error", "api_error", "invalid_request_error", "some_new_error"].map((type) => {
      const outcome = assemble(sse(START, ["error", { type: "error", error: { type, message: "m" } }]));
      return "error" in outcome ? [outcome.error.kind, outcome.error.retryable] : undefined;
    });
    expect(kinds).toEqual([["rate_limit", true], ["server", true], ["bad_request", false], ["stream_error", false]]);
    const text = assemble(Buffer.from("event: error\ndata: upstream exploded\n\n"));
    expect(text).toMatchObject({ error: { kind: "stream_error", message: expect.stringContaining("upstream exploded") } });
  });

  it("maps stop reasons and keeps unknown raw values", () => {
    const table = ["end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal", "model_context_window_exceeded", "pause_turn", "constructor"];
    expect(table.map(mapStopReason)).toEqual(["end_turn", "tool_use", "max_tokens", "end_turn", "content_filter", "max_tokens", "unknown", "unknown"]);
    const message = assembleMessage(sse(START, ["message_delta", { type: "message_delta", delta: { stop_reason: "pause_turn" } }], STOP));
    expect([message.stop_reason, message.stop_reason_raw]).toEqual(["unknown", "pause_turn"]);
    const none = assembleMessage(sse(START, STOP));
    expect([none.stop_reason, none.stop_reason_raw, none.content]).toEqual(["unknown", undefined, []]);
  });

  it("applies input_json_delta fragments that a re-encoder sends after stopping the tool block", () => {
    // Captured from claude-code-router 1.0.73 when the OpenAI upstream interleaves two tool calls.
    const outcome = assemble(fixture("ccr-interleaved-tools.sse"), 5);
    const message = "message" in outcome ? outcome.message : undefined;
    expect(message?.content).toEqual([
      { type: "text", text: "Hello" },
      { type: "tool_use", id: "call_a", name: "read", input: '{"path":"a.txt"}' },
      { type: "tool_use", id: "call_b", name: "ls", input: "{}" },
    ]);
    // Each block still sees start, deltas, complete in that order.
    expect(outcome.calls.filter((c) => /^(block_start|delta|block_complete) 1 /.test(c))).toEqual([
      "block_start 1 tool_use call_a read",
      d(1, '{"path":'),
      d(1, '"a.txt"}'),
      "block_complete 1 tool_use",
    ]);
  });
});

describe("Anthropic assembly: bad input is a classified error or a safe skip, never a crash", () => {
  it("a data line that is not JSON is a bad_response naming it", () => {
    const outcome = assemble(Buffer.concat([sse(START, textStart(0)), Buffer.from("event: content_block_delta\ndata: {not json\n\n")]));
    expect(outcome).toMatchObject({ error: { kind: "bad_response", retryable: false, message: expect.stringContaining("{not json") } });
  });

  it("JSON that is not an object is a bad_response", () => {
    expect(assemble(sse(START, ["content_block_delta", "[1,2]"]))).toMatchObject({ error: { kind: "bad_response" } });
  });

  it("a delta for a block index that never started is a bad_response", () => {
    const outcome = assemble(sse(START, textStart(0), textDelta(3, "lost"), blockStop(0), STOP));
    expect(outcome).toMatchObject({ error: { kind: "bad_response", message: expect.stringContaining("block 3, which never started") } });
  });

  it("a text delta after its block stopped is a bad_response", () => {
    const outcome = assemble(sse(START, textStart(0), textDelta(0, "a"), blockStop(0), textDelta(0, "late"), STOP));
    expect(outcome).toMatchObject({ error: { kind: "bad_response", message: expect.stringContaining("after its content_block_stop") } });
  });

  it("a delta of the wrong kind for its block is a bad_response", () => {
    const wrong: [string, unknown] = ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: "{}" } }];
    expect(assemble(sse(START, textStart(0), wrong))).toMatchObject({ error: { kind: "bad_response", message: expect.stringContaining("input_json_delta for the text block 0") } });
  });

  it("a content_block_stop for an unknown index, or a second one, is skipped", () => {
    const message = assembleMessage(sse(START, blockStop(5), textStart(0), textDelta(0, "ok"), blockStop(0), blockStop(0), STOP));
    expect(message.content).toEqual([{ type: "text", text: "ok" }]);
  });

  it("a second message_start, or a second start of the same block, is a bad_response", () => {
    expect(assemble(sse(START, START))).toMatchObject({ error: { kind: "bad_response" } });
    expect(assemble(sse(START, textStart(0), textStart(0)))).toMatchObject({ error: { kind: "bad_response" } });
  });

  it("a tool_use without an id is a bad_response; a block start without an index too", () => {
    const noId: [string, unknown] = ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "tool_use", name: "x", input: {} } }];
    expect(assemble(sse(START, noId))).toMatchObject({ error: { kind: "bad_response" } });
    const noIndex: [string, unknown] = ["content_block_start", { type: "content_block_start", content_block: { type: "text", text: "" } }];
    expect(assemble(sse(START, noIndex))).toMatchObject({ error: { kind: "bad_response" } });
  });

  it("a stream that ends without message_stop produces no message", () => {
    const outcome = assemble(sse(START, textStart(0), textDelta(0, "half")));
    expect(outcome).toMatchObject({ incomplete: true });
  });

  it("a block left open at message_stop is completed, and nothing after message_stop matters", () => {
    const receiver = recordingReceiver();
    const assembler = new AnthropicAssembler(receiver);
    const events = [START, textStart(0), textDelta(0, "kept"), STOP, textDelta(0, "ignored"), ["error", '{"type":"error"}'] as [string, unknown]];
    const signals = events.map(([event, data]) => assembler.onEvent({ event, data: typeof data === "string" ? data : JSON.stringify(data) }));
    expect(signals).toEqual([undefined, undefined, undefined, "done", "done", "done"]);
    expect(assembler.finish().content).toEqual([{ type: "text", text: "kept" }]);
    expect(receiver.calls).toEqual(["block_start 0 text", d(0, "kept"), "block_complete 0 text"]);
  });

  it("the content of a content_block_start counts as its first delta", () => {
    const start: [string, unknown] = ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "t1", name: "n", input: { a: 1 } } }];
    expect(assembleMessage(sse(START, start, blockStop(0), STOP)).content).toEqual([{ type: "tool_use", id: "t1", name: "n", input: '{"a":1}' }]);
  });
});
