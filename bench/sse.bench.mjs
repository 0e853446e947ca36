// SSE + OpenAI assembly throughput and per-delta latency (issue 2 item 11).
// Throughput: one ~10 MB OpenAI-style stream, fed in 16 KB reads, parsed by awl (SSE + assembly), by
// eventsource-parser alone (framing only, no JSON), and by the openai SDK (its SSE decoder + ChatCompletionStream).
// Latency: a server in a worker thread writes one delta at a time carrying its own send time
// (process.hrtime, a clock shared by all threads). For each delta awl's client records when node:http's
// `data` event delivered it (the loopback floor) and when awl's `onContentDelta` ran: both on the same
// server write, so their per-delta difference is awl's own work (SSE framing, JSON, assembly, callbacks).
import { Worker } from "node:worker_threads";
import { IncomingMessage } from "node:http";
import { createParser } from "eventsource-parser";
import OpenAI from "openai";
import { createSseDecoder } from "../dist/providers/sse.js";
import { ChatCompletionAssembler } from "../dist/providers/openai/assembler.js";
import { createProvider } from "../dist/providers/create.js";
import { Conversation } from "../dist/model/conversation.js";
import { median, percentile } from "./support.mjs";

const RUNS = 7;
const READ_SIZE = 16 * 1024;
const TARGET_BYTES = 10 * 1024 * 1024;


/** A realistic stream: reasoning, then text in small deltas, then a tool call, usage, [DONE]. */
function buildStream() {
  const head = { id: "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG", object: "chat.completion.chunk", created: 1741569952, model: "gpt-4o-mini-2024-07-18", service_tier: "default", system_fingerprint: "fp_f9f4fb6dbf" };
  const chunk = (delta, finish = null) => `data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage: null })}\n\n`;
  const words = ["The", " quick", " brown", " fox", " — jumps", " over", " the", " lazy", " dog", ".", "\n", " Ünïcödé", " 日本語", " text", " 🎉"];
  const parts = [chunk({ role: "assistant", content: "", refusal: null })];
  let size = parts[0].length;
  let i = 0;
  while (size < TARGET_BYTES * 0.1) {
    const c = chunk({ reasoning_content: words[i++ % words.length] });
    parts.push(c);
    size += c.length;
  }
  while (size < TARGET_BYTES * 0.95) {
    const c = chunk({ content: words[i++ % words.length] });
    parts.push(c);
    size += c.length;
  }
  parts.push(chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "write_file", arguments: "" } }] }));
  while (size < TARGET_BYTES) {
    const c = chunk({ tool_calls: [{ index: 0, function: { arguments: '"line of a file\\n", ' } }] });
    parts.push(c);
    size += c.length;
  }
  parts.push(chunk({}, "tool_calls"));
  parts.push(`data: ${JSON.stringify({ ...head, choices: [], usage: { prompt_tokens: 10, completion_tokens: parts.length, total_tokens: parts.length + 10 } })}\n\n`);
  parts.push("data: [DONE]\n\n");
  const bytes = Buffer.from(parts.join(""), "utf8");
  const reads = [];
  for (let o = 0; o < bytes.length; o += READ_SIZE) reads.push(bytes.subarray(o, o + READ_SIZE));
  return { bytes, reads, events: parts.length };
}

function awlAssemble(reads) {
  let deltas = 0;
  const receiver = { onContentDelta: () => void deltas++ };
  const assembler = new ChatCompletionAssembler(receiver, "bench");
  let verdict;
  const decoder = createSseDecoder((event) => {
    if (verdict === undefined) verdict = assembler.onEvent(event);
  });
  for (const read of reads) decoder.push(read);
  decoder.end();
  if (verdict !== "done") throw new Error(`awl did not finish: ${JSON.stringify(verdict)}`);
  return assembler.finish();
}

function parserAlone(reads) {
  let events = 0;
  const text = new TextDecoder();
  const parser = createParser({ onEvent: () => void events++ });
  for (const read of reads) parser.feed(text.decode(read, { stream: true }));
  return events;
}

async function sdkAssemble(reads) {
  const fetch = async () =>
    new Response(
      new ReadableStream({
        start(controller) {
          for (const read of reads) controller.enqueue(new Uint8Array(read.buffer, read.byteOffset, read.byteLength));
          controller.close();
        },
      }),
      { status: 200, headers: { "content-type": "text/event-stream" } },
    );
  const client = new OpenAI({ apiKey: "bench", baseURL: "http://bench.invalid/v1", fetch, maxRetries: 0 });
  const stream = client.chat.completions.stream({ model: "m", messages: [{ role: "user", content: "x" }] });
  return stream.finalChatCompletion();
}

async function timeRuns(fn) {
  const times = [];
  for (let r = 0; r < RUNS + 1; r++) {
    globalThis.gc?.();
    const start = performance.now();
    await fn();
    if (r > 0) times.push(performance.now() - start); // run 0 warms up
  }
  return median(times);
}

// ---- latency ----
const SERVER = `
const { createServer } = require("node:http");
const { parentPort, workerData } = require("node:worker_threads");
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.flushHeaders();
    let sent = 0;
    const tick = () => {
      if (sent === workerData.deltas) {
        res.end('data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\\n\\ndata: [DONE]\\n\\n');
        return;
      }
      sent++;
      const now = process.hrtime.bigint().toString();
      res.write('data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"' + now + '"},"finish_reason":null}]}\\n\\n');
      setTimeout(tick, workerData.gapMs);
    };
    tick();
  });
});
server.on("connection", (s) => s.setNoDelay(true));
server.listen(0, "127.0.0.1", () => parentPort.postMessage(server.address().port));
`;

