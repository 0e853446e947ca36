/** `awl acp`: session/list, session/fork, and `/rewind` and `/fork` as slash commands, as an editor drives them. */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ReplayServer } from "../support/replay-server.js";
import { openaiToolCalls } from "../e2e/support.js";
import { acpPlaces, agentText, withAcp } from "./acp-client.js";
import { openaiAnswer } from "./openai-answer.js";

let server: ReplayServer;
let home: string;
let cwd: string;
beforeEach(async () => {
  ({ server, home, cwd } = await acpPlaces("awl-acp-"));
});
afterEach(() => server.close());

const env = () => ({ AWL_BASE_URL: `${server.url}/v1`, AWL_API_KEY: "sk-test", AWL_MODEL: "gpt-test" });
const text = (t: string) => [{ type: "text" as const, text: t }];

describe("awl acp: rewind and fork", () => {
  it("advertises /rewind and /fork; session/list lists the session; session/fork continues a copy; /rewind restores files and conversation", async () => {
    writeFileSync(join(cwd, "a.txt"), "alpha\n");
    writeFileSync(join(cwd, "c.txt"), "gamma\n");
    server.enqueue(
      { body: openaiToolCalls([{ id: "c1", name: "write", input: { path: "a.txt", content: "ALPHA\n" } }]) },
      { body: openaiToolCalls([{ id: "c2", name: "bash", input: { command: "sh -c 'rm c.txt; echo x > d.txt'" } }]) },
      openaiAnswer("Done."),
      openaiAnswer("In the fork."),
      openaiAnswer("Talked instead."),
    );
    await withAcp({ home, cwd, env: env(), args: ["--allow", "*"] }, async (ctx, awl) => {
      const init = await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      expect(init.agentCapabilities?.sessionCapabilities).toMatchObject({ list: {}, fork: {} });
      const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
      const commands = await awl.waitForUpdate((u) => u.update.sessionUpdate === "available_commands_update");
      expect((commands.update as any).availableCommands.map((c: { name: string }) => c.name)).toEqual(expect.arrayContaining(["rewind", "fork"]));
      expect((await ctx.request("session/prompt", { sessionId, prompt: text("change the files") })).stopReason).toBe("end_turn");
      expect(existsSync(join(cwd, "c.txt"))).toBe(false);

      const listed = await ctx.request("session/list", { cwd });
      expect(listed.sessions).toEqual([expect.objectContaining({ sessionId, cwd, title: "change the files" })]);

      const forked = (await ctx.request("session/fork" as any, { sessionId, cwd, mcpServers: [] })) as { sessionId: string };
      expect(forked.sessionId).not.toBe(sessionId);
      await ctx.request("session/prompt", { sessionId: forked.sessionId, prompt: text("and then?") });
      expect(JSON.stringify(server.requests[3]!.json().messages)).toContain("Done.");

      let mark = awl.updates.length;
      await ctx.request("session/prompt", { sessionId, prompt: text("/rewind") });
      expect(agentText(awl.updates.slice(mark))).toMatch(/1\. change the files {2}· 1 added, 1 modified, 1 deleted since/);
      mark = awl.updates.length;
      await ctx.request("session/prompt", { sessionId, prompt: text("/rewind 1 both") });
      const said = agentText(awl.updates.slice(mark));
      expect(said).toContain("Restored the files to before prompt 1:");
      expect(said).toContain("The conversation is back to before prompt 1");
      expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("alpha\n");
      expect(readFileSync(join(cwd, "c.txt"), "utf8")).toBe("gamma\n");
      expect(existsSync(join(cwd, "d.txt"))).toBe(false);
      // The conversation starts again from before the prompt.
      await ctx.request("session/prompt", { sessionId, prompt: text("only talk") });
      expect(server.requests[4]!.json().messages.filter((m: { role: string }) => m.role !== "system")).toHaveLength(1);
      // Reopened (session/load of the open session), the editor is given the branch in use: the rewound one.
      mark = awl.updates.length;
      await ctx.request("session/load", { sessionId, cwd, mcpServers: [] });
      const replayed = awl.updates.slice(mark).flatMap((u) => (u.update.sessionUpdate === "user_message_chunk" && u.update.content.type === "text" ? [u.update.content.text] : []));
      expect(replayed).toEqual(["only talk"]);
      expect(agentText(awl.updates.slice(mark))).toContain("Talked instead.");

      mark = awl.updates.length;
      await ctx.request("session/prompt", { sessionId, prompt: text("/rewind 9 sideways") });
      expect(agentText(awl.updates.slice(mark))).toContain("usage: /rewind");
    });
  });
});
