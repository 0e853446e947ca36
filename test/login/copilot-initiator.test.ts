/**
 * The `copilot` provider as a library user builds it (createProvider), against the fake: a call a person starts is
 * sent with `X-Initiator: user`, the agent's call after tool results with `X-Initiator: agent` (Copilot counts a
 * premium request only for the first), and both with the token refreshed from the stored sign-in.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Conversation } from "../../src/model/conversation.js";
import type { Message } from "../../src/model/message.js";
import { createProvider } from "../../src/providers/create.js";
import { tempDir } from "../cli/run-awl.js";
import { startFakeLoginServer, type FakeLoginServer } from "../support/fake-login-server.js";

let fake: FakeLoginServer;
beforeAll(async () => {
  fake = await startFakeLoginServer();
});
afterAll(() => fake.close());

it("sends X-Initiator user for a prompt and agent after tool results", async () => {
  const dataDir = tempDir();
  mkdirSync(join(dataDir, "logins"), { recursive: true });
  writeFileSync(join(dataDir, "logins", "copilot.json"), JSON.stringify({ version: 1, provider: "copilot", refresh_token: fake.githubToken }));
  const provider = await createProvider({ provider: "copilot", model: "gpt-4.1", baseUrl: "", maxRetries: 0, stallTimeoutMs: 10_000, login: { dataDir, fileOnly: true, testServer: fake.url } });
  const prompt: Message = { role: "user", content: [{ type: "text", text: "list the files" }] };
  const first = await provider.streamStep(new Conversation([prompt]), {});
  expect(first.ok).toBe(true);
  expect(fake.requests.at(-1)!.headers["x-initiator"]).toBe("user");
  const call: Message = { role: "assistant", content: [{ type: "tool_use", id: "call_1", name: "ls", input: "{}" }] };
  const result: Message = { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: "a.txt" }] };
  const second = await provider.streamStep(new Conversation([prompt, call, result]), {});
  expect(second.ok).toBe(true);
  const sent = fake.requests.at(-1)!;
  expect(sent.headers["x-initiator"]).toBe("agent");
  expect(sent.headers.authorization).toBe(`Bearer ${fake.copilotTokens.at(-1)}`);
  // One token fetched for both calls: the second reused the fresh one.
  expect(fake.copilotTokens.length).toBe(1);
});
