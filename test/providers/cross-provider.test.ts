/**
 * One conversation moving between wire APIs with tool calls (issue 29 item 1 and Tests): OpenAI Responses →
 * Anthropic → Gemini → Responses again, each step a tool loop on its own provider. Every request is checked by that
 * API's rules as a fake server would enforce them (the rules each real API documents and rejects requests for):
 * reasoning and signatures reach only the API that made them, every call is answered, roles alternate.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { Conversation, toolResult } from "../../src/model/conversation.js";
import { createProvider } from "../../src/providers/create.js";
import type { Provider, ProviderSettings, ToolSpec } from "../../src/providers/types.js";
import { recordingReceiver } from "../support/recording-receiver.js";
import { startReplayServer, type ReplayServer } from "../support/replay-server.js";

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

const fixture = (path: string): Buffer => readFileSync(new URL(`../fixtures/${path}`, import.meta.url));
const tools: ToolSpec[] = [{ name: "get_weather", description: "Weather.", schema: '{"type":"object","properties":{"location":{"type":"string"}}}' }];

/** Where each API's opaque reasoning data comes from in the fixtures: the prefixes tell them apart. */
const OPENAI_ENCRYPTED = /^gAAAAAB/;
const ANTHROPIC_SIGNATURE = /^EqQB|^Eq[A-Za-z0-9]/;
const GEMINI_SIGNATURE = /^Ci[QI]B/;

type Json = any; // request bodies as parsed JSON

/** The Responses API's rules for `input` (store: false). */
function checkResponses(body: Json): void {
  expect(body.store).toBe(false);
  const calls = new Set<string>();
  const items: Json[] = body.input;
  items.forEach((item, i) => {
    if (item.type === "reasoning") {
      expect(item.id, "no item ids with store: false").toBeUndefined();
      expect(item.encrypted_content).toMatch(OPENAI_ENCRYPTED);
      const next = items[i + 1];
      expect(next && next.type !== "reasoning" && next.role !== "user" && next.type !== "function_call_output", "a reasoning item needs its following item").toBe(true);
    } else if (item.type === "function_call") {
      calls.add(item.call_id);
      expect(typeof item.arguments).toBe("string");
    } else if (item.type === "function_call_output") expect(calls.has(item.call_id), `output for unknown call ${item.call_id}`).toBe(true);
    else expect(["user", "assistant", "system", "developer"]).toContain(item.role);
  });
  for (const id of calls) expect(items.some((item) => item.type === "function_call_output" && item.call_id === id), `no output for ${id}`).toBe(true);
}

/** The Messages API's rules: alternating roles, answered tool calls, only Anthropic's signatures, signed thinking in a thinking tool loop. */
function checkAnthropic(body: Json): void {
  const messages: Json[] = body.messages;
  expect(messages[0].role).toBe("user");
  messages.forEach((message, i) => {
    if (i > 0) expect(message.role, "roles alternate").not.toBe(messages[i - 1].role);
    if (typeof message.content === "string") return;
    for (const block of message.content) {
      if (block.type === "thinking") expect(block.signature).toMatch(ANTHROPIC_SIGNATURE);
      if (block.type === "tool_use") {
        expect(block.id).toMatch(/^[a-zA-Z0-9_-]+$/);
        const answers = messages[i + 1]?.content ?? [];
        expect(answers.some((b: Json) => b.type === "tool_result" && b.tool_use_id === block.id), `tool_use ${block.id} unanswered`).toBe(true);
      }
    }
  });
  const last = messages.at(-1);
  if (body.thinking?.type === "enabled" && Array.isArray(last.content) && last.content.some((b: Json) => b.type === "tool_result")) {
    expect(["thinking", "redacted_thinking"], "the assistant turn of a thinking tool loop starts with signed thinking").toContain(messages.at(-2).content[0].type);
  }
}

/** Gemini's rules: alternating roles, one named response per call, a signature on each model turn's first call. */
function checkGemini(body: Json): void {
  const contents: Json[] = body.contents;
  expect(contents[0].role).toBe("user");
  contents.forEach((content, i) => {
    if (i > 0) expect(content.role, "roles alternate").not.toBe(contents[i - 1].role);
    for (const part of content.parts) {
      if (part.thoughtSignature !== undefined && part.thoughtSignature !== "skip_thought_signature_validator") expect(part.thoughtSignature).toMatch(GEMINI_SIGNATURE);
      expect(part.thought === true && part.thoughtSignature === undefined, "an unsigned thought").toBe(false);
    }
    const calls = content.parts.filter((p: Json) => p.functionCall);
    if (calls.length === 0) return;
    expect(calls[0].thoughtSignature, "the first function call of a model turn carries a signature").toBeDefined();
    const responses = contents[i + 1].parts.filter((p: Json) => p.functionResponse);
    expect(responses.map((p: Json) => p.functionResponse.name)).toEqual(calls.map((p: Json) => p.functionCall.name));
  });
}

function settings(provider: string, model: string, baseUrl: string, extra: Partial<ProviderSettings> = {}): ProviderSettings {
  return { provider, model, baseUrl, apiKey: "k", maxRetries: 0, stallTimeoutMs: 5_000, ...extra };
}

/** Runs one tool loop: steps until the model stops calling tools, answering each call. */
async function loop(provider: Provider, conversation: Conversation): Promise<void> {
  for (;;) {
    const result = await provider.streamStep(conversation, recordingReceiver(), { tools });
    if (!result.ok) throw new Error(result.error.message);
    conversation.addMessage(result.message);
    const calls = result.message.content.filter((b) => b.type === "tool_use");
    if (calls.length === 0) return;
    conversation.addToolResults(calls.map((call) => toolResult(call.id, `weather for ${call.id}`)));
  }
}

