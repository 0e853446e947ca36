import { afterEach, beforeEach, expect, it } from "vitest";
import { Conversation } from "../../../src/model/conversation.js";
import { createProvider } from "../../../src/providers/create.js";
import { recordingReceiver } from "../../support/recording-receiver.js";
import { sseData, startReplayServer, type ReplayServer } from "../../support/replay-server.js";

let server: ReplayServer;
beforeEach(async () => (server = await startReplayServer()));
afterEach(() => server.close());

it("streams a plain text answer from an OpenAI-compatible endpoint", async () => {
  server.enqueue({
    body: sseData([
      { id: "c1", choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] },
      { id: "c1", choices: [{ index: 0, delta: { content: "Hi" }, finish_reason: null }] },
      { id: "c1", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
      { id: "c1", choices: [], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } },
      "[DONE]",
    ]),
  });
  const provider = await createProvider({ provider: "openai", model: "gpt-x", baseUrl: `${server.url}/v1/`, apiKey: "k", maxRetries: 0, stallTimeoutMs: 5000 });
  const conversation = new Conversation();
  conversation.addSystemMessage("Be brief.");
  conversation.addUserMessage("Hello");
  const receiver = recordingReceiver();
  const result = await provider.streamStep(conversation, receiver);
  expect(result).toEqual({
    ok: true,
    message: {
      role: "assistant",
      content: [{ type: "text", text: "Hi" }],
      stop_reason: "end_turn",
      stop_reason_raw: "stop",
      usage: { input_tokens: 5, output_tokens: 1 },
    },
  });
  expect(receiver.calls).toEqual(["start assistant", "block_start 0 text", 'delta 0 "Hi"', "block_complete 0 text", "complete end_turn"]);
  expect(server.requests[0]!.url).toBe("/v1/chat/completions");
  expect(server.requests[0]!.headers.authorization).toBe("Bearer k");
  expect(server.requests[0]!.body).toBe(
    '{"model":"gpt-x","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hello"}]}',
  );
  expect(conversation.length).toBe(2);
});
