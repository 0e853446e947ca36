/**
 * The official SDK as an oracle: it parses the same bytes (split in small pieces) and awl must assemble
 * the same blocks, stop reason and usage.
 */
import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { parseToolInput } from "../../../src/model/blocks.js";
import type { Message } from "../../../src/model/message.js";
import { assembleMessage, fixture } from "./support.js";

async function sdkFinalMessage(bytes: Uint8Array, pieceSize: number): Promise<Anthropic.Message> {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += pieceSize) controller.enqueue(bytes.slice(i, i + pieceSize));
      controller.close();
    },
  });
  const client = new Anthropic({
    apiKey: "test",
    maxRetries: 0,
    fetch: async () => new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } }),
  });
  const stream = client.messages.stream({ model: "awl-oracle", max_tokens: 1024, messages: [{ role: "user", content: "hi" }] });
  return stream.finalMessage();
}

/** awl's message in the SDK's terms: only the block types awl models, tool input parsed. */
function comparable(message: Message): unknown {
  return {
    content: message.content.map((block) => {
      switch (block.type) {
        case "text":
          return { type: "text", text: block.text };
        case "thinking":
          return block.redacted !== undefined
            ? { type: "redacted_thinking", data: block.redacted }
            : { type: "thinking", thinking: block.thinking, signature: block.signature ?? "" };
        case "tool_use":
          return { type: "tool_use", id: block.id, name: block.name, input: parseToolInput(block.input) };
        default:
          return block;
      }
    }),
    stop_reason: message.stop_reason_raw ?? null,
    usage: message.usage,
  };
}

function sdkComparable(message: Anthropic.Message): unknown {
  const usage: Record<string, number> = { input_tokens: message.usage.input_tokens, output_tokens: message.usage.output_tokens };
  if (message.usage.cache_read_input_tokens != null) usage.cache_read_input_tokens = message.usage.cache_read_input_tokens;
  if (message.usage.cache_creation_input_tokens != null) usage.cache_creation_input_tokens = message.usage.cache_creation_input_tokens;
  return {
    content: message.content.flatMap((block) => {
      switch (block.type) {
        case "text":
          return [{ type: "text", text: block.text }];
        case "thinking":
          return [{ type: "thinking", thinking: block.thinking, signature: block.signature }];
        case "redacted_thinking":
          return [{ type: "redacted_thinking", data: block.data }];
        case "tool_use":
          return [{ type: "tool_use", id: block.id, name: block.name, input: block.input }];
        default:
          return []; // server tools and other blocks awl does not model
      }
    }),
    stop_reason: message.stop_reason,
    usage,
  };
}

describe("awl's Anthropic assembly agrees with @anthropic-ai/sdk on the same bytes", () => {
  const fixtures = ["text.sse", "thinking-tool.sse", "thinking-after-tool.sse", "parallel-tools.sse", "unknown-events.sse", "redacted-thinking.sse", "ccr-interleaved-tools.sse"];
  for (const name of fixtures) {
    it(name, async () => {
      const bytes = fixture(name);
      const sdk = await sdkFinalMessage(bytes, 3);
      const awl = assembleMessage(bytes, 3);
      expect(comparable(awl)).toEqual(sdkComparable(sdk));
      expect(awl.content.length).toBeGreaterThan(0);
    });
  }
});
