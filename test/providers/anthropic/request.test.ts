import { describe, expect, it } from "vitest";
import { Conversation, toolResult } from "../../../src/model/conversation.js";
import type { Message } from "../../../src/model/message.js";
import { buildMessagesRequest, defaultMaxTokens, messagesUrl, type AnthropicRequestSettings } from "../../../src/providers/anthropic/request.js";
import { isProviderError } from "../../../src/providers/errors.js";
import type { ToolSpec } from "../../../src/providers/types.js";
import { PNG_1X1 } from "../../support/images.js";

const SETTINGS: AnthropicRequestSettings = { model: "claude-sonnet-4-5", baseUrl: "https://api.anthropic.com", apiKey: "sk-ant-test" };
const EPHEMERAL = { type: "ephemeral" };

function build(messages: Message[], settings: Partial<AnthropicRequestSettings> = {}, tools: ToolSpec[] = []) {
  const request = buildMessagesRequest(new Conversation(messages), { ...SETTINGS, ...settings }, tools);
  if (isProviderError(request)) throw new Error(request.message);
  return { ...request, json: JSON.parse(request.body) as Record<string, any> };
}

const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
const assistant = (...content: Message["content"]): Message => ({ role: "assistant", content });

describe("Anthropic request", () => {
  it("POSTs to {base}/v1/messages with the key, the API version and stream: true", () => {
    const request = build([user("hi")]);
    expect(request.url).toBe("https://api.anthropic.com/v1/messages");
    expect(request.headers).toMatchObject({ "x-api-key": "sk-ant-test", "anthropic-version": "2023-06-01", "content-type": "application/json" });
    expect(request.json).toMatchObject({ model: "claude-sonnet-4-5", stream: true, max_tokens: 32000 });
    expect(messagesUrl("http://127.0.0.1:3456/")).toBe("http://127.0.0.1:3456/v1/messages");
    expect(messagesUrl("https://proxy.example/anthropic/v1")).toBe("https://proxy.example/anthropic/v1/messages");
    expect(build([user("hi")], { apiKey: undefined }).headers["x-api-key"]).toBeUndefined();
  });

  it("chooses max_tokens by model family unless configured", () => {
    const models = ["claude-3-haiku-20240307", "claude-3-opus-latest", "claude-3-5-sonnet-20241022", "claude-3-7-sonnet-latest", "claude-opus-4-1", "llama3"];
    expect(models.map(defaultMaxTokens)).toEqual([4096, 4096, 8192, 32000, 32000, 8192]);
    expect(build([user("hi")], { maxTokens: 1234 }).json.max_tokens).toBe(1234);
  });

  it("sends the thinking setting: a budget, adaptive, off, or nothing when unset", () => {
    expect(build([user("hi")], { thinking: 10000 }).json).toMatchObject({ thinking: { type: "enabled", budget_tokens: 10000 }, max_tokens: 32000 });
    expect(build([user("hi")], { thinking: "adaptive" }).json).toMatchObject({ thinking: { type: "adaptive" }, max_tokens: 32000 });
    expect(build([user("hi")], { thinking: "off" }).json.thinking).toEqual({ type: "disabled" });
    expect("thinking" in build([user("hi")]).json).toBe(false);
    // The field comes last, after the tools: the same settings give the same bytes.
    expect(build([user("hi")], { thinking: "adaptive", maxTokens: 2000 }).body).toBe(
      '{"model":"claude-sonnet-4-5","max_tokens":2000,"stream":true,"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}],"thinking":{"type":"adaptive"}}',
    );
  });

  it("refuses a budget that is not below max_tokens, naming both values, and a setting that is no budget", () => {
    const refused = (settings: Partial<AnthropicRequestSettings>) => {
      const request = buildMessagesRequest(new Conversation([user("hi")]), { ...SETTINGS, ...settings });
      if (!isProviderError(request)) throw new Error("expected an error");
      return request;
    };
    expect(refused({ thinking: 10000, maxTokens: 10000 })).toEqual({
      kind: "config",
      retryable: false,
      message: "the thinking budget 10000 is not below max_tokens 10000, which Anthropic rejects: raise maxTokens above the budget or lower the budget",
    });
    expect(refused({ thinking: 40000 }).message).toContain("budget 40000 is not below max_tokens 32000");
    expect(refused({ thinking: 500 }).message).toBe('the thinking setting 500 is not "off", "adaptive" or a budget of at least 1024 tokens');
    expect(refused({ thinking: "lots" as never }).kind).toBe("config");
    expect(build([user("hi")], { thinking: 10000, maxTokens: 10001 }).json.max_tokens).toBe(10001);
  });

  it("asks for interleaved thinking (beta header) with a budget and tools, unless switched off", () => {
    const tools: ToolSpec[] = [{ name: "read", description: "Read a file.", schema: '{"type":"object"}' }];
    expect(build([user("hi")], { thinking: 2048 }, tools).headers["anthropic-beta"]).toBe("interleaved-thinking-2025-05-14");
    expect(build([user("hi")], { thinking: 2048, interleavedThinking: true }, tools).headers["anthropic-beta"]).toBe("interleaved-thinking-2025-05-14");
    expect(build([user("hi")], { thinking: 2048, interleavedThinking: false }, tools).headers["anthropic-beta"]).toBeUndefined();
    // No tools: nothing to interleave. Adaptive thinking interleaves without the beta; off and unset do not think.
    expect(build([user("hi")], { thinking: 2048 }).headers["anthropic-beta"]).toBeUndefined();
    for (const thinking of ["adaptive", "off", undefined] as const)
      expect(build([user("hi")], { thinking }, tools).headers["anthropic-beta"], String(thinking)).toBeUndefined();
  });

  it("concatenates every system message into `system`, cached", () => {
    const request = build([
      { role: "system", content: [{ type: "text", text: "You are awl." }] },
      user("hi"),
      { role: "system", content: [{ type: "text", text: "Be brief." }] },
    ]);
    expect(request.json.system).toEqual([{ type: "text", text: "You are awl.\n\nBe brief.", cache_control: EPHEMERAL }]);
    expect(request.json.messages).toEqual([{ role: "user", content: [{ type: "text", text: "hi", cache_control: EPHEMERAL }] }]);
    expect(build([user("hi")]).json.system).toBeUndefined();
  });

  it("sends tool schemas byte for byte, the last tool cached, the same bytes every time", () => {
    const schema = '{ "type":"object",  "properties": {"n": {"type": "integer", "maximum": 12345678901234567890}, "a": {}}, "required":["n"] }';
    const tools: ToolSpec[] = [
      { name: "read", description: "Read a file.", schema: '{"type":"object","properties":{}}' },
      { name: "count", description: "Count.", schema },
    ];
    const first = build([user("hi")], {}, tools);
    expect(first.body).toContain(`{"name":"count","description":"Count.","input_schema":${schema},"cache_control":{"type":"ephemeral"}}`);
    expect(first.body).toContain('{"name":"read","description":"Read a file.","input_schema":{"type":"object","properties":{}}}');
    expect(build([user("hi")], {}, tools).body).toBe(first.body);
  });

  it("sends a prompt's images as base64 image blocks in its user message, in their place", () => {
    const request = build([{ role: "user", content: [{ type: "text", text: "what is this?" }, { type: "image", media_type: "image/png", data: PNG_1X1 }] }]);
    expect(request.json.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "what is this?" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_1X1 }, cache_control: EPHEMERAL },
        ],
      },
    ]);
  });

  it("sends tool results as tool_result blocks on one user message, with is_error and images", () => {
    const request = build([
      user("look"),
      assistant(
        { type: "tool_use", id: "toolu_1", name: "read", input: '{"path":"a.png"}' },
        { type: "tool_use", id: "toolu_2", name: "ls", input: "" },
      ),
      {
        role: "user",
        content: [
          toolResult("toolu_1", "the image", false, [{ media_type: "image/png", data: "iVBORw0KGgo=" }]),
          toolResult("toolu_2", "no such directory", true),
        ],
      },
    ]);
    expect(request.json.messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "tool_use", id: "toolu_1", name: "read", input: { path: "a.png" } },
        { type: "tool_use", id: "toolu_2", name: "ls", input: {} },
      ],
    });
    expect(request.json.messages[2]).toEqual({
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_1",
          content: [
            { type: "text", text: "the image" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
          ],
        },
        { type: "tool_result", tool_use_id: "toolu_2", content: "Error: no such directory", is_error: true, cache_control: EPHEMERAL },
      ],
    });
  });

  it("sends the model's tool input bytes back unchanged", () => {
    const input = '{"n": 12345678901234567890, "s": "x"}';
    const request = build([user("go"), assistant({ type: "tool_use", id: "toolu_1", name: "count", input }), { role: "user", content: [toolResult("toolu_1", "ok")] }]);
    expect(request.body).toContain(`"input":${input}`);
  });

  it("sends signed thinking back with its signature and redacted thinking opaque, in order", () => {
    const request = build([
      user("weather?"),
      assistant(
        { type: "thinking", thinking: "Call the tool.", signature: "sig-abc" },
        { type: "thinking", thinking: "", redacted: "opaque==" },
        { type: "text", text: "Checking." },
        { type: "tool_use", id: "toolu_1", name: "get_weather", input: '{"city":"Paris"}' },
      ),
      { role: "user", content: [toolResult("toolu_1", "sunny")] },
    ]);
    expect(request.json.messages[1].content.slice(0, 2)).toEqual([
      { type: "thinking", thinking: "Call the tool.", signature: "sig-abc" },
      { type: "redacted_thinking", data: "opaque==" },
    ]);
  });

  it("puts cache breakpoints on the latest turn and on the user turn before it, never on thinking", () => {
    const request = build([
      user("one"),
      assistant({ type: "text", text: "two" }),
      user("three"),
      assistant({ type: "text", text: "four" }, { type: "thinking", thinking: "t", signature: "s" }),
    ]);
    const marked = (request.json.messages as Array<{ content: Array<Record<string, unknown>> }>).map((m) => m.content.map((b) => "cache_control" in b));
    expect(marked).toEqual([[false], [false], [true], [true, false]]);
    const all = request.body.match(/cache_control/g) ?? [];
    expect(all.length).toBeLessThanOrEqual(4);
  });

  it("drops empty text, merges same-role messages, and puts tool results first in a user message", () => {
    const request = build([
      user("a"),
      user(""),
      assistant({ type: "text", text: "" }, { type: "tool_use", id: "t1", name: "n", input: "{}" }),
      { role: "user", content: [{ type: "text", text: "also this" }] },
      { role: "user", content: [toolResult("t1", "r")] },
    ]);
    expect(request.json.messages.map((m: Message) => [m.role, m.content.map((b) => b.type)])).toEqual([
      ["user", ["text"]],
      ["assistant", ["tool_use"]],
      ["user", ["tool_result", "text"]],
    ]);
  });

  it("refuses a conversation with nothing to send", () => {
    const request = buildMessagesRequest(new Conversation([{ role: "system", content: [{ type: "text", text: "s" }] }]), SETTINGS);
    expect(request).toMatchObject({ kind: "bad_request" });
  });
});

