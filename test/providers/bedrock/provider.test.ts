/**
 * The Bedrock provider against the local replay server: ConverseStream frames (encoded by the AWS SDK's codec) with
 * text, signed reasoning, two tool calls with fragmented input, cached usage; exceptions in the stream; HTTP 429; a
 * context-length refusal; and every request's SigV4 signature recomputed with the SDK's signer.
 */
import { Hash } from "@smithy/hash-node";
import { SignatureV4 } from "@smithy/signature-v4";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Conversation, toolResult } from "../../../src/model/conversation.js";
import { createBedrockProvider } from "../../../src/providers/bedrock/provider.js";
import type { ProviderSettings, ToolSpec } from "../../../src/providers/types.js";
import { recordingReceiver } from "../../support/recording-receiver.js";
import { splitEvery, startReplayServer, type LoggedRequest, type ReplayServer } from "../../support/replay-server.js";
import { frames } from "./support.js";

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

const MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
const CREDENTIALS = { accessKeyId: "AKIDTEST", secretAccessKey: "test/secret+key", sessionToken: "session-token" };
const NOW = new Date("2026-12-05T21:00:00Z");
const tools: ToolSpec[] = [{ name: "get_weather", description: "Weather.", schema: '{"type":"object","properties":{"location":{"type":"string"}}}' }];
const eventStream = (body: Buffer) => ({ headers: { "content-type": "application/vnd.amazon.eventstream" }, body: splitEvery(body, 5) });

function provider(extra: Partial<ProviderSettings> = {}) {
  const settings: ProviderSettings = { provider: "bedrock", model: MODEL, baseUrl: server.url, maxRetries: 1, stallTimeoutMs: 5_000, ...extra };
  return createBedrockProvider(settings, { region: "us-east-1", credentials: CREDENTIALS }, () => NOW);
}

/** What the SDK's signer says the authorization of `request` must be. */
async function expectedAuthorization(request: LoggedRequest): Promise<string> {
  const signer = new SignatureV4({ credentials: CREDENTIALS, region: "us-east-1", service: "bedrock", sha256: Hash.bind(null, "sha256"), uriEscapePath: true });
  const url = new URL(request.url, server.url);
  const headers = Object.fromEntries(["content-type", "accept", "host"].map((name) => [name, String(request.headers[name])]));
  const signed = await signer.sign({ method: "POST", protocol: "http:", hostname: url.hostname, port: Number(url.port), path: url.pathname, headers, body: request.body }, { signingDate: NOW });
  return String(signed.headers.authorization);
}

const TOOL_TURN = frames([
  ["messageStart", { role: "assistant", p: "abcdefghijkl" }],
  ["contentBlockDelta", { contentBlockIndex: 0, delta: { reasoningContent: { text: "Two cities: " } }, p: "a" }],
  ["contentBlockDelta", { contentBlockIndex: 0, delta: { reasoningContent: { text: "call twice." } } }],
  ["contentBlockDelta", { contentBlockIndex: 0, delta: { reasoningContent: { signature: "EqQBCkYIBxgCKkBsig" } } }],
  ["contentBlockStop", { contentBlockIndex: 0 }],
  ["contentBlockDelta", { contentBlockIndex: 1, delta: { text: "Checking both." } }],
  ["contentBlockStop", { contentBlockIndex: 1 }],
  ["contentBlockStart", { contentBlockIndex: 2, start: { toolUse: { toolUseId: "tooluse_Paris01", name: "get_weather" } } }],
  ["contentBlockDelta", { contentBlockIndex: 2, delta: { toolUse: { input: '{"loca' } } }],
  ["contentBlockDelta", { contentBlockIndex: 2, delta: { toolUse: { input: 'tion":"Paris"}' } } }],
  ["contentBlockStop", { contentBlockIndex: 2 }],
  ["contentBlockStart", { contentBlockIndex: 3, start: { toolUse: { toolUseId: "tooluse_Tokyo02", name: "get_weather" } } }],
  ["contentBlockDelta", { contentBlockIndex: 3, delta: { toolUse: { input: '{"location":"Tokyo"}' } } }],
  ["contentBlockStop", { contentBlockIndex: 3 }],
  ["messageStop", { stopReason: "tool_use" }],
  ["metadata", { usage: { inputTokens: 420, outputTokens: 96, totalTokens: 3564, cacheReadInputTokens: 3048, cacheWriteInputTokens: 0 }, metrics: { latencyMs: 1234 }, p: "abc" }],
]);
const ANSWER = frames([
  ["messageStart", { role: "assistant" }],
  ["contentBlockDelta", { contentBlockIndex: 0, delta: { text: "Paris is mild; Tokyo is rainy." } }],
  ["contentBlockStop", { contentBlockIndex: 0 }],
  ["messageStop", { stopReason: "end_turn" }],
  ["metadata", { usage: { inputTokens: 30, outputTokens: 9, cacheReadInputTokens: 3500, cacheWriteInputTokens: 120 } }],
]);

