/**
 * The official `openai` SDK as an oracle for the Responses stream: it parses the same bytes (in small pieces) with its
 * own SSE decoder and `ResponseStream` accumulator, and awl must assemble the same items, stop status and usage.
 */
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import type { Message } from "../../../src/model/message.js";
import { assembleMessage, fixture } from "./support.js";

async function sdkFinalResponse(bytes: Uint8Array, pieceSize: number): Promise<OpenAI.Responses.Response> {
  const fetch = async (): Promise<Response> => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += pieceSize) controller.enqueue(bytes.slice(i, i + pieceSize));
        controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  };
  const client = new OpenAI({ apiKey: "oracle", baseURL: "http://oracle.invalid/v1", fetch, maxRetries: 0 });
  return client.responses.stream({ model: "m", input: "x" }).finalResponse();
}

/** The items awl models, in the shape both sides can give. */
type Item = { type: "text"; text: string } | { type: "reasoning"; summary: string; encrypted: string | undefined } | { type: "call"; id: string; name: string; arguments: string };

function fromAwl(message: Message): { items: Item[]; status: string | undefined; usage: unknown } {
  const items: Item[] = message.content.flatMap((block): Item[] => {
    if (block.type === "text") return [{ type: "text", text: block.text }];
    if (block.type === "thinking") return [{ type: "reasoning", summary: block.thinking, encrypted: block.signature }];
    if (block.type === "tool_use") return [{ type: "call", id: block.id, name: block.name, arguments: block.input }];
    return [];
  });
  return { items, status: message.stop_reason_raw, usage: message.usage };
}

function fromSdk(response: OpenAI.Responses.Response): { items: Item[]; status: string | undefined; usage: unknown } {
  const items = response.output.flatMap((item): Item[] => {
    if (item.type === "message")
      return [{ type: "text", text: item.content.map((part) => (part.type === "output_text" ? part.text : part.refusal)).join("") }];
    if (item.type === "reasoning") {
      const summary = item.summary.map((part) => part.text).join("\n\n");
      return summary === "" && !item.encrypted_content ? [] : [{ type: "reasoning", summary, encrypted: item.encrypted_content ?? undefined }];
    }
    if (item.type === "function_call") return [{ type: "call", id: item.call_id, name: item.name, arguments: item.arguments }];
    return [];
  });
  const usage: Record<string, number> = { input_tokens: response.usage?.input_tokens ?? 0, output_tokens: response.usage?.output_tokens ?? 0 };
  const cached = response.usage?.input_tokens_details?.cached_tokens;
  if (cached !== undefined) usage.cache_read_input_tokens = cached;
  const reasoning = response.usage?.output_tokens_details?.reasoning_tokens;
  if (reasoning !== undefined) usage.reasoning_tokens = reasoning;
  return { items, status: response.incomplete_details?.reason ?? response.status, usage };
}

describe("awl's Responses assembly agrees with the openai SDK on the same bytes", () => {
  for (const name of ["text.sse", "reasoning-tools.sse", "answer-after-tools.sse", "refusal.sse", "incomplete.sse"]) {
    it(name, async () => {
      const bytes = fixture(name);
      const sdk = await sdkFinalResponse(bytes, 3);
      const awl = assembleMessage(bytes, 3);
      expect(fromAwl(awl)).toEqual(fromSdk(sdk));
      expect(awl.content.length).toBeGreaterThan(0);
    });
  }

  it("unknown-events.sse: awl ignores the unknown events the SDK throws on, and assembles what the SDK does without them", async () => {
    const bytes = fixture("unknown-events.sse");
    const known = Buffer.from(
      bytes
        .toString("utf8")
        .split("\n\n")
        .filter((event) => !/^event: response\.(future_feature|other_future)/.test(event))
        .join("\n\n"),
    );
    await expect(sdkFinalResponse(bytes, 3)).rejects.toThrow(/Unhandled response stream event/);
    expect(fromAwl(assembleMessage(bytes, 3))).toEqual(fromSdk(await sdkFinalResponse(known, 3)));
  });
});
