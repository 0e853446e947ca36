// OpenAI Responses stream assembly throughput: awl (SSE decoder + ResponsesAssembler) beside the openai SDK
// (`responses.stream().finalResponse()` over a custom fetch) on the same ~10 MB stream, fed in 16 KiB reads.
// Target (issue 29): awl at least as fast as the SDK. Run: `npm run bench -- responses`.
import OpenAI from "openai";
import { performance } from "node:perf_hooks";
import { ResponsesAssembler } from "../dist/providers/openai-responses/assembler.js";
import { compareParsers, quietReceiver, runAwlAssembler, sseResponse, toReads, wordPieces } from "./stream-compare.mjs";

const TARGET_BYTES = 10 * 1024 * 1024;

/** A realistic response: a reasoning summary, a long answer, then a function call with large arguments, in small deltas. */
function buildStream() {
  const events = [];
  let seq = 0;
  const push = (data) => events.push(`event: ${data.type}\ndata: ${JSON.stringify({ ...data, sequence_number: seq++ })}\n\n`);
  const response = (status, extra = {}) => ({ id: "resp_bench", object: "response", created_at: 1, status, model: "gpt-5-mini", output: [], store: false, usage: null, ...extra });
  push({ type: "response.created", response: response("in_progress") });
  const piece = wordPieces();
  let size = 0;
  const fill = (share, delta) => {
    let text = "";
    while (size < TARGET_BYTES * share) {
      const t = piece(5);
      text += t;
      const before = events.length;
      push(delta(t));
      size += events[before].length;
    }
    return text;
  };
  const rs = { id: "rs_bench", type: "reasoning", summary: [] };
  push({ type: "response.output_item.added", output_index: 0, item: rs });
  push({ type: "response.reasoning_summary_part.added", item_id: "rs_bench", output_index: 0, summary_index: 0, part: { type: "summary_text", text: "" } });
  const summary = fill(0.3, (t) => ({ type: "response.reasoning_summary_text.delta", item_id: "rs_bench", output_index: 0, summary_index: 0, delta: t }));
  push({ type: "response.reasoning_summary_part.done", item_id: "rs_bench", output_index: 0, summary_index: 0, part: { type: "summary_text", text: summary } });
  const reasoningItem = { ...rs, summary: [{ type: "summary_text", text: summary }], encrypted_content: "gAAAAAB".repeat(200) };
  push({ type: "response.output_item.done", output_index: 0, item: reasoningItem });
  push({ type: "response.output_item.added", output_index: 1, item: { id: "msg_bench", type: "message", role: "assistant", status: "in_progress", content: [] } });
  push({ type: "response.content_part.added", item_id: "msg_bench", output_index: 1, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
  const text = fill(0.8, (t) => ({ type: "response.output_text.delta", item_id: "msg_bench", output_index: 1, content_index: 0, delta: t, logprobs: [] }));
  push({ type: "response.output_text.done", item_id: "msg_bench", output_index: 1, content_index: 0, text, logprobs: [] });
  const part = { type: "output_text", text, annotations: [] };
  push({ type: "response.content_part.done", item_id: "msg_bench", output_index: 1, content_index: 0, part });
  const messageItem = { id: "msg_bench", type: "message", role: "assistant", status: "completed", content: [part] };
  push({ type: "response.output_item.done", output_index: 1, item: messageItem });
  const call = { id: "fc_bench", type: "function_call", call_id: "call_bench", name: "write_file", arguments: "", status: "in_progress" };
  push({ type: "response.output_item.added", output_index: 2, item: call });
  let args = "";
  let first = true;
  fill(1, (t) => {
    const fragment = (first ? '{"path":"out.txt","content":"' : "") + JSON.stringify(t).slice(1, -1);
    first = false;
    args += fragment;
    return { type: "response.function_call_arguments.delta", item_id: "fc_bench", output_index: 2, delta: fragment };
  });
  push({ type: "response.function_call_arguments.delta", item_id: "fc_bench", output_index: 2, delta: '"}' });
  args += '"}';
  push({ type: "response.function_call_arguments.done", item_id: "fc_bench", output_index: 2, arguments: args });
  const callItem = { ...call, arguments: args, status: "completed" };
  push({ type: "response.output_item.done", output_index: 2, item: callItem });
  // As OpenAI sends it, the completed response repeats the whole output.
  push({ type: "response.completed", response: response("completed", { output: [reasoningItem, messageItem, callItem], usage: { input_tokens: 2000, input_tokens_details: { cached_tokens: 1800 }, output_tokens: 999999, output_tokens_details: { reasoning_tokens: 1000 }, total_tokens: 1001999 } }) });
  const bytes = Buffer.from(events.join(""));
  return { bytes, reads: toReads(bytes) };
}

function runAwl(reads) {
  const { ms, message } = runAwlAssembler(new ResponsesAssembler(quietReceiver, "bench"), reads);
  return { ms, summary: message.content.map((b) => (b.text ?? b.thinking ?? b.input).length).join(",") };
}

async function runSdk(reads) {
  const start = performance.now();
  const fetch = async () => sseResponse(reads);
  const client = new OpenAI({ apiKey: "bench", baseURL: "http://bench.invalid/v1", fetch, maxRetries: 0 });
  const response = await client.responses.stream({ model: "gpt-5-mini", input: "go" }).finalResponse();
  const lengths = response.output.map((item) =>
    item.type === "reasoning" ? item.summary.map((s) => s.text).join("").length : item.type === "message" ? item.content.map((c) => c.text).join("").length : item.arguments.length,
  );
  return { ms: performance.now() - start, summary: lengths.join(",") };
}

const { bytes, reads } = buildStream();
await compareParsers({
  title: "Streaming (OpenAI Responses)",
  about: { mb: bytes.length / (1024 * 1024), text: "Responses SSE stream: reasoning summary, text, function-call arguments", reads: reads.length },
  awlName: "awl (sse.ts + ResponsesAssembler)",
  sdkName: "openai SDK responses.stream().finalResponse()",
  awl: () => runAwl(reads),
  sdk: () => runSdk(reads),
});