describe("Bedrock ConverseStream", () => {
  it("a tool loop: reasoning, text and parallel calls assembled; the results and the signed reasoning sent back; every request signed as the SDK signs", async () => {
    const bedrock = provider({ thinking: 2048, maxTokens: 4096 });
    const conversation = new Conversation([{ role: "user", content: [{ type: "text", text: "Weather in Paris and Tokyo?" }] }]);
    server.enqueue(eventStream(TOOL_TURN), eventStream(ANSWER));
    const receiver = recordingReceiver();
    const first = await bedrock.streamStep(conversation, receiver, { tools, system: "Be brief." });
    if (!first.ok) throw new Error(first.error.message);
    expect(first.message).toEqual({
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Two cities: call twice.", signature: "EqQBCkYIBxgCKkBsig", origin: "bedrock" },
        { type: "text", text: "Checking both." },
        { type: "tool_use", id: "tooluse_Paris01", name: "get_weather", input: '{"location":"Paris"}' },
        { type: "tool_use", id: "tooluse_Tokyo02", name: "get_weather", input: '{"location":"Tokyo"}' },
      ],
      stop_reason: "tool_use",
      stop_reason_raw: "tool_use",
      usage: { input_tokens: 420, output_tokens: 96, cache_read_input_tokens: 3048, cache_creation_input_tokens: 0 },
    });
    expect(receiver.calls).toContain("block_start 2 tool_use tooluse_Paris01 get_weather");
    conversation.addMessage(first.message);
    conversation.addToolResults([toolResult("tooluse_Paris01", "mild"), toolResult("tooluse_Tokyo02", "rainy")]);
    const second = await bedrock.streamStep(conversation, recordingReceiver(), { tools, system: "Be brief." });
    expect(second.ok && second.message.content).toEqual([{ type: "text", text: "Paris is mild; Tokyo is rainy." }]);

    const [one, two] = server.requests.slice(-2);
    expect(one!.url).toBe(`/model/${encodeURIComponent(MODEL)}/converse-stream`);
    expect(one!.headers).toMatchObject({ "x-amz-date": "20261205T210000Z", "x-amz-security-token": "session-token", accept: "application/vnd.amazon.eventstream" });
    for (const request of [one!, two!]) expect(request.headers.authorization).toBe(await expectedAuthorization(request));
    expect(one!.json()).toEqual({
      messages: [{ role: "user", content: [{ text: "Weather in Paris and Tokyo?" }, { cachePoint: { type: "default" } }] }],
      system: [{ text: "Be brief." }, { cachePoint: { type: "default" } }],
      toolConfig: { tools: [{ toolSpec: { name: "get_weather", description: "Weather.", inputSchema: { json: { type: "object", properties: { location: { type: "string" } } } } } }, { cachePoint: { type: "default" } }] },
      inferenceConfig: { maxTokens: 4096 },
      additionalModelRequestFields: { thinking: { type: "enabled", budget_tokens: 2048 } },
    });
    expect(two!.json().messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: [
          { reasoningContent: { reasoningText: { text: "Two cities: call twice.", signature: "EqQBCkYIBxgCKkBsig" } } },
          { text: "Checking both." },
          { toolUse: { toolUseId: "tooluse_Paris01", name: "get_weather", input: { location: "Paris" } } },
          { toolUse: { toolUseId: "tooluse_Tokyo02", name: "get_weather", input: { location: "Tokyo" } } },
        ],
      },
      {
        role: "user",
        content: [
          { toolResult: { toolUseId: "tooluse_Paris01", content: [{ text: "mild" }] } },
          { toolResult: { toolUseId: "tooluse_Tokyo02", content: [{ text: "rainy" }] } },
          { cachePoint: { type: "default" } },
        ],
      },
    ]);
  });

  it("a throttling exception mid-stream is retried; what streamed before it is void", async () => {
    const throttled = frames([
      ["messageStart", { role: "assistant" }],
      ["contentBlockDelta", { contentBlockIndex: 0, delta: { text: "Half" } }],
      ["!throttlingException", { message: "Too many tokens, please wait before trying again." }],
    ]);
    server.enqueue(eventStream(throttled), eventStream(ANSWER));
    const receiver = recordingReceiver();
    const result = await provider().streamStep(new Conversation([{ role: "user", content: [{ type: "text", text: "hi" }] }]), receiver, {});
    expect(result.ok && result.message.content).toEqual([{ type: "text", text: "Paris is mild; Tokyo is rainy." }]);
    expect(receiver.calls).toContain("retry 1 rate_limit");
  });

  it("HTTP 429 waits and retries; a context-length validationException is context_length; a stream cut before messageStop is truncated", async () => {
    server.enqueue({ status: 429, headers: { "content-type": "application/json", "retry-after": "0" }, body: '{"message":"Too many requests, please wait before trying again."}' }, eventStream(ANSWER));
    const ok = await provider().streamStep(new Conversation([{ role: "user", content: [{ type: "text", text: "hi" }] }]), recordingReceiver(), {});
    expect(ok.ok).toBe(true);

    server.enqueue(eventStream(frames([["!validationException", { message: "Input is too long for requested model." }]])));
    const long = await provider({ maxRetries: 0 }).streamStep(new Conversation([{ role: "user", content: [{ type: "text", text: "hi" }] }]), recordingReceiver(), {});
    expect(!long.ok && long.error).toMatchObject({ kind: "context_length", code: "validationException", retryable: false });

    server.enqueue({ status: 400, headers: { "content-type": "application/json", "x-amzn-errortype": "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/" }, body: '{"message":"Input is too long for requested model."}' });
    const http = await provider({ maxRetries: 0 }).streamStep(new Conversation([{ role: "user", content: [{ type: "text", text: "hi" }] }]), recordingReceiver(), {});
    expect(!http.ok && http.error).toMatchObject({ kind: "context_length", status: 400, message: expect.stringContaining("Input is too long") });

    const beforeStop = frames([["messageStart", { role: "assistant" }], ["contentBlockDelta", { contentBlockIndex: 0, delta: { text: "Paris is" } }]]);
    server.enqueue(eventStream(Buffer.concat([beforeStop, ANSWER.subarray(0, 30)])));
    const cut = await provider({ maxRetries: 0 }).streamStep(new Conversation([{ role: "user", content: [{ type: "text", text: "hi" }] }]), recordingReceiver(), {});
    expect(!cut.ok && cut.error.kind).toBe("truncated");
  });
});