async function withServer(deltas, fn) {
  const worker = new Worker(SERVER, { eval: true, workerData: { deltas, gapMs: 1 } });
  const port = await new Promise((resolve) => worker.once("message", resolve));
  try {
    return await fn(`http://127.0.0.1:${port}`);
  } finally {
    await worker.terminate();
  }
}

const DELTAS = 2000;

/**
 * One awl stream; per delta: `floor` (send → node:http `data` event), `awl` (send → onContentDelta) and
 * `own` (data event → onContentDelta, the same write), in ms. The `data` hook only notes the time and keeps
 * the chunk; the chunks are read after the stream, so the hook adds nothing to what awl is timed on.
 */
async function latencyAwl(url) {
  const provider = await createProvider({ provider: "openai", model: "m", baseUrl: `${url}/v1`, maxRetries: 0, stallTimeoutMs: 10_000 });
  const arrivals = [];
  const emit = IncomingMessage.prototype.emit;
  IncomingMessage.prototype.emit = function (event, ...args) {
    if (event === "data") arrivals.push({ at: process.hrtime.bigint(), chunk: args[0] });
    return emit.call(this, event, ...args);
  };
  const delivered = [];
  const conversation = new Conversation();
  conversation.addUserMessage("go");
  let result;
  try {
    result = await provider.streamStep(conversation, { onContentDelta: (_i, delta) => delivered.push({ at: process.hrtime.bigint(), sent: delta }) });
  } finally {
    IncomingMessage.prototype.emit = emit;
  }
  if (!result.ok) throw new Error(result.error.message);
  const arrivedAt = new Map();
  for (const { at, chunk } of arrivals) for (const m of chunk.toString("utf8").matchAll(/"content":"(\d+)"/g)) arrivedAt.set(m[1], at);
  const ms = (ns) => Number(ns) / 1e6;
  const samples = { floor: [], awl: [], own: [] };
  for (const { at, sent } of delivered) {
    const arrived = arrivedAt.get(sent);
    if (arrived === undefined) continue; // a delta split across reads: its timestamp is in no single chunk
    samples.floor.push(ms(arrived - BigInt(sent)));
    samples.awl.push(ms(at - BigInt(sent)));
    samples.own.push(ms(at - arrived));
  }
  return samples;
}

const { bytes, reads, events } = buildStream();
const mb = bytes.length / 1e6;
const check = awlAssemble(reads);
const sdkCheck = await sdkAssemble(reads);
if (check.content[1].text !== sdkCheck.choices[0].message.content) throw new Error("awl and the SDK disagree on the text");

const awlMs = await timeRuns(() => awlAssemble(reads));
const parserMs = await timeRuns(() => parserAlone(reads));
const sdkMs = await timeRuns(() => sdkAssemble(reads));

// Each figure is the median over rounds of that round's percentile.
const LATENCY_ROUNDS = 3;
const rounds = [];
for (let r = 0; r < LATENCY_ROUNDS; r++) rounds.push(await withServer(DELTAS, latencyAwl));
const pct = (name, p) => median(rounds.map((samples) => percentile(samples[name], p / 100)));
const paired = median(rounds.map((samples) => samples.own.length));
const fmt = (ms) => (ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`);

console.log(`## Streaming (OpenAI-compatible)

Throughput on one ${mb.toFixed(1)} MB stream of ${events} events in ${READ_SIZE / 1024} KB reads (median of ${RUNS} runs):

| parser | time | MB/s | vs openai SDK |
| --- | --- | --- | --- |
| awl: SSE + assembly (Receiver calls, final Message) | ${awlMs.toFixed(0)} ms | ${(mb / (awlMs / 1000)).toFixed(0)} | ${(sdkMs / awlMs).toFixed(2)}× |
| eventsource-parser alone (framing, no JSON) | ${parserMs.toFixed(0)} ms | ${(mb / (parserMs / 1000)).toFixed(0)} | ${(sdkMs / parserMs).toFixed(2)}× |
| openai SDK: SSE + ChatCompletionStream | ${sdkMs.toFixed(0)} ms | ${(mb / (sdkMs / 1000)).toFixed(0)} | 1.00× |

Latency per delta over loopback (${DELTAS} deltas 1 ms apart, server in a worker thread; each figure the median of
${LATENCY_ROUNDS} rounds' percentile). All three rows are measured on the same server writes (${paired} deltas
paired per round), so the last row is awl's own work per delta, not a difference of separate runs:

| measure, per delta | p50 | p99 |
| --- | --- | --- |
| server write → node:http \`data\` event (the loopback floor) | ${fmt(pct("floor", 50))} | ${fmt(pct("floor", 99))} |
| server write → awl \`onContentDelta\` | ${fmt(pct("awl", 50))} | ${fmt(pct("awl", 99))} |
| awl's own work: \`data\` event → \`onContentDelta\` | ${fmt(pct("own", 50))} | ${fmt(pct("own", 99))} |

Targets: throughput ≥ the SDK's; p50 latency < 1 ms.
`);
