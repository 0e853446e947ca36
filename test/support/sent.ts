import { expect } from "vitest";

/**
 * The conversation a request body carried, without awl's system prompt: on OpenAI-compatible requests it is the
 * first message (checked here, so it cannot go missing unnoticed); Anthropic carries it in `system`.
 */
export function conversationSent(body: { messages: { role: string }[]; system?: unknown }): any[] {
  if (body.system !== undefined) return body.messages;
  expect(body.messages[0]?.role, "the system prompt comes first").toBe("system");
  return body.messages.slice(1);
}
