// The per-message wire cache (issue 14 bench): a request built from cached fragments is byte-for-byte the request a
// fresh serialisation gives, for both providers, as the conversation grows, is compacted and is edited in place;
// and both are the bytes the builders sent before the cache existed (test/fixtures/wire/bodies.json).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { applyCompaction } from "../../src/model/compaction.js";
import { Conversation } from "../../src/model/conversation.js";
import type { Message } from "../../src/model/message.js";
import { createAnthropicWireCache, type AnthropicWireCache } from "../../src/providers/anthropic/convert-messages.js";
import { buildMessagesRequest } from "../../src/providers/anthropic/request.js";
import { resolveCompat, type Compat } from "../../src/providers/openai/compat.js";
import { buildChatRequestBody, createChatWireCache, type ChatWireCache } from "../../src/providers/openai/request.js";
import { isProviderError } from "../../src/providers/errors.js";
import { mixedMessages, WIRE_CASES, WIRE_TOOLS } from "./wire-cases.js";

const GOLDEN = JSON.parse(readFileSync(new URL("../fixtures/wire/bodies.json", import.meta.url), "utf8")) as Record<string, { openai: string; anthropic: string }>;
const ANTHROPIC = { model: "claude-sonnet-4-5", baseUrl: "http://x", maxTokens: 8192, thinking: 2048 } as const;

function compatFor(baseUrl: string, overrides?: Record<string, unknown>): Compat {
  const compat = resolveCompat(baseUrl, overrides);
  if (isProviderError(compat)) throw new Error(compat.message);
  return compat;
}

function openaiBody(messages: Message[], compat: Compat, cache?: ChatWireCache, system?: string): string {
  const body = buildChatRequestBody(new Conversation(messages), WIRE_TOOLS, { model: "m", system }, compat, cache);
  if (isProviderError(body)) throw new Error(body.message);
  return body;
}

function anthropicBody(messages: Message[], cache?: AnthropicWireCache, system?: string): string {
  const request = buildMessagesRequest(new Conversation(messages), ANTHROPIC, WIRE_TOOLS, system, cache);
  if (isProviderError(request)) throw new Error(request.message);
  return request.body;
}

/** Both providers' bodies from a long-lived cache, each checked against a fresh serialisation; returns them. */
function checkBoth(messages: Message[], caches: { openai: ChatWireCache; anthropic: AnthropicWireCache }, compat = compatFor("http://localhost:8080/v1")) {
  const openai = openaiBody(messages, compat, caches.openai, "You are awl.");
  expect(openai).toBe(openaiBody(messages, compat, undefined, "You are awl."));
  const anthropic = anthropicBody(messages, caches.anthropic, "You are awl.");
  expect(anthropic).toBe(anthropicBody(messages, undefined, "You are awl."));
  return { openai, anthropic };
}

const freshCaches = () => ({ openai: createChatWireCache(), anthropic: createAnthropicWireCache() });

