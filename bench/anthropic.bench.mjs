// Anthropic stream assembly throughput: awl (SSE decoder + AnthropicAssembler) beside @anthropic-ai/sdk
// (`messages.stream().finalMessage()` over a custom fetch) on the same ~10 MB stream, fed in 16 KiB reads.
// Target (issue 3): awl at least as fast as the SDK. Run: `npm run bench -- anthropic`.
import Anthropic from "@anthropic-ai/sdk";
import { performance } from "node:perf_hooks";
import { AnthropicAssembler } from "../dist/providers/anthropic/assembler.js";
import { createSseDecoder } from "../dist/providers/sse.js";
import { median } from "./support.mjs";

const TARGET_BYTES = 10 * 1024 * 1024;
const READ_BYTES = 16 * 1024;
const RUNS = 9;
const WARMUP = 2;

/** A realistic message: one long thinking block, a long answer, then a tool call with a large input, in small deltas. */
function buildStream() {
  const events = [];
  const push = (event, data) => events.push(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  push("message_start", {
    type: "message_start",
    message: { id: "msg_bench", type: "message", role: "assistant", content: [], model: "claude-sonnet-4-5", stop_reason: null, stop_sequence: null, usage: { input_tokens: 2000, cache_creation_input_tokens: 0, cache_read_input_tokens: 1800, output_tokens: 1 } },
  });
  const words = "the quick brown fox jumps over a lazy dog while naïve café owners sip crème brûlée — ok? \"yes\"\n".split(" ");
  let w = 0;
  const piece = (n) => {
    let s = "";
    for (let i = 0; i < n; i++) s += words[w++ % words.length] + " ";
    return s;
  };
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
  const reads = [];
  for (let i = 0; i < bytes.length; i += READ_BYTES) reads.push(bytes.subarray(i, i + READ_BYTES));
  return { bytes, reads };
}

const noop = () => {};
const receiver = { onMessageStart: noop, onBlockStart: noop, onContentDelta: noop, onBlockComplete: noop, onMessageComplete: noop };

function runAwl(reads) {
  const start = performance.now();
  const assembler = new AnthropicAssembler(receiver);
  let verdict;
  const decoder = createSseDecoder((event) => {
    if (verdict === undefined) verdict = assembler.onEvent(event);
  });
  for (const read of reads) {
    decoder.push(read);
    if (verdict !== undefined) break;
  }
  if (verdict !== "done") throw new Error(`awl did not finish: ${JSON.stringify(verdict)}`);
  const message = assembler.finish();
  return { ms: performance.now() - start, summary: summarise(message.content.map((b) => b.text ?? b.thinking ?? b.input)) };
}

async function runSdk(reads) {
  const start = performance.now();
  const client = new Anthropic({
    apiKey: "bench",
    maxRetries: 0,
    fetch: async () =>
      new Response(
        new ReadableStream({
          start(controller) {
            for (const read of reads) controller.enqueue(read);
            controller.close();
          },
        }),
        { status: 200, headers: { "content-type": "text/event-stream" } },
      ),
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
const mb = bytes.length / (1024 * 1024);
const awlTimes = [];
const sdkTimes = [];
let awlSummary;
let sdkSummary;
for (let i = 0; i < WARMUP + RUNS; i++) {
  globalThis.gc?.();
  const a = runAwl(reads);
  globalThis.gc?.();
  const s = await runSdk(reads);
  awlSummary = a.summary;
  sdkSummary = s.summary;
  if (i >= WARMUP) {
    awlTimes.push(a.ms);
    sdkTimes.push(s.ms);
  }
}
// The SDK's tool input is re-serialised JSON; compare the text blocks' lengths, and the tool input loosely.
if (awlSummary.split(",").slice(0, 2).join() !== sdkSummary.split(",").slice(0, 2).join())
  throw new Error(`awl and the SDK disagree: ${awlSummary} vs ${sdkSummary}`);

const awlMs = median(awlTimes);
const sdkMs = median(sdkTimes);
console.log("## Streaming (Anthropic)\n");
console.log(`${mb.toFixed(1)} MB Anthropic SSE stream (thinking, text, tool input; ${reads.length} reads of 16 KiB), median of ${RUNS} runs.\n`);
console.log("| parser | median | throughput |");
console.log("| --- | --- | --- |");
console.log(`| awl (sse.ts + AnthropicAssembler) | ${awlMs.toFixed(1)} ms | ${(mb / (awlMs / 1000)).toFixed(1)} MB/s |`);
console.log(`| @anthropic-ai/sdk messages.stream().finalMessage() | ${sdkMs.toFixed(1)} ms | ${(mb / (sdkMs / 1000)).toFixed(1)} MB/s |`);
console.log(`\nawl / SDK throughput: **${(sdkMs / awlMs).toFixed(2)}×** (target ≥ 1.00×)\n`);
