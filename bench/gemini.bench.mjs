// Gemini stream assembly throughput: awl (SSE decoder + GeminiAssembler) beside @google/genai
// (`models.generateContentStream()`, its chunks' parts summed) on the same ~10 MB stream, fed in 16 KiB reads.
// Target (issue 29): awl at least as fast as the SDK. Run: `npm run bench -- gemini`.
import { GoogleGenAI } from "@google/genai";
import { performance } from "node:perf_hooks";
import { GeminiAssembler } from "../dist/providers/gemini/assembler.js";
import { compareParsers, quietReceiver, runAwlAssembler, sseResponse, toReads, wordPieces } from "./stream-compare.mjs";

const TARGET_BYTES = 10 * 1024 * 1024;

/** A realistic stream: thoughts, a long answer, then a signed function call with large arguments; usage on every chunk. */
function buildStream() {
  const events = [];
  const usage = { promptTokenCount: 2000, cachedContentTokenCount: 1800, candidatesTokenCount: 10, thoughtsTokenCount: 10, totalTokenCount: 2020 };
  const push = (parts, finishReason) => {
    const candidate = { content: { parts, role: "model" }, index: 0 };
    if (finishReason) candidate.finishReason = finishReason;
    events.push(`data: ${JSON.stringify({ candidates: [candidate], usageMetadata: usage, modelVersion: "gemini-2.5-flash", responseId: "bench" })}\r\n\r\n`);
  };
  const piece = wordPieces();
  let size = 0;
  const fill = (share, part) => {
    while (size < TARGET_BYTES * share) {
      const before = events.length;
      push([part(piece(5))]);
      size += events[before].length;
    }
  };
  fill(0.3, (t) => ({ text: t, thought: true }));
  fill(0.8, (t) => ({ text: t }));
  let content = "";
  while (content.length < TARGET_BYTES * 0.2) content += piece(5);
  push([{ functionCall: { name: "write_file", args: { path: "out.txt", content } }, thoughtSignature: "CiQB0e2K".repeat(40) }], "STOP");
  const bytes = Buffer.from(events.join(""));
  return { bytes, reads: toReads(bytes) };
}

function runAwl(reads) {
  const { ms, message } = runAwlAssembler(new GeminiAssembler(quietReceiver, "bench"), reads);
  let thoughts = 0;
  let text = 0;
  let args = 0;
  for (const block of message.content) {
    if (block.type === "thinking") thoughts += block.thinking.length;
    else if (block.type === "text") text += block.text.length;
    else if (block.type === "tool_use") args += block.input.length;
  }
  return { ms, summary: `${thoughts},${text},${args}` };
}

async function runSdk(reads) {
  const start = performance.now();
  const realFetch = globalThis.fetch;
  globalThis.fetch = async () => sseResponse(reads);
  let thoughts = 0;
  let text = 0;
  let args = 0;
  try {
    const ai = new GoogleGenAI({ apiKey: "bench", httpOptions: { baseUrl: "http://bench.invalid" } });
    for await (const chunk of await ai.models.generateContentStream({ model: "gemini-2.5-flash", contents: "go" })) {
      for (const part of chunk.candidates?.[0]?.content?.parts ?? []) {
        if (part.functionCall) args += JSON.stringify(part.functionCall.args).length;
        else if (part.thought) thoughts += part.text.length;
        else if (part.text) text += part.text.length;
      }
    }
  } finally {
    globalThis.fetch = realFetch;
  }
  return { ms: performance.now() - start, summary: `${thoughts},${text},${args}` };
}

const { bytes, reads } = buildStream();
await compareParsers({
  title: "Streaming (Gemini)",
  about: { mb: bytes.length / (1024 * 1024), text: "Gemini SSE stream: thoughts, text, one signed function call", reads: reads.length },
  awlName: "awl (sse.ts + GeminiAssembler)",
  sdkName: "@google/genai models.generateContentStream()",
  awl: () => runAwl(reads),
  sdk: () => runSdk(reads),
});
