// A failed call's result is marked in its text on both wires, also when it has no text or comes with images.
import { describe, expect, it } from "vitest";
import { Conversation, toolResult } from "../../src/model/conversation.js";
import type { Message } from "../../src/model/message.js";
import { buildMessagesRequest } from "../../src/providers/anthropic/request.js";
import { isProviderError } from "../../src/providers/errors.js";
import { resolveCompat } from "../../src/providers/openai/compat.js";
import { buildChatRequestBody } from "../../src/providers/openai/request.js";
import { PNG_1X1 } from "../support/images.js";

function conversation(): Conversation {
  const messages: Message[] = [
    { role: "user", content: [{ type: "text", text: "go" }] },
    {
      role: "assistant",
      content: [
        { type: "tool_use", id: "c1", name: "a", input: "{}" },
        { type: "tool_use", id: "c2", name: "b", input: "{}" },
      ],
    },
  ];
  const c = new Conversation(messages);
  c.addToolResults([toolResult("c1", "", true), toolResult("c2", "see the picture", true, [{ media_type: "image/png", data: PNG_1X1 }])]);
  return c;
}

describe("a failed call's text", () => {
  it("OpenAI-compatible: starts with Error: , and says it failed when the tool said nothing", () => {
    const body = JSON.parse(buildChatRequestBody(conversation(), [], { model: "m" }, resolveCompat("http://localhost:1/v1", {})));
    const tool = body.messages.filter((m: { role: string }) => m.role === "tool");
    expect(tool.map((m: { content: string }) => m.content)).toEqual(["Error: the call failed and said nothing more", "Error: see the picture"]);
  });

  it("Anthropic: is_error, and the same text, before its images", () => {
    const request = buildMessagesRequest(conversation(), { model: "claude-sonnet-4-5", baseUrl: "https://api.anthropic.com", apiKey: "k" }, []);
    if (isProviderError(request)) throw new Error(request.message);
    const results = JSON.parse(request.body).messages.at(-1).content;
    expect(results[0]).toMatchObject({ type: "tool_result", tool_use_id: "c1", content: "Error: the call failed and said nothing more", is_error: true });
    expect(results[1]).toMatchObject({ tool_use_id: "c2", is_error: true, content: [{ type: "text", text: "Error: see the picture" }, { type: "image" }] });
  });
});
