import { describe, expect, it } from "vitest";
import { Conversation, toolResult } from "../../../src/model/conversation.js";
import { resolveCompat, type Compat } from "../../../src/providers/openai/compat.js";
import { buildChatRequestBody } from "../../../src/providers/openai/request.js";
import type { ToolSpec } from "../../../src/providers/types.js";
import { PNG_1X1 } from "../../support/images.js";

const compat = (baseUrl = "http://localhost:8080/v1", overrides: Record<string, unknown> = {}): Compat => {
  const resolved = resolveCompat(baseUrl, overrides);
  if ("kind" in resolved) throw new Error(resolved.message);
  return resolved;
};

// Odd but valid JSON text: key order, spacing and escapes must reach the server untouched.
const weatherSchema = '{"type":"object",  "properties":{"city":{"type":"string","description":"e.g. \\u00c9vian"}},"required":["city"]}';
const tools: ToolSpec[] = [
  { name: "get_weather", description: "Look up the weather.", schema: weatherSchema },
  { name: "now", description: 'Current "time".', schema: "{}" },
];

function toolLoop(): Conversation {
  const c = new Conversation();
  c.addSystemMessage("You are terse.");
  c.addUserMessage("Weather in Paris and Oslo?");
  c.addMessage({
    role: "assistant",
    content: [
      { type: "thinking", thinking: "Two cities." },
      { type: "text", text: "Checking." },
      { type: "tool_use", id: "call_a", name: "get_weather", input: '{"city":"Paris"}' },
      { type: "tool_use", id: "call_b", name: "get_weather", input: " " },
    ],
    stop_reason: "tool_use",
  });
  c.addToolResults([toolResult("call_a", "18°C"), toolResult("call_b", "missing city", true)]);
  return c;
}

