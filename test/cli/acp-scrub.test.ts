// Credentials never reach an ACP client (issue 22 item 6): a tool result that holds the API key, a tool error
// that holds it, a tool call's title made of it and a model answer that repeats it are sent to the editor with
// the key replaced by [REDACTED]; the bytes `awl acp` writes to its stdout never hold it.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openaiToolCalls } from "../e2e/support.js";
import type { ReplayServer } from "../support/replay-server.js";
import { acpPlaces, agentText, withAcp } from "./acp-client.js";
import { openaiAnswer } from "./openai-answer.js";

const KEY = "sk-acp-0123456789abcdefXYZ";

let server: ReplayServer;
let home: string;
let cwd: string;
beforeEach(async () => {
  ({ server, home, cwd } = await acpPlaces("awl-acp-scrub-"));
});
afterEach(() => server.close());

describe("awl acp scrubs credentials", () => {
  it("from tool results, tool errors, tool titles and answers it sends the client", async () => {
    writeFileSync(join(cwd, "notes.txt"), `deploy with ${KEY} tonight\n`);
    server.enqueue(
      { body: openaiToolCalls([{ id: "r1", name: "read", input: { path: "notes.txt" } }, { id: "r2", name: "read", input: { path: `${KEY}.txt` } }]) },
      openaiAnswer(`The key is ${KEY}, and the file ${KEY}.txt is missing.`),
    );
    const env = { AWL_BASE_URL: `${server.url}/v1`, AWL_API_KEY: KEY, AWL_MODEL: "gpt-test" };
    await withAcp({ home, cwd, env }, async (ctx, awl) => {
      const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
      const response = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "read the notes" }] });
      expect(response.stopReason).toBe("end_turn");
      // The key did go through awl: the model was sent it in the tool result (what the client must not see).
      expect(JSON.stringify(server.requests[1]!.json().messages)).toContain(KEY);
      const updates = awl.updates.map((u) => u.update);
      const done = updates.filter((u) => u.sessionUpdate === "tool_call_update" && (u.status === "completed" || u.status === "failed"));
      expect(done.map((u) => u.toolCallId).sort()).toEqual(["r1", "r2"]);
      const sent = (id: string): string => JSON.stringify(updates.filter((u) => "toolCallId" in u && u.toolCallId === id));
      expect(sent("r1")).toContain("deploy with [REDACTED] tonight");
      expect(sent("r2")).toContain("[REDACTED].txt");
      expect(agentText(awl.updates)).toBe("The key is [REDACTED], and the file [REDACTED].txt is missing.");
      expect(awl.stdout()).not.toContain(KEY);
      expect(awl.stdout()).not.toContain(KEY.slice(0, 12));
    });
  });
});
