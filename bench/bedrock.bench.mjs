// Bedrock ConverseStream assembly throughput: awl (its AWS event-stream decoder + BedrockAssembler) beside the official
// @aws-sdk/client-bedrock-runtime (`ConverseStreamCommand`, its events' deltas summed) on the same ~10 MB stream of
// binary frames (encoded by the SDK's own codec), fed in 16 KiB reads. Target (issue 29): awl at least as fast as the
// SDK. Run: `npm run bench -- bedrock`.
import { BedrockRuntimeClient, ConverseStreamCommand } from "@aws-sdk/client-bedrock-runtime";
import { EventStreamCodec } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import { performance } from "node:perf_hooks";
import { Readable } from "node:stream";
import { BedrockAssembler } from "../dist/providers/bedrock/assembler.js";
import { createEventStreamDecoder } from "../dist/providers/bedrock/event-stream.js";
import { compareParsers, quietReceiver, runAwlAssembler, toReads, wordPieces } from "./stream-compare.mjs";

const TARGET_BYTES = 10 * 1024 * 1024;
const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** A realistic tool turn: signed reasoning, a long answer, one tool call with large input in fragments, usage. */
function buildStream() {
  const frames = [];
  let size = 0;
  const push = (type, payload) => {
    const headers = { ":message-type": { type: "string", value: "event" }, ":event-type": { type: "string", value: type }, ":content-type": { type: "string", value: "application/json" } };
    const frame = Buffer.from(codec.encode({ headers, body: fromUtf8(JSON.stringify({ ...payload, p: "abcdefghijklmnopqrstuvwxyz" })) }));
    frames.push(frame);
    size += frame.length;
  };
  const piece = wordPieces();
  push("messageStart", { role: "assistant" });
  while (size < TARGET_BYTES * 0.3) push("contentBlockDelta", { contentBlockIndex: 0, delta: { reasoningContent: { text: piece(5) } } });
  push("contentBlockDelta", { contentBlockIndex: 0, delta: { reasoningContent: { signature: "EqQBCkYIBxgCKkBsig".repeat(20) } } });
  push("contentBlockStop", { contentBlockIndex: 0 });
  while (size < TARGET_BYTES * 0.8) push("contentBlockDelta", { contentBlockIndex: 1, delta: { text: piece(5) } });
  push("contentBlockStop", { contentBlockIndex: 1 });
  push("contentBlockStart", { contentBlockIndex: 2, start: { toolUse: { toolUseId: "tooluse_bench", name: "write_file" } } });
  let input = JSON.stringify({ path: "out.txt", content: "" }).slice(0, -2);
  push("contentBlockDelta", { contentBlockIndex: 2, delta: { toolUse: { input } } });
  while (size < TARGET_BYTES) {
    const fragment = JSON.stringify(piece(5)).slice(1, -1);
    input += fragment;
    push("contentBlockDelta", { contentBlockIndex: 2, delta: { toolUse: { input: fragment } } });
  }
  push("contentBlockDelta", { contentBlockIndex: 2, delta: { toolUse: { input: '"}' } } });
  push("contentBlockStop", { contentBlockIndex: 2 });
  push("messageStop", { stopReason: "tool_use" });
  push("metadata", { usage: { inputTokens: 2000, outputTokens: 100000, totalTokens: 102000, cacheReadInputTokens: 1800 }, metrics: { latencyMs: 1 } });
  const bytes = Buffer.concat(frames);
  return { bytes, reads: toReads(bytes) };
}

function runAwl(reads) {
  const { ms, message } = runAwlAssembler(new BedrockAssembler(quietReceiver, "bench"), reads, createEventStreamDecoder);
  let thinking = 0;
  let text = 0;
  let input = 0;
  for (const block of message.content) {
    if (block.type === "thinking") thinking += block.thinking.length;
    else if (block.type === "text") text += block.text.length;
    else if (block.type === "tool_use") input += block.input.length;
  }
  return { ms, summary: `${thinking},${text},${input}` };
}

/** The SDK's client with a request handler that answers every request with `reads` (no network, no signing cost). */
const client = (reads) =>
  new BedrockRuntimeClient({
    region: "us-east-1",
    credentials: { accessKeyId: "AKIDBENCH", secretAccessKey: "bench" },
    requestHandler: {
      handle: async () => ({ response: { statusCode: 200, headers: { "content-type": "application/vnd.amazon.eventstream" }, body: Readable.from(reads) } }),
    },
  });

async function runSdk(reads) {
  const start = performance.now();
  let thinking = 0;
  let text = 0;
  let input = 0;
  const response = await client(reads).send(new ConverseStreamCommand({ modelId: "anthropic.claude-haiku-4-5-20251001-v1:0", messages: [{ role: "user", content: [{ text: "go" }] }] }));
  for await (const event of response.stream) {
    const delta = event.contentBlockDelta?.delta;
    if (!delta) continue;
    if (delta.text !== undefined) text += delta.text.length;
    else if (delta.reasoningContent?.text !== undefined) thinking += delta.reasoningContent.text.length;
    else if (delta.toolUse) input += delta.toolUse.input.length;
  }
  return { ms: performance.now() - start, summary: `${thinking},${text},${input}` };
}

const { bytes, reads } = buildStream();
await compareParsers({
  title: "Streaming (Bedrock)",
  about: { mb: bytes.length / (1024 * 1024), text: "Bedrock ConverseStream (AWS event-stream frames): signed reasoning, text, one tool call in fragments", reads: reads.length },
  awlName: "awl (event-stream.ts + BedrockAssembler)",
  sdkName: "@aws-sdk/client-bedrock-runtime ConverseStreamCommand",
  awl: () => runAwl(reads),
  sdk: () => runSdk(reads),
});