describe("request bodies from the per-message wire cache", () => {
  it("are the bytes the builders sent before the cache, cold and warm, for every case", () => {
    for (const c of WIRE_CASES) {
      const compat = compatFor(c.openai.baseUrl, c.openai.compat);
      const settings = { model: "m", maxTokens: c.openai.maxTokens, system: c.system };
      const caches = freshCaches();
      for (let round = 0; round < 2; round++) {
        const conversation = new Conversation(c.messages());
        expect(buildChatRequestBody(conversation, c.tools, settings, compat, caches.openai), `${c.name} openai round ${round}`).toBe(GOLDEN[c.name]!.openai);
        const request = buildMessagesRequest(conversation, ANTHROPIC, c.tools, c.system, caches.anthropic);
        expect(isProviderError(request) ? request : request.body, `${c.name} anthropic round ${round}`).toBe(GOLDEN[c.name]!.anthropic);
      }
    }
  });

  it("stay byte-identical to a fresh serialisation as the conversation grows message by message", () => {
    const all = mixedMessages(8);
    const caches = freshCaches();
    const messages: Message[] = [];
    for (const message of all) {
      messages.push(message);
      if (messages.some((m) => m.role !== "system")) checkBoth(messages, caches);
    }
  });

  it("stay byte-identical after a compaction prunes tool outputs and replaces old messages with a summary", () => {
    const caches = freshCaches();
    const messages = mixedMessages(8);
    checkBoth(messages, caches);
    const pruned = applyCompaction(messages, { replaces: 0, pruned: ["toolu_1b", "call_0"] });
    const afterPrune = checkBoth(pruned, caches);
    expect(afterPrune.openai).toContain("was pruned to save context");
    const summarised = applyCompaction(pruned, { summary: "We fixed rounds 0 to 3.", replaces: 20 });
    const afterSummary = checkBoth(summarised, caches);
    expect(afterSummary.anthropic).toContain("We fixed rounds 0 to 3.");
    expect(afterSummary.anthropic.length).toBeLessThan(afterPrune.anthropic.length);
  });

  it("see every in-place edit of a message, including edits that keep the text's length", () => {
    const caches = freshCaches();
    const messages = mixedMessages(6);
    let before = checkBoth(messages, caches);
    const edits: Array<[string, () => void]> = [
      ["text of the same length", () => ((messages[1]!.content[0] as { text: string }).text = (messages[1]!.content[0] as { text: string }).text.replace("Round", "ROUND"))],
      ["a tool result appended to a message (the invariant's repair)", () => messages[4]!.content.push({ type: "tool_result", tool_use_id: "late", content: "synthetic" })],
      ["a result marked as an error", () => Object.assign(messages[4]!.content[1]!, { is_error: true })],
      ["an image's data replaced", () => {
        const withImage = messages.find((m) => m.content.some((b) => b.type === "tool_result" && b.images))!;
        const block = withImage.content.find((b) => b.type === "tool_result" && b.images) as { images: { data: string }[] };
        block.images[0]!.data = "AAAAAAAAAAA=";
      }],
      ["a signature added to unsigned thinking", () => Object.assign(messages.find((m) => m.content.some((b) => b.type === "thinking" && !("signature" in b)))!.content[0]!, { signature: "new" })],
      // The next message's tool_use then collides with this id: Anthropic's ids of LATER messages change.
      ["a tool id that later ones now collide with", () => Object.assign(messages[2]!.content.find((b) => b.type === "tool_use")!, { id: "toolu_1b" })],
      ["a block removed", () => messages[2]!.content.splice(0, 1)],
      ["a message's role", () => (messages[messages.length - 2]!.role = "user")],
    ];
    for (const [what, edit] of edits) {
      edit();
      const after = checkBoth(messages, caches);
      expect(after.openai + after.anthropic, what).not.toBe(before.openai + before.anthropic);
      before = after;
    }
  });

  it("stay byte-identical when another conversation shares the cache in between, a request is sent twice, or one message object appears twice", () => {
    const caches = freshCaches();
    const main = mixedMessages(6);
    checkBoth(main, caches);
    const summary: Message[] = [...main.slice(0, 8), { role: "user", content: [{ type: "text", text: "Summarise the conversation." }] }];
    checkBoth(summary, caches);
    checkBoth(main, caches);
    checkBoth(main, caches);
    main.push(main[1]!, main[2]!, main[3]!);
    checkBoth(main, caches);
    main.push({ role: "assistant", content: [{ type: "text", text: "again" }] }, main[1]!);
    checkBoth(main, caches);
    main.splice(3, 1);
    checkBoth(main, caches);
  });

  it("are rebuilt when the wire options change (another compat on the same cache)", () => {
    const cache = createChatWireCache();
    const messages = mixedMessages(4);
    const plain = compatFor("http://localhost:8080/v1");
    const deepseek = compatFor("https://api.deepseek.com");
    const developer = compatFor("http://localhost:8080/v1", { systemRole: "developer" });
    for (const compat of [plain, deepseek, developer, plain]) expect(openaiBody(messages, compat, cache)).toBe(openaiBody(messages, compat));
    expect(openaiBody(messages, deepseek, cache)).toContain('"reasoning_content"');
    expect(openaiBody(messages, developer, cache)).toContain('"role":"developer"');
  });
});
