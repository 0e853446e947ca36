/** repairConversation: what a skipped line leaves becomes a conversation providers accept, in memory only. */
import { describe, expect, it } from "vitest";
import { Conversation } from "../../src/model/conversation.js";
import type { Message } from "../../src/model/index.js";
import { repairConversation } from "../../src/session/repair.js";

describe("repairConversation", () => {
  it("keeps answered results first, turns results of a missing call into text, and gives an assistant-first conversation a user note", () => {
    const results: Message = {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "gone", content: "old" },
        { type: "tool_result", tool_use_id: "c1", content: "one" },
        { type: "tool_result", tool_use_id: "c1", content: "twice" },
      ],
    };
    const saved: Message[] = [{ role: "assistant", content: [{ type: "tool_use", id: "c1", name: "t", input: "{}" }] }, results];
    const conversation = new Conversation([...saved]);
    const warnings = repairConversation(conversation, "/s.jsonl", (m) => (m === results ? 7 : undefined), true);
    expect(conversation.messages.map((m) => m.content.map((b) => (b.type === "tool_result" ? `result ${b.tool_use_id}` : b.type)))).toEqual([
      ["text"],
      ["tool_use"],
      ["result c1", "text", "text"],
    ]);
    expect(warnings.map((w) => [w.line, w.message.split(";")[0]])).toEqual([
      [7, "/s.jsonl:7: tool result(s) gone, c1 answer a call that is not in the session (its line was skipped?)"],
      [undefined, "/s.jsonl: the session's first message could not be read"],
    ]);
    expect(saved[1]).toBe(results); // the saved messages (the transcript) are not changed
    expect(results.content).toHaveLength(3);
  });

  it("leaves a whole conversation alone", () => {
    const messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "t", input: "{}" }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "c1", content: "one" }] },
    ];
    const conversation = new Conversation([...messages]);
    expect(repairConversation(conversation, "/s.jsonl", () => 1, true)).toEqual([]);
    expect(conversation.messages).toEqual(messages);
    const assistantFirst = new Conversation(messages.slice(1));
    expect(repairConversation(assistantFirst, "/s.jsonl", () => 1, false)).toEqual([]); // saved so on purpose, not damaged
    expect(assistantFirst.messages).toEqual(messages.slice(1));
  });
});