describe("buildChatRequestBody", () => {
  it("marks a failed tool call in its text (tool messages have no error flag), and sends the system prompt first", () => {
    const body = JSON.parse(buildChatRequestBody(toolLoop(), tools, { model: "m", system: "You are awl." }, compat()) as string);
    expect(body.messages[0]).toEqual({ role: "system", content: "You are awl." });
    expect(body.messages[1]).toEqual({ role: "system", content: "You are terse." });
    const results = body.messages.filter((m: { role: string }) => m.role === "tool");
    expect(results).toEqual([
      { role: "tool", tool_call_id: "call_a", content: "18°C" },
      { role: "tool", tool_call_id: "call_b", content: "Error: missing city" },
    ]);
  });

  it("sends consecutive user texts as one message (many chat templates reject two in a row), a tool result apart", () => {
    const c = new Conversation();
    c.addUserMessage("first");
    c.addMessage({ role: "user", content: [{ type: "text", text: "[a note]" }, { type: "text", text: "second" }] });
    c.addMessage({ role: "assistant", content: [{ type: "tool_use", id: "call_1", name: "now", input: "{}" }], stop_reason: "tool_use" });
    c.addToolResults([toolResult("call_1", "noon")]);
    c.addUserMessage("third");
    const body = JSON.parse(buildChatRequestBody(c, [], { model: "m" }, compat()) as string);
    expect(body.messages).toEqual([
      { role: "user", content: "first\n\n[a note]\n\nsecond" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "now", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "call_1", content: "noon" },
      { role: "user", content: "third" },
    ]);
  });

  it("sends a prompt's images as image_url parts after its text, joined with a user text before it; a note where images are not taken", () => {
    const c = new Conversation();
    c.addUserMessage("first");
    c.addMessage({ role: "user", content: [{ type: "text", text: "what is this?" }, { type: "image", media_type: "image/png", data: PNG_1X1 }] });
    c.addMessage({ role: "user", content: [{ type: "image", media_type: "image/png", data: PNG_1X1 }] });
    const url = `data:image/png;base64,${PNG_1X1}`;
    const body = JSON.parse(buildChatRequestBody(c, [], { model: "m" }, compat()) as string);
    expect(body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "first\n\nwhat is this?" },
          { type: "image_url", image_url: { url } },
          { type: "image_url", image_url: { url } },
        ],
      },
    ]);
    const alone = new Conversation();
    alone.addMessage({ role: "user", content: [{ type: "image", media_type: "image/png", data: PNG_1X1 }] });
    expect(JSON.parse(buildChatRequestBody(alone, [], { model: "m" }, compat()) as string).messages).toEqual([{ role: "user", content: [{ type: "image_url", image_url: { url } }] }]);
    const deepseek = JSON.parse(buildChatRequestBody(alone, [], { model: "m" }, compat("https://api.deepseek.com/v1")) as string);
    expect(deepseek.messages).toEqual([{ role: "user", content: "[1 image(s) of this message were left out: this endpoint does not accept images]" }]);
  });

  it("writes model, stream, usage option, messages and tools with the schema bytes verbatim", () => {
    const body = buildChatRequestBody(toolLoop(), tools, { model: "gpt-4o" }, compat()) as string;
    expect(body.startsWith('{"model":"gpt-4o","stream":true,"stream_options":{"include_usage":true},"messages":[')).toBe(true);
    expect(body).toContain(`"parameters":${weatherSchema}}}`);
    expect(body.endsWith(
      `,"tools":[{"type":"function","function":{"name":"get_weather","description":"Look up the weather.","parameters":${weatherSchema}}},` +
        `{"type":"function","function":{"name":"now","description":"Current \\"time\\".","parameters":{}}}]}`,
    )).toBe(true);
    const parsed = JSON.parse(body);
    expect(parsed.messages).toEqual([
      { role: "system", content: "You are terse." },
      { role: "user", content: "Weather in Paris and Oslo?" },
      {
        role: "assistant",
        content: "Checking.",
        tool_calls: [
          { id: "call_a", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
          { id: "call_b", type: "function", function: { name: "get_weather", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "call_a", content: "18°C" },
      { role: "tool", tool_call_id: "call_b", content: "Error: missing city" },
    ]);
    expect(parsed).not.toHaveProperty("max_tokens");
  });

  it("is deterministic: the same input gives the same bytes", () => {
    const a = buildChatRequestBody(toolLoop(), tools, { model: "m" }, compat());
    const b = buildChatRequestBody(toolLoop(), tools.map((t) => ({ ...t })), { model: "m" }, compat());
    expect(a).toBe(b);
  });

  it("omits tools when there are none and sends max_tokens only when set, in the configured field", () => {
    const c = new Conversation();
    c.addUserMessage("hi");
    expect(JSON.parse(buildChatRequestBody(c, [], { model: "m" }, compat()) as string)).toEqual({
      model: "m",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "hi" }],
    });
    expect(JSON.parse(buildChatRequestBody(c, [], { model: "m", maxTokens: 100 }, compat()) as string).max_tokens).toBe(100);
    const openai = JSON.parse(buildChatRequestBody(c, [], { model: "m", maxTokens: 100 }, compat("https://api.openai.com/v1")) as string);
    expect(openai.max_completion_tokens).toBe(100);
    expect(openai).not.toHaveProperty("max_tokens");
  });

  it("sends content null for an assistant message with only tool calls", () => {
    const c = new Conversation();
    c.addMessage({ role: "assistant", content: [{ type: "tool_use", id: "x", name: "now", input: "{}" }] });
    expect(JSON.parse(buildChatRequestBody(c, [], { model: "m" }, compat()) as string).messages[0].content).toBeNull();
  });

  it("sends reasoning_content back for DeepSeek (detected by URL) and not elsewhere", () => {
    const deepseek = JSON.parse(buildChatRequestBody(toolLoop(), [], { model: "deepseek-reasoner" }, compat("https://api.deepseek.com")) as string);
    expect(deepseek.messages[2].reasoning_content).toBe("Two cities.");
    const other = JSON.parse(buildChatRequestBody(toolLoop(), [], { model: "m" }, compat()) as string);
    expect(other.messages[2]).not.toHaveProperty("reasoning_content");
    const forced = JSON.parse(buildChatRequestBody(toolLoop(), [], { model: "m" }, compat("http://x", { sendReasoningContent: true })) as string);
    expect(forced.messages[2].reasoning_content).toBe("Two cities.");
  });

  it("uses the developer role, and no usage option, when configured", () => {
    const body = JSON.parse(buildChatRequestBody(toolLoop(), [], { model: "m" }, compat("http://x", { systemRole: "developer", includeUsage: false })) as string);
    expect(body.messages[0]).toEqual({ role: "developer", content: "You are terse." });
    expect(body).not.toHaveProperty("stream_options");
  });

  it("sends tool-result images as a user message after the tool messages, or drops them with a note", () => {
    const c = new Conversation();
    c.addToolResults([toolResult("s1", "a screenshot", false, [{ media_type: "image/png", data: "iVBORw0KGgo=" }]), toolResult("s2", "done")]);
    const sent = JSON.parse(buildChatRequestBody(c, [], { model: "m" }, compat()) as string).messages;
    expect(sent).toEqual([
      { role: "tool", tool_call_id: "s1", content: "a screenshot" },
      { role: "tool", tool_call_id: "s2", content: "done" },
      {
        role: "user",
        content: [
          { type: "text", text: "Images returned by the tool calls above:" },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
        ],
      },
    ]);
    const dropped = JSON.parse(buildChatRequestBody(c, [], { model: "m" }, compat("https://api.deepseek.com/v1")) as string).messages;
    expect(dropped).toHaveLength(2);
    expect(dropped[0].content).toBe("a screenshot\n[1 image(s) from this tool were left out: this endpoint does not accept images]");
  });

  it("refuses a tool whose schema is not a JSON object", () => {
    const result = buildChatRequestBody(new Conversation(), [{ name: "bad", description: "", schema: "[1]" }], { model: "m" }, compat());
    expect(result).toMatchObject({ kind: "bad_request" });
  });
});
