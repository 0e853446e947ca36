// Anthropic stream assembly throughput: awl (SSE decoder + AnthropicAssembler) beside @anthropic-ai/sdk
// (`messages.stream().finalMessage()` over a custom fetch) on the same ~10 MB stream, fed in 16 KiB reads.
// Target (issue 3): awl at least as fast as the SDK. Run: `npm run bench -- anthropic`.
import Anthropic from "@anthropic-ai/sdk";
import { performance } from "node:perf_hooks";
import { AnthropicAssembler } from "../dist/providers/anthropic/assembler.js";
import { compareParsers, quietReceiver, runAwlAssembler, sseResponse, toReads, wordPieces } from "./stream-compare.mjs";

const TARGET_BYTES = 10 * 1024 * 1024;
const RUNS = 9;

/** A realistic message: one long thinking block, a long answer, then a tool call with a large input, in small deltas. */
function buildStream() {
  const events = [];
  const push = (event, data) => events.push(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  push("message_start", {
    type: "message_start",
    message: { id: "msg_bench", type: "message", role: "assistant", content: [], model: "claude-sonnet-4-5", stop_reason: null, stop_sequence: null, usage: { input_tokens: 2000, cache_creation_input_tokens: 0, cache_read_input_tokens: 1800, output_tokens: 1 } },
  });
  const piece = wordPieces();
  let size = 0;
  const block = (index, start, deltaOf, share, last) => {
    push("content_block_start", { type: "content_block_start", index, content_block: start });
    while (size < TARGET_BYTES * share) {
      const before = events.length;
      push("content_block_delta", { type: "content_block_delta", index, delta: deltaOf(piece(5)) });
      size += events[before].length;
    }
    if (last) push("content_block_delta", { type: "content_block_delta", index, delta: last });
    push("content_block_stop", { type: "content_block_stop", index });
  };
  const signature = { type: "signature_delta", signature: "EqQBCgIYAhIM".repeat(20) };
  block(0, { type: "thinking", thinking: "", signature: "" }, (t) => ({ type: "thinking_delta", thinking: t }), 0.3, signature);
  block(1, { type: "text", text: "" }, (t) => ({ type: "text_delta", text: t }), 0.8);
  // Tool input fragments: pieces of one JSON string value, as the API streams them.
  let first = true;
  block(2, { type: "tool_use", id: "toolu_bench", name: "write_file", input: {} }, (t) => {
    const json = (first ? '{"path":"out.txt","content":"' : "") + JSON.stringify(t).slice(1, -1);
    first = false;
    return { type: "input_json_delta", partial_json: json };
  }, 1, { type: "input_json_delta", partial_json: '"}' });
  push("message_delta", { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 999999 } });
  push("message_stop", { type: "message_stop" });
  const bytes = Buffer.from(events.join(""));
  return { bytes, reads: toReads(bytes) };
}

function runAwl(reads) {
  const { ms, message } = runAwlAssembler(new AnthropicAssembler(quietReceiver), reads);
  return { ms, summary: summarise(message.content.map((b) => b.text ?? b.thinking ?? b.input)) };
}

async function runSdk(reads) {
  const start = performance.now();
  const client = new Anthropic({
    apiKey: "bench",
    maxRetries: 0,
    fetch: async () => sseResponse(reads),
  });
  const message = await client.messages.stream({ model: "awl-bench", max_tokens: 64000, messages: [{ role: "user", content: "go" }] }).finalMessage();
  return {
    ms: performance.now() - start,
    summary: summarise(message.content.map((b) => (b.type === "tool_use" ? JSON.stringify(b.input) : b.text ?? b.thinking))),
  };
}

/** Lengths of each block's text: both sides must have assembled the same thing. */
function summarise(texts) {
  return texts.map((t) => (typeof t === "string" ? t.length : -1)).join(",");
}

const { bytes, reads } = buildStream();
await compareParsers({
  title: "Streaming (Anthropic)",
  about: { mb: bytes.length / (1024 * 1024), text: "Anthropic SSE stream: thinking, text, tool input", reads: reads.length },
  awlName: "awl (sse.ts + AnthropicAssembler)",
  sdkName: "@anthropic-ai/sdk messages.stream().finalMessage()",
  awl: () => runAwl(reads),
  sdk: () => runSdk(reads),
  runs: RUNS,
  // The SDK's tool input is re-serialised JSON; compare the text blocks' lengths.
  same: (a, b) => a.split(",").slice(0, 2).join() === b.split(",").slice(0, 2).join(),
});