describe("a conversation that moves Responses → Anthropic → Gemini → Responses, with tool calls", () => {
  it("every request passes its API's rules, and each API gets back only its own reasoning", async () => {
    const responses = await createProvider(settings("openai-responses", "gpt-5-mini", `${server.url}/v1`));
    const anthropic = await createProvider(settings("anthropic", "claude-sonnet-4-5", server.url, { thinking: 2048 }));
    const gemini = await createProvider(settings("gemini", "gemini-2.5-flash", server.url));
    const conversation = new Conversation([{ role: "user", content: [{ type: "text", text: "Weather in Paris and Tokyo?" }] }]);

    server.enqueue({ body: fixture("openai-responses/reasoning-tools.sse") }, { body: fixture("openai-responses/answer-after-tools.sse") });
    await loop(responses, conversation);
    conversation.addUserMessage("And in Paris again, with Claude?");
    server.enqueue({ body: fixture("anthropic/thinking-tool.sse") }, { body: fixture("anthropic/text.sse") });
    await loop(anthropic, conversation);
    conversation.addUserMessage("Now Gemini: both cities.");
    server.enqueue({ body: fixture("gemini/thoughts-parallel-calls.sse") }, { body: fixture("gemini/answer-after-calls.sse") });
    await loop(gemini, conversation);
    conversation.addUserMessage("Back to OpenAI: summarise.");
    server.enqueue({ body: fixture("openai-responses/text.sse") });
    await loop(responses, conversation);

    const bodies = server.requests.map((r) => ({ url: r.url, body: r.json() }));
    expect(bodies.map((b) => b.url)).toEqual([
      "/v1/responses",
      "/v1/responses",
      "/v1/messages",
      "/v1/messages",
      "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
      "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
      "/v1/responses",
    ]);
    for (const { url, body } of bodies) {
      if (url.endsWith("/responses")) checkResponses(body);
      else if (url.endsWith("/messages")) checkAnthropic(body);
      else checkGemini(body);
    }

    // The last Responses request carries both of its own reasoning items, and the other APIs' tool calls.
    const last = bodies.at(-1)!.body.input;
    expect(last.filter((item: Json) => item.type === "reasoning")).toHaveLength(2);
    expect(last.filter((item: Json) => item.type === "function_call").map((item: Json) => item.call_id)).toEqual([
      "call_Xq3vJ8Ljb2Wc0EwR1nT5",
      "call_7hKp2VzQm4Yr9NsT3dLe",
      "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
      expect.stringMatching(/^awl_gc_/),
      expect.stringMatching(/^awl_gc_/),
    ]);
    // Gemini got the earlier calls with the stand-in signature, and its own signature back on its own call.
    const geminiLast = bodies[5]!.body.contents;
    const signatures = geminiLast.flatMap((c: Json) => c.parts.filter((p: Json) => p.functionCall).slice(0, 1).map((p: Json) => p.thoughtSignature));
    expect(signatures).toEqual(["skip_thought_signature_validator", "skip_thought_signature_validator", expect.stringMatching(GEMINI_SIGNATURE)]);
    // Anthropic never saw the encrypted reasoning or a Gemini signature.
    expect(JSON.stringify(bodies[3]!.body)).not.toMatch(/gAAAAAB|CiQB/);
  });
});

describe("an image the Gemini model made, continued on every other API", () => {
  it("Gemini gets it back as inlineData; Anthropic, Responses and Chat Completions (no images in assistant turns) get its text only", async () => {
    const gemini = await createProvider(settings("gemini", "gemini-3-pro-image-preview", server.url));
    const conversation = new Conversation([{ role: "user", content: [{ type: "text", text: "Draw a red square." }] }]);
    const start = server.requests.length;
    server.enqueue({ body: fixture("gemini/image.sse") });
    await loop(gemini, conversation);
    expect(conversation.messages.at(-1)!.content.map((b) => b.type)).toEqual(["thinking", "text", "thinking", "image"]);
    conversation.addUserMessage("Describe it.");

    server.enqueue({ body: fixture("gemini/text.sse") });
    await loop(gemini, conversation);
    const toGemini = server.requests.at(-1)!.json().contents[1].parts;
    checkGemini(server.requests.at(-1)!.json());
    expect(toGemini[1]).toMatchObject({ inlineData: { mimeType: "image/png" }, thoughtSignature: expect.any(String) });

    const anthropic = await createProvider(settings("anthropic", "claude-sonnet-4-5", server.url));
    server.enqueue({ body: fixture("anthropic/text.sse") });
    await loop(anthropic, conversation);
    const toAnthropic = server.requests.at(-1)!.json();
    checkAnthropic(toAnthropic);
    expect(toAnthropic.messages[1]).toEqual({ role: "assistant", content: [{ type: "text", text: "Here is a red square:" }] });

    const responses = await createProvider(settings("openai-responses", "gpt-5-mini", `${server.url}/v1`));
    server.enqueue({ body: fixture("openai-responses/text.sse") });
    await loop(responses, conversation);
    const toResponses = server.requests.at(-1)!.json();
    checkResponses(toResponses);
    expect(toResponses.input[1]).toEqual({ role: "assistant", content: "Here is a red square:" });

    const chat = await createProvider(settings("openai", "gpt-4o", `${server.url}/v1`));
    server.enqueue({ body: fixture("openai/plain-text.sse") });
    await loop(chat, conversation);
    const toChat = server.requests.at(-1)!.json();
    expect(toChat.messages.find((m: Json) => m.role === "assistant")).toEqual({ role: "assistant", content: "Here is a red square:" });
    expect(server.requests.length - start).toBe(5);
  });
});
