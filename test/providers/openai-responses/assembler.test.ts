/** The Responses assembler: Receiver call order, reasoning kept for the next request, and bad input (issue 29 item 1). */
import { describe, expect, it } from "vitest";
import { sseEvents } from "../../support/replay-server.js";
import { assemble, assembleMessage, fixture } from "./support.js";

const events = (...payloads: Array<Record<string, unknown>>): Buffer =>
  Buffer.from(sseEvents(payloads.map((data) => ({ event: String(data.type), data }))));
const completed = { type: "response.completed", response: { status: "completed", usage: { input_tokens: 1, output_tokens: 1 } } };

describe("Responses assembler", () => {
  it("streams text with the Receiver calls in order, split at every byte", () => {
    const outcome = assemble(fixture("text.sse"), 1);
    if (!("message" in outcome)) throw new Error("expected a message");
    expect(outcome.message).toEqual({
      role: "assistant",
      content: [{ type: "text", text: 'Hello, wörld — 👋 line two\nand "quotes"' }],
      stop_reason: "end_turn",
      stop_reason_raw: "completed",
      usage: { input_tokens: 24, output_tokens: 11, cache_read_input_tokens: 0, reasoning_tokens: 0 },
    });
    expect(outcome.calls[0]).toBe("block_start 0 text");
    expect(outcome.calls.at(-1)).toBe("block_complete 0 text");
    expect(outcome.calls.filter((c) => c.startsWith("delta")).length).toBe(3);
  });

  it("a reasoning summary is thinking that keeps the encrypted content; parallel calls stream their fragmented arguments", () => {
    const outcome = assemble(fixture("reasoning-tools.sse"), 5);
    if (!("message" in outcome)) throw new Error("expected a message");
    const [thinking, first, second] = outcome.message.content;
    expect(thinking).toMatchObject({ type: "thinking", origin: "openai-responses", signature: expect.stringMatching(/^gAAAAAB/) });
    expect(thinking).toHaveProperty("thinking", expect.stringContaining("both at once.\n\n**Checking units**"));
    expect(first).toEqual({ type: "tool_use", id: "call_Xq3vJ8Ljb2Wc0EwR1nT5", name: "get_weather", input: '{"location": "Paris, France"}' });
    expect(second).toEqual({ type: "tool_use", id: "call_7hKp2VzQm4Yr9NsT3dLe", name: "get_weather", input: '{"location": "Tokyo"}' });
    expect(outcome.message).toMatchObject({ stop_reason: "tool_use", usage: { input_tokens: 1820, output_tokens: 412, cache_read_input_tokens: 1536, reasoning_tokens: 320 } });
    expect(outcome.calls.filter((c) => c.startsWith("block_start"))).toEqual([
      "block_start 0 thinking",
      "block_start 1 tool_use call_Xq3vJ8Ljb2Wc0EwR1nT5 get_weather",
      "block_start 2 tool_use call_7hKp2VzQm4Yr9NsT3dLe get_weather",
    ]);
    expect(outcome.calls).toContain('delta 1 "ation\\": \\"Par"');
  });

  it("a reasoning item with no summary is an empty thinking block that still carries its encrypted content", () => {
    const message = assembleMessage(fixture("answer-after-tools.sse"));
    expect(message.content[0]).toEqual({ type: "thinking", thinking: "", signature: "gAAAAABor0A3Zm9vYmFyYmF6cXV4X3NlY29uZF90dXJuX2VuY3J5cHRlZF9yZWFzb25pbmdfZGF0YQ==", origin: "openai-responses" });
    expect(message.content[1]).toEqual({ type: "text", text: "Paris: 18°C, sunny. Tokyo: 22°C, cloudy." });
  });

  it("a refusal is text the user sees", () => {
    expect(assembleMessage(fixture("refusal.sse")).content).toEqual([{ type: "text", text: "I'm sorry, but I can't help with that." }]);
  });

  it("unknown event types change nothing and each is reported to the provider (which logs a type once)", () => {
    const outcome = assemble(fixture("unknown-events.sse"), 7);
    if (!("message" in outcome)) throw new Error("expected a message");
    expect(outcome.message.content).toEqual([{ type: "text", text: "Hi!" }]);
    expect(outcome.unknown).toEqual(["response.future_feature.delta", "response.future_feature.delta", "response.future_feature.delta", "response.other_future.done"]);
  });

  it("response.incomplete for max_output_tokens is max_tokens, with the text so far", () => {
    expect(assembleMessage(fixture("incomplete.sse"))).toMatchObject({ stop_reason: "max_tokens", stop_reason_raw: "max_output_tokens", content: [{ type: "text", text: "The list begins: one, two, " }] });
  });

  it("an error event mid-stream is a retryable server error; response.failed for the context window is context_length", () => {
    expect(assemble(fixture("error.sse"))).toMatchObject({ error: { kind: "server", retryable: true, code: "server_error", message: expect.stringContaining("The server had an error") } });
    expect(assemble(fixture("failed-context.sse"))).toMatchObject({ error: { kind: "context_length", retryable: false, code: "context_length_exceeded" } });
  });

  it("a stream that ends without response.completed is incomplete (the driver calls it truncated)", () => {
    const bytes = fixture("text.sse");
    const cut = bytes.subarray(0, bytes.indexOf("event: response.completed"));
    expect(assemble(cut)).toMatchObject({ incomplete: true });
  });

  it("an item that streams while an earlier one is open is held back and replayed after it, in output order", () => {
    const outcome = assemble(
      events(
        { type: "response.output_item.added", output_index: 0, item: { type: "function_call", call_id: "call_a", name: "f", arguments: "" } },
        { type: "response.output_item.added", output_index: 1, item: { type: "function_call", call_id: "call_b", name: "g", arguments: "" } },
        { type: "response.function_call_arguments.delta", output_index: 1, delta: '{"b":' },
        { type: "response.function_call_arguments.delta", output_index: 0, delta: '{"a":1}' },
        { type: "response.function_call_arguments.delta", output_index: 1, delta: "2}" },
        { type: "response.output_item.done", output_index: 1, item: { type: "function_call", call_id: "call_b", name: "g", arguments: '{"b":2}' } },
        { type: "response.output_item.done", output_index: 0, item: { type: "function_call", call_id: "call_a", name: "f", arguments: '{"a":1}' } },
        completed,
      ),
    );
    if (!("message" in outcome)) throw new Error("expected a message");
    expect(outcome.calls).toEqual([
      "block_start 0 tool_use call_a f",
      'delta 0 "{\\"a\\":1}"',
      "block_complete 0 tool_use",
      "block_start 1 tool_use call_b g",
      'delta 1 "{\\"b\\":2}"',
      "block_complete 1 tool_use",
    ]);
  });

  it("server-side tool items and empty messages make no block; blank arguments are {}", () => {
    const message = assembleMessage(
      events(
        { type: "response.output_item.added", output_index: 0, item: { type: "web_search_call", id: "ws_1", status: "in_progress" } },
        { type: "response.output_item.added", output_index: 1, item: { type: "message", role: "assistant", content: [] } },
        { type: "response.output_item.done", output_index: 1, item: { type: "message", role: "assistant", content: [] } },
        { type: "response.output_item.added", output_index: 2, item: { type: "function_call", call_id: "call_z", name: "now", arguments: "" } },
        { type: "response.output_item.done", output_index: 2, item: { type: "function_call", call_id: "call_z", name: "now", arguments: " " } },
        completed,
      ),
    );
    expect(message.content).toEqual([{ type: "tool_use", id: "call_z", name: "now", input: "{}" }]);
  });

  it("reports a web_search_call in its place once done: its action as the input, a status other than completed as the error", () => {
    const search = (index: number, id: string, status: string) => [
      { type: "response.output_item.added", output_index: index, item: { type: "web_search_call", id, status: "in_progress" } },
      { type: "response.output_item.done", output_index: index, item: { type: "web_search_call", id, status, action: { type: "search", query: `q ${id}` } } },
    ];
    const outcome = assemble(
      events(
        ...search(0, "ws_a", "completed"),
        { type: "response.output_item.added", output_index: 1, item: { type: "message", role: "assistant", content: [] } },
        { type: "response.output_text.delta", output_index: 1, content_index: 0, delta: "Found." },
        { type: "response.output_item.done", output_index: 1, item: { type: "message", role: "assistant", content: [{ type: "output_text", text: "Found." }] } },
        ...search(2, "ws_b", "failed"),
        { type: "response.output_item.added", output_index: 3, item: { type: "web_search_call", id: "ws_c", status: "in_progress" } },
        completed,
      ),
    );
    expect(outcome.calls).toEqual([
      'server_tool ws_a web_search {"type":"search","query":"q ws_a"}',
      "block_start 0 text",
      'delta 0 "Found."',
      "block_complete 0 text",
      'server_tool ws_b web_search {"type":"search","query":"q ws_b"} error failed',
      "server_tool ws_c web_search {} error no result came before the response ended",
    ]);
  });

  it("malformed JSON is a bad_response naming the endpoint", () => {
    expect(assemble(Buffer.from("event: response.output_text.delta\ndata: {oops\n\n"))).toMatchObject({ error: { kind: "bad_response", message: expect.stringContaining("the test server") } });
  });
});
