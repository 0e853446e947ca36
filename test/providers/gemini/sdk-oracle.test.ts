/**
 * `@google/genai` as an oracle: its `generateContentStream` reads the same bytes (in small pieces, from the replay
 * server) with its own SSE parsing, and the parts it yields, summed, must match what awl assembles.
 */
import { GoogleGenAI } from "@google/genai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Message } from "../../../src/model/message.js";
import { splitEvery, startReplayServer, type ReplayServer } from "../../support/replay-server.js";
import { assembleMessage, fixture } from "./support.js";

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

interface Summary {
  text: string;
  thoughts: string;
  signatures: string[];
  calls: Array<{ name: string; args: unknown }>;
  images: Array<{ mimeType: string; data: string }>;
  finishReason: string | undefined;
  usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number; reasoning_tokens?: number } | undefined;
}

async function sdkSummary(bytes: Buffer): Promise<Summary> {
  server.enqueue({ body: splitEvery(bytes, 3) });
  const ai = new GoogleGenAI({ apiKey: "oracle", httpOptions: { baseUrl: server.url } });
  const summary: Summary = { text: "", thoughts: "", signatures: [], calls: [], images: [], finishReason: undefined, usage: undefined };
  for await (const chunk of await ai.models.generateContentStream({ model: "gemini-2.5-flash", contents: "x" })) {
    const candidate = chunk.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      if (part.thoughtSignature) summary.signatures.push(part.thoughtSignature);
      if (part.inlineData) summary.images.push({ mimeType: part.inlineData.mimeType ?? "", data: part.inlineData.data ?? "" });
      if (part.functionCall) summary.calls.push({ name: part.functionCall.name ?? "", args: part.functionCall.args ?? {} });
      else if (part.thought) summary.thoughts += part.text ?? "";
      else if (part.text) summary.text += part.text;
    }
    if (candidate?.finishReason) summary.finishReason = candidate.finishReason;
    const usage = chunk.usageMetadata;
    if (usage) {
      const thoughts = usage.thoughtsTokenCount;
      summary.usage = { input_tokens: usage.promptTokenCount ?? 0, output_tokens: (usage.candidatesTokenCount ?? 0) + (thoughts ?? 0) };
      if (usage.cachedContentTokenCount !== undefined) summary.usage.cache_read_input_tokens = usage.cachedContentTokenCount;
      if (thoughts !== undefined) summary.usage.reasoning_tokens = thoughts;
    }
  }
  // The SDK asks where awl does (src/providers/gemini/provider.ts, geminiStreamUrl).
  expect(server.requests.at(-1)!.url).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
  return summary;
}

function awlSummary(message: Message): Summary {
  const summary: Summary = { text: "", thoughts: "", signatures: [], calls: [], images: [], finishReason: message.stop_reason_raw, usage: message.usage };
  for (const block of message.content) {
    if (block.type === "text") summary.text += block.text;
    else if (block.type === "thinking") {
      summary.thoughts += block.thinking;
      if (block.signature) summary.signatures.push(block.signature);
    } else if (block.type === "tool_use") summary.calls.push({ name: block.name, args: JSON.parse(block.input) });
    else if (block.type === "image") summary.images.push({ mimeType: block.media_type, data: block.data });
  }
  return summary;
}

describe("awl's Gemini assembly agrees with @google/genai on the same bytes", () => {
  for (const name of ["text.sse", "thoughts-parallel-calls.sse", "answer-after-calls.sse", "max-tokens.sse", "image.sse"]) {
    it(name, async () => {
      const bytes = fixture(name);
      expect(awlSummary(assembleMessage(bytes, 3))).toEqual(await sdkSummary(bytes));
    });
  }

  it("no-finish.sse: the SDK accepts a stream with no finishReason; awl does not (a cut stream is not an answer)", async () => {
    expect((await sdkSummary(fixture("no-finish.sse"))).finishReason).toBeUndefined();
  });
});
