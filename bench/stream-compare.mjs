// Shared by the stream-throughput benches (anthropic, responses, gemini): the same reads fed to awl's SSE decoder
// and a wire API's assembler, and to an official SDK, timed in turns; the table each prints.
import { performance } from "node:perf_hooks";
import { createSseDecoder } from "../dist/providers/sse.js";
import { median } from "./support.mjs";

export const READ_BYTES = 16 * 1024;

const noop = () => {};
/** A Receiver that does nothing: the benches time assembly, not drawing. */
export const quietReceiver = { onMessageStart: noop, onBlockStart: noop, onContentDelta: noop, onBlockComplete: noop, onMessageComplete: noop };

/** `piece(n)`: the next `n` words of a text with non-ASCII letters, quotes and newlines, as deltas of a long answer. */
export function wordPieces() {
  const words = "the quick brown fox jumps over a lazy dog while naïve café owners sip crème brûlée — ok? \"yes\"\n".split(" ");
  let w = 0;
  return (n) => {
    let s = "";
    for (let i = 0; i < n; i++) s += words[w++ % words.length] + " ";
    return s;
  };
}

/** `bytes` cut into reads of 16 KiB, as a socket delivers a long stream. */
export function toReads(bytes) {
  const reads = [];
  for (let i = 0; i < bytes.length; i += READ_BYTES) reads.push(bytes.subarray(i, i + READ_BYTES));
  return reads;
}

/** A fetch Response streaming `reads`, for SDKs that take a custom fetch. */
export function sseResponse(reads) {
  const body = new ReadableStream({
    start(controller) {
      for (const read of reads) controller.enqueue(read);
      controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
}

/**
 * Feeds `reads` through awl's SSE decoder (or another, e.g. Bedrock's event-stream decoder) into `assembler` as the
 * stream driver does; returns the message and the time.
 */
export function runAwlAssembler(assembler, reads, createDecoder = createSseDecoder) {
  const start = performance.now();
  let verdict;
  const decoder = createDecoder((event) => {
    if (verdict === undefined) verdict = assembler.onEvent(event);
  });
  for (const read of reads) {
    decoder.push(read);
    if (verdict !== undefined) break;
  }
  if (verdict === undefined) decoder.end();
  if (verdict === undefined && assembler.endOfStream) verdict = assembler.endOfStream();
  if (verdict !== "done") throw new Error(`awl did not finish: ${JSON.stringify(verdict)}`);
  const message = assembler.finish();
  return { ms: performance.now() - start, message };
}

/**
 * Runs `awl()` and `sdk()` (each `{ms, summary}`) in turns, checks their summaries agree (`same`, default
 * equality), and prints the section: `title`, a line about the stream, the table, the ratio.
 */
export async function compareParsers({ title, about, awlName, sdkName, awl, sdk, runs = 7, warmup = 2, same = (a, b) => a === b }) {
  const awlTimes = [];
  const sdkTimes = [];
  for (let i = 0; i < warmup + runs; i++) {
    globalThis.gc?.();
    const a = awl();
    globalThis.gc?.();
    const s = await sdk();
    if (!same(a.summary, s.summary)) throw new Error(`awl and the SDK disagree: ${a.summary} vs ${s.summary}`);
    if (i >= warmup) {
      awlTimes.push(a.ms);
      sdkTimes.push(s.ms);
    }
  }
  const awlMs = median(awlTimes);
  const sdkMs = median(sdkTimes);
  const mbps = (ms) => `${(about.mb / (ms / 1000)).toFixed(1)} MB/s`;
  console.log(`## ${title}\n`);
  console.log(`${about.mb.toFixed(1)} MB ${about.text} (${about.reads} reads of 16 KiB), median of ${runs} runs.\n`);
  console.log("| parser | median | throughput |");
  console.log("| --- | --- | --- |");
  console.log(`| ${awlName} | ${awlMs.toFixed(1)} ms | ${mbps(awlMs)} |`);
  console.log(`| ${sdkName} | ${sdkMs.toFixed(1)} ms | ${mbps(sdkMs)} |`);
  console.log(`\nawl / SDK throughput: **${(sdkMs / awlMs).toFixed(2)}×** (target ≥ 1.00×)\n`);
}