describe("Anthropic request: conversations that come from another provider", () => {
  it("drops thinking without a signature, and an assistant message left empty by it", () => {
    const request = build([
      user("q1"),
      assistant({ type: "thinking", thinking: "reasoning_content from DeepSeek" }, { type: "text", text: "a1" }),
      user("q2"),
      assistant({ type: "thinking", thinking: "only thinking" }),
      user("q3"),
    ]);
    expect(request.body).not.toContain("reasoning_content from DeepSeek");
    expect(request.json.messages.map((m: Message) => [m.role, m.content.map((b) => (b.type === "text" ? b.text : b.type))])).toEqual([
      ["user", ["q1"]],
      ["assistant", ["a1"]],
      ["user", ["q2", "q3"]],
    ]);
  });

  it("rewrites tool ids that Anthropic rejects, the same way for the tool_use and its tool_result", () => {
    const request = build([
      user("go"),
      assistant(
        { type: "tool_use", id: "functions.read:0", name: "read", input: "{}" },
        { type: "tool_use", id: "functions.read:1", name: "read", input: "{}" },
        { type: "tool_use", id: "", name: "ls", input: "{}" },
      ),
      { role: "user", content: [toolResult("functions.read:1", "b"), toolResult("functions.read:0", "a"), toolResult("", "c")] },
    ]);
    const uses = request.json.messages[1].content.map((b: { id: string }) => b.id);
    const results = request.json.messages[2].content.map((b: { tool_use_id: string; content: string }) => [b.tool_use_id, b.content]);
    expect(uses).toEqual(["functions_read_0", "functions_read_1", "toolu_awl"]);
    expect(results).toEqual([["functions_read_1", "b"], ["functions_read_0", "a"], ["toolu_awl", "c"]]);
    for (const id of uses) expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
  });

  it("gives a tool id that a server reuses in every turn a unique id per turn", () => {
    const turn = (result: string): Message[] => [
      assistant({ type: "tool_use", id: "call_0", name: "read", input: "{}" }),
      { role: "user", content: [toolResult("call_0", result)] },
    ];
    const request = build([user("go"), ...turn("first"), ...turn("second")]);
    const pairs = (request.json.messages as Array<{ content: Array<{ id?: string; tool_use_id?: string }> }>).slice(1).map((m) => m.content[0]!.id ?? m.content[0]!.tool_use_id);
    expect(pairs).toEqual(["call_0", "call_0", "call_0_2", "call_0_2"]);
  });

  it("sends a tool input that is not a JSON object as {}", () => {
    const request = build([user("go"), assistant({ type: "tool_use", id: "c1", name: "n", input: '{"broken": ' }), { role: "user", content: [toolResult("c1", "invalid input", true)] }]);
    expect(request.json.messages[1].content[0].input).toEqual({});
  });
});
