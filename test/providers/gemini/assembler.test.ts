/** The Gemini assembler: Receiver call order, thought signatures kept, finish reasons and bad input (issue 29 item 2). */
import { describe, expect, it } from "vitest";
import { sseData } from "../../support/replay-server.js";
import { assemble, assembleMessage, fixture } from "./support.js";

const chunks = (...payloads: unknown[]): Buffer => Buffer.from(sseData(payloads, "\r\n"));

describe("Gemini assembler", () => {
  it("streams text as one block, split at every byte across CRLF and UTF-8 sequences", () => {
    const outcome = assemble(fixture("text.sse"), 1);
    if (!("message" in outcome)) throw new Error("expected a message");
    expect(outcome.message).toEqual({
      role: "assistant",
      content: [{ type: "text", text: 'Hello, wörld — 👋 line two\nand "quotes"' }],
      stop_reason: "end_turn",
      stop_reason_raw: "STOP",
      usage: { input_tokens: 8, output_tokens: 11 },
    });
    expect(outcome.calls[0]).toBe("block_start 0 text");
    expect(outcome.calls.at(-1)).toBe("block_complete 0 text");
  });

  it("thoughts are thinking; a signature on a function call is kept just before it; parallel calls are blocks in order", () => {
    const outcome = assemble(fixture("thoughts-parallel-calls.sse"), 4);
    if (!("message" in outcome)) throw new Error("expected a message");
    const [thought, signature, paris, tokyo] = outcome.message.content;
    expect(thought).toEqual({ type: "thinking", thinking: "**Planning the lookup**\n\nThe user wants the weather in Paris and Tokyo; I'll call get_weather for both." });
    expect(signature).toEqual({ type: "thinking", thinking: "", signature: expect.stringMatching(/^CiQB0e2K/), origin: "gemini" });
    expect(paris).toMatchObject({ type: "tool_use", name: "get_weather", input: '{"location":"Paris, France"}', id: expect.stringMatching(/^awl_gc_[0-9a-f]{12}$/) });
    expect(tokyo).toMatchObject({ type: "tool_use", name: "get_weather", input: '{"location":"Tokyo"}' });
    expect((paris as { id: string }).id).not.toBe((tokyo as { id: string }).id);
    expect(outcome.message).toMatchObject({ stop_reason: "tool_use", usage: { input_tokens: 1216, output_tokens: 119, cache_read_input_tokens: 1024, reasoning_tokens: 88 } });
  });

  it("a signature on a closing empty text part is kept as a block of its own", () => {
    const message = assembleMessage(fixture("answer-after-calls.sse"));
    expect(message.content).toEqual([
      { type: "text", text: "Paris: 18°C, sunny. Tokyo: 22°C, cloudy." },
      { type: "thinking", thinking: "", signature: expect.stringMatching(/^CiIB/), origin: "gemini" },
    ]);
  });

  it("a stream that ends without finishReason is incomplete (the driver calls it truncated)", () => {
    expect(assemble(fixture("no-finish.sse"))).toMatchObject({ incomplete: true });
  });

  it("SAFETY with nothing produced is an error that says the safety filters blocked the answer", () => {
    expect(assemble(fixture("safety.sse"))).toMatchObject({ error: { kind: "bad_request", retryable: false, code: "SAFETY", message: "Gemini's safety filters blocked the answer (finishReason SAFETY)" } });
  });

  it("a blocked prompt is an error naming the block reason", () => {
    expect(assemble(fixture("prompt-blocked.sse"))).toMatchObject({ error: { kind: "bad_request", code: "PROHIBITED_CONTENT", message: expect.stringContaining("Gemini refused the prompt (blockReason PROHIBITED_CONTENT)") } });
  });

  it("MALFORMED_FUNCTION_CALL is an error with Gemini's finishMessage", () => {
    expect(assemble(fixture("malformed-call.sse"))).toMatchObject({
      error: { kind: "bad_request", code: "MALFORMED_FUNCTION_CALL", message: expect.stringMatching(/^the model produced a tool call Gemini could not parse \(finishReason MALFORMED_FUNCTION_CALL\): Malformed function call: print/) },
    });
  });

  it("SAFETY after some text keeps the text with stop reason content_filter; MAX_TOKENS is max_tokens", () => {
    const filtered = assembleMessage(chunks({ candidates: [{ content: { parts: [{ text: "Step one is" }], role: "model" } }] }, { candidates: [{ finishReason: "SAFETY" }] }));
    expect(filtered).toMatchObject({ stop_reason: "content_filter", stop_reason_raw: "SAFETY", content: [{ type: "text", text: "Step one is" }] });
    expect(assembleMessage(fixture("max-tokens.sse"))).toMatchObject({ stop_reason: "max_tokens", stop_reason_raw: "MAX_TOKENS" });
  });

  it("an error object mid-stream is classified by its code: 503 is a retryable server error", () => {
    expect(assemble(fixture("error.sse"))).toMatchObject({ error: { kind: "server", retryable: true, code: "UNAVAILABLE", message: expect.stringContaining("The model is overloaded") } });
  });

  it("a signed thought keeps its signature; a Gemini function call id is kept; an image from the model is an image block", () => {
    const message = assembleMessage(
      chunks(
        { candidates: [{ content: { parts: [{ text: "Thinking.", thought: true, thoughtSignature: "c2ln" }] } }] },
        { candidates: [{ content: { parts: [{ functionCall: { id: "fc-7", name: "now", args: {} } }, { inlineData: { mimeType: "image/png", data: "iVBO" } }] }, finishReason: "STOP" }] },
      ),
    );
    expect(message.content).toEqual([
      { type: "thinking", thinking: "Thinking.", signature: "c2ln", origin: "gemini" },
      { type: "tool_use", id: "fc-7", name: "now", input: "{}" },
      { type: "image", media_type: "image/png", data: "iVBO" },
    ]);
  });

  it("image.sse (an image model's answer): text, then the image as an image block, each part's signature kept before it", () => {
    const outcome = assemble(fixture("image.sse"), 1);
    if (!("message" in outcome)) throw new Error(JSON.stringify(outcome));
    const { message, calls } = outcome;
    expect(message.content).toEqual([
      { type: "thinking", thinking: "", signature: "CiQBAdHtim9sZWdlIHRoZSBzaWduYXR1cmUgb2YgdGhlIHRleHQ=", origin: "gemini" },
      { type: "text", text: "Here is a red square:" },
      { type: "thinking", thinking: "", signature: "CiIBAdHtim9pbWFnZSBzaWduYXR1cmU=", origin: "gemini" },
      { type: "image", media_type: "image/png", data: expect.stringMatching(/^iVBORw0KGgo/) },
    ]);
    expect(message).toMatchObject({ stop_reason: "end_turn", usage: { input_tokens: 12, output_tokens: 1295 } });
    expect(calls.filter((c) => c.includes("image"))).toEqual(["block_start 3 image", "block_complete 3 image"]);
  });

  it("an image part without data or type is a note, not a broken image block", () => {
    const message = assembleMessage(chunks({ candidates: [{ content: { parts: [{ inlineData: { mimeType: "image/png" } }] }, finishReason: "STOP" }] }));
    expect(message.content).toEqual([{ type: "text", text: "[the model sent an image awl could not read (no data)]" }]);
  });
});
