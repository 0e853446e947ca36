// The library reaches checkpoints, rewind and forks without the CLI (SPEC §15: every surface).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CheckpointStore, forkSession, rewindCode, SessionStore } from "../../src/index.js";
import { tempDir } from "../support/temp-dir.js";

describe("checkpoints from the library", () => {
  it("takes a checkpoint, restores it, and forks the session", () => {
    const base = tempDir("awl-lib-ck-");
    const root = join(base, "work");
    mkdirSync(root);
    const sessions = new SessionStore(join(base, "sessions"));
    const created = sessions.create({ cwd: root, provider: "openai", model: "m" });
    if (!created.ok) throw new Error(created.error.message);
    created.value.appendMessage({ role: "user", content: [{ type: "text", text: "edit it" }] });
    created.value.close();
    const store = new CheckpointStore(join(base, "checkpoints"));
    writeFileSync(join(root, "notes.txt"), "before");
    const taken = store.take({ session: created.value.id, root, prompt: 1, when: "turn" });
    expect(taken.complete).toBe(true);
    writeFileSync(join(root, "notes.txt"), "after");
    store.take({ session: created.value.id, root, prompt: 1, when: "end" });
    expect(rewindCode(store, { session: created.value.id, root, prompt: 1, current: 1 }).status).toBe("restored");
    expect(readFileSync(join(root, "notes.txt"), "utf8")).toBe("before");
    const fork = forkSession(sessions, created.value.id);
    expect(fork.ok && fork.value !== created.value.id).toBe(true);
  });
});
