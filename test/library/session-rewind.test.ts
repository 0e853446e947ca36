// A library session (createAgentSession with a store and checkpoints) offers what the CLI offers: checkpoints taken
// as its turns run, rewind of the files and the conversation, branches and fork (docs/library.md, docs/checkpoints.md).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agent, createAgentSession, createProvider, SessionStore, type ToolSet } from "../../src/index.js";
import { openaiAnswer } from "../cli/openai-answer.js";
import { openaiToolCalls } from "../e2e/support.js";
import { startReplayServer, type ReplayServer } from "../support/replay-server.js";
import { tempDir } from "../support/temp-dir.js";

let server: ReplayServer;
let base: string;
beforeEach(async () => {
  server = await startReplayServer();
  base = tempDir("awl-lib-rewind-");
});
afterEach(async () => {
  await server.close();
  rmSync(base, { recursive: true, force: true });
});

/** The library user's own tool: writes a file of the workspace (declared `write`, so it waits for the checkpoint). */
function writer(root: string): ToolSet {
  return {
    definitions: () => [
      { name: "put", description: "write a file", schema: JSON.stringify({ type: "object", properties: { path: { type: "string" }, text: { type: "string" } } }), extension: "app", file: "app", parallel: true, timeout_ms: 0, kinds: ["write"] },
    ],
    execute: async (call) => {
      const input = JSON.parse(call.input) as { path: string; text: string };
      writeFileSync(join(root, input.path), input.text);
      return { status: "result", content: "written", is_error: false };
    },
  };
}

describe("a library session's rewind, branches and fork", () => {
  it("restores the files and the conversation, branches on the next prompt, and forks", async () => {
    const root = join(base, "work");
    mkdirSync(root);
    writeFileSync(join(root, "notes.txt"), "before\n");
    const provider = await createProvider({ provider: "openai", model: "m", baseUrl: `${server.url}/v1`, apiKey: "sk-test", maxRetries: 0 });
    const store = new SessionStore(join(base, "sessions"));
    const session = await createAgentSession({ agent: new Agent({ provider, tools: writer(root) }), store, cwd: root, checkpoints: { dir: join(base, "checkpoints") } });
    server.enqueue(
      { body: openaiToolCalls([{ id: "c1", name: "put", input: { path: "notes.txt", text: "after\n" } }, { id: "c2", name: "put", input: { path: "new.txt", text: "new\n" } }]) },
      openaiAnswer("Written."),
      openaiAnswer("A second answer."),
    );
    expect((await session.prompt("change the notes").done).result.stop_reason).toBe("end_turn");
    expect(readFileSync(join(root, "notes.txt"), "utf8")).toBe("after\n");

    const points = await session.rewindPoints();
    expect(points.map((p) => [p.number, p.text, p.changes])).toEqual([[1, "change the notes", { added: 1, modified: 1, deleted: 0 }]]);

    const rewound = await session.rewind({ to: 1, mode: "both" });
    expect(rewound).toMatchObject({ status: "restored", prompt: "change the notes", files: { restore: ["notes.txt"], create: [], delete: ["new.txt"] } });
    expect(readFileSync(join(root, "notes.txt"), "utf8")).toBe("before\n");
    expect(existsSync(join(root, "new.txt"))).toBe(false);
    expect(session.conversation.messages).toEqual([]);

    // The next prompt starts a branch beside the first; nothing of the first is lost.
    await session.prompt("just answer").done;
    expect(server.requests.at(-1)!.json().messages.map((m: { role: string }) => m.role)).toEqual(["user"]);
    const branches = await session.branches();
    expect(branches.map((b) => [b.text, b.branchStart, b.onBranchInUse])).toEqual([
      ["change the notes", false, false],
      ["just answer", true, true],
    ]);
    const first = branches[0]!;
    expect(await session.switchBranch(first.leaf)).toEqual({ ok: true });
    expect(session.conversation.messages.at(-1)!.content).toEqual([{ type: "text", text: "Written." }]);

    const from = session.id;
    const forked = await session.fork();
    expect(forked).toMatchObject({ ok: true, from });
    expect(session.id).not.toBe(from);
    expect(session.conversation.messages.at(-1)!.content).toEqual([{ type: "text", text: "Written." }]);
    await session.close();
  });

  it("without checkpoints, rewinds the conversation and says why the files cannot be restored", async () => {
    const provider = await createProvider({ provider: "openai", model: "m", baseUrl: `${server.url}/v1`, apiKey: "sk-test", maxRetries: 0 });
    const session = await createAgentSession({ agent: new Agent({ provider }), store: new SessionStore(join(base, "sessions")), cwd: base });
    server.enqueue(openaiAnswer("Hi."));
    await session.prompt("hello").done;
    expect(await session.rewind({ to: 1, mode: "code" })).toEqual({ status: "error", message: expect.stringContaining("checkpoints are off") });
    expect(await session.rewind({ to: 1, mode: "conversation" })).toMatchObject({ status: "restored", prompt: "hello" });
    expect(session.conversation.messages).toEqual([]);
    await session.close();
  });

  it("checkpoints without a store are refused when the session is made", async () => {
    const provider = await createProvider({ provider: "openai", model: "m", baseUrl: `${server.url}/v1`, apiKey: "sk-test", maxRetries: 0 });
    await expect(createAgentSession({ agent: new Agent({ provider }), checkpoints: true })).rejects.toThrow(/checkpoints need the store/);
  });
});
