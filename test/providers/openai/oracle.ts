/**
 * The official `openai` SDK as a parsing oracle: it reads the same bytes (in the same pieces) through its own
 * SSE decoder and `ChatCompletionStream` accumulator, and the result is put in a shape comparable with awl's.
 * The SDK keeps only the last reasoning fragment in its snapshot, so reasoning is summed from its parsed chunks
 * (choice index 0's, the one awl assembles; the SDK's snapshot keys choices by index too).
 */
import OpenAI from "openai";
import type { Message } from "../../../src/model/message.js";

export interface Assembled {
  text: string;
  reasoning: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  usage: { input_tokens: number; output_tokens: number } | undefined;
  finishReason: string | undefined;
}

export async function sdkAssemble(pieces: Buffer[]): Promise<Assembled> {
  const fetch = async (): Promise<Response> => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const piece of pieces) controller.enqueue(new Uint8Array(piece));
        controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  };
  const client = new OpenAI({ apiKey: "oracle", baseURL: "http://oracle.invalid/v1", fetch, maxRetries: 0 });
  const stream = client.chat.completions.stream({ model: "m", messages: [{ role: "user", content: "x" }], stream_options: { include_usage: true } });
  let reasoning = "";
  stream.on("chunk", (chunk) => {
    const delta = chunk.choices.find((choice) => choice.index === 0)?.delta as Record<string, unknown> | undefined;
    const piece = delta?.reasoning_content || delta?.reasoning;
    if (typeof piece === "string") reasoning += piece;
  });
  const completion = await stream.finalChatCompletion();
  const choice = completion.choices[0]!;
  return {
    text: choice.message.content ?? "",
    reasoning,
    toolCalls: (choice.message.tool_calls ?? []).map((call) => {
      if (call.type !== "function") throw new Error("unexpected tool call type");
      // The SDK keeps blank arguments as sent; awl normalises them to {} (SPEC §3 rule 3).
      return { id: call.id, name: call.function.name, arguments: call.function.arguments.trim() === "" ? "{}" : call.function.arguments };
    }),
    usage: completion.usage ? { input_tokens: completion.usage.prompt_tokens, output_tokens: completion.usage.completion_tokens } : undefined,
    finishReason: choice.finish_reason,
  };
}

/** awl's message in the oracle's shape. */
export function awlAssembled(message: Message): Assembled {
  let text = "";
  let reasoning = "";
  const toolCalls: Assembled["toolCalls"] = [];
  for (const block of message.content) {
    if (block.type === "text") text += block.text;
    else if (block.type === "thinking") reasoning += block.thinking;
    else if (block.type === "tool_use") toolCalls.push({ id: block.id, name: block.name, arguments: block.input });
  }
  const usage = message.usage ? { input_tokens: message.usage.input_tokens, output_tokens: message.usage.output_tokens } : undefined;
  return { text, reasoning, toolCalls, usage, finishReason: message.stop_reason_raw };
}
