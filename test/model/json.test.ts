import { describe, expect, it } from "vitest";
import { Conversation } from "../../src/model/conversation.js";
import { conversationFromJSON, conversationToJSON, FormatError, messageFromJSON, messageToJSON } from "../../src/model/json.js";
import type { Message } from "../../src/model/message.js";
import { TextBuffer } from "../../src/model/text-buffer.js";

const everyBlock: Message[] = [
  { role: "system", content: [{ type: "text", text: "be brief" }] },
  { role: "user", content: [{ type: "text", text: "line\u2028sep\u2029 nul\u0000 é 😀" }] },
  {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "hmm", signature: "sig==" },
      { type: "thinking", thinking: "", redacted: "opaque" },
      { type: "text", text: "calling" },
      { type: "tool_use", id: "call_1", name: "read", input: '{"path":"a.txt","n":1.5}' },
      { type: "tool_use", id: "call_2", name: "broken", input: '{"path": "unterminated' },
    ],
    stop_reason: "tool_use",
    stop_reason_raw: "tool_calls",
    usage: { input_tokens: 12, output_tokens: 3, cache_read_input_tokens: 10, cache_creation_input_tokens: 0 },
  },
  {
    role: "user",
    content: [
      { type: "tool_result", tool_use_id: "call_1", content: "file body" },
      { type: "tool_result", tool_use_id: "call_2", content: "bad input", is_error: true, images: [{ media_type: "image/png", data: "iVBOR" }] },
    ],
  },
];

describe("conversation JSON form", () => {
  it("round-trips every block type through JSON text", () => {
    const text = JSON.stringify(conversationToJSON(new Conversation(everyBlock)));
    const back = conversationFromJSON(JSON.parse(text));
    expect(back.messages).toEqual(everyBlock);
  });

  it("writes tool input as a JSON value when it parses and as a string when it does not", () => {
    const json = messageToJSON(everyBlock[2]!) as { content: Array<Record<string, unknown>> };
    expect(json.content[3]!.input).toEqual({ path: "a.txt", n: 1.5 });
    expect(json.content[4]!.input).toBe('{"path": "unterminated');
    expect(messageToJSON({ role: "assistant", content: [{ type: "tool_use", id: "x", name: "n", input: "  " }] }).content).toEqual([
      { type: "tool_use", id: "x", name: "n", input: {} },
    ]);
  });

  it("names the exact place of a malformed message", () => {
    expect(() => messageFromJSON({ role: "assistant", content: [{ type: "text", text: "ok" }, { type: "tool_use", name: "x" }] }, "messages[4]")).toThrow(
      new FormatError("messages[4].content[1].id", "expected a string, got nothing"),
    );
    expect(() => messageFromJSON({ role: "robot", content: [] })).toThrow(/message\.role: expected "system", "user" or "assistant", got string "robot"/);
    expect(() => conversationFromJSON({ version: 2, messages: [] })).toThrow(/this awl reads version 1, the data says number 2/);
  });

  it("builds conversations with the seed's add* helpers", () => {
    const conversation = new Conversation();
    conversation.addSystemMessage("be brief");
    conversation.addUserMessage("hi");
    conversation.addAssistantMessage([{ type: "text", text: "hello" }], { stop_reason: "end_turn" });
    expect(conversation.messages).toEqual([
      { role: "system", content: [{ type: "text", text: "be brief" }] },
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "assistant", content: [{ type: "text", text: "hello" }], stop_reason: "end_turn" },
    ]);
    expect(conversation.length).toBe(3);
  });

  it("lists the tool calls still waiting for a result", () => {
    const conversation = new Conversation(everyBlock.slice(0, 3));
    expect(conversation.unansweredToolUses().map((b) => b.id)).toEqual(["call_1", "call_2"]);
    conversation.addToolResults([{ type: "tool_result", tool_use_id: "call_1", content: "x" }]);
    expect(conversation.unansweredToolUses().map((b) => b.id)).toEqual(["call_2"]);
  });
});

describe("TextBuffer", () => {
  it("joins appended deltas in order and keeps appending after a read", () => {
    const buffer = new TextBuffer();
    buffer.append("a");
    buffer.append("");
    buffer.append("bc");
    expect(buffer.toString()).toBe("abc");
    buffer.append("d");
    expect(buffer.toString()).toBe("abcd");
    expect(buffer.length).toBe(4);
  });
});
