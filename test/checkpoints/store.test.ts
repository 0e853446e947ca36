import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync, readdirSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CheckpointStore } from "../../src/checkpoints/store.js";
import { flattenTree } from "../../src/checkpoints/tree.js";
import { applyJournal, planRestore, readJournal, writeJournal } from "../../src/checkpoints/restore.js";
import { journalFile, rewindCode } from "../../src/checkpoints/rewind.js";
import { pruneCheckpoints } from "../../src/checkpoints/prune.js";
import { tempDir } from "../support/temp-dir.js";

const SESSION = "20260101-000000-000-abcdef";

function setup(): { root: string; store: CheckpointStore } {
  const base = tempDir("awl-ck-");
  const root = join(base, "work");
  mkdirSync(root);
  return { root, store: new CheckpointStore(join(base, "store")) };
}

function files(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string, rel: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(join(dir, e.name), path);
      else out[path] = readFileSync(join(dir, e.name), "utf8");
    }
  };
  walk(root, "");
  return out;
}

describe("checkpoint store", () => {
  it("records a tree, shares unchanged content, and restores bytes, modes, added and deleted files", () => {
    const { root, store } = setup();
    writeFileSync(join(root, "a.txt"), "alpha\n");
    mkdirSync(join(root, "src"));
    writeFileSync(join(root, "src", "run.sh"), "#!/bin/sh\necho hi\n");
    chmodSync(join(root, "src", "run.sh"), 0o755);
    writeFileSync(join(root, "c.txt"), "gamma\n");
    const first = store.take({ session: SESSION, root, prompt: 1, when: "turn" });
    expect(first.complete).toBe(true);
    expect(first.files).toBe(3);
    const objectsBefore = [...store.objects.list()].length;
    const again = store.take({ session: SESSION, root, prompt: 1, when: "tools" });
    expect(again.tree).toBe(first.tree);
    expect([...store.objects.list()].length).toBe(objectsBefore);

    writeFileSync(join(root, "a.txt"), "changed\n");
    chmodSync(join(root, "src", "run.sh"), 0o644);
    rmSync(join(root, "c.txt"));
    writeFileSync(join(root, "d.txt"), "x\n");
    mkdirSync(join(root, "new", "deep"), { recursive: true });
    writeFileSync(join(root, "new", "deep", "e.txt"), "e\n");
    store.take({ session: SESSION, root, prompt: 1, when: "end" });

    const outcome = rewindCode(store, { session: SESSION, root, prompt: 1, current: 1 });
    expect(outcome.status).toBe("restored");
    expect(files(root)).toEqual({ "a.txt": "alpha\n", "c.txt": "gamma\n", "src/run.sh": "#!/bin/sh\necho hi\n" });
    expect(statSync(join(root, "src", "run.sh")).mode & 0o777).toBe(0o755);
    expect(existsSync(join(root, "new"))).toBe(false);
  });

  it("works in a linked git worktree (`.git` a file): the main repository's info/exclude applies, nothing fails", () => {
    const base = tempDir("awl-ck-wt-");
    const main = join(base, "main");
    const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, stdio: "pipe" });
    mkdirSync(main);
    git(main, "init", "-q");
    writeFileSync(join(main, "a.txt"), "a\n");
    git(main, "add", ".");
    git(main, "commit", "-qm", "one");
    const root = join(base, "linked");
    git(main, "worktree", "add", "-q", root);
    writeFileSync(join(main, ".git", "info", "exclude"), "secret.txt\n");
    writeFileSync(join(root, "secret.txt"), "s");
    writeFileSync(join(root, "b.txt"), "b");
    const store = new CheckpointStore(join(base, "store"));
    const ck = store.take({ session: SESSION, root, prompt: 1, when: "turn" });
    expect(ck.complete).toBe(true);
    expect(ck.ignored).toContain("secret.txt");
    expect([...flattenTree(store.objects, ck.tree!).keys()].sort()).toEqual(["a.txt", "b.txt"]);
    // Taken again (the ignore files' key is read again): still no failure, nothing new.
    expect(store.take({ session: SESSION, root, prompt: 1, when: "end" }).tree).toBe(ck.tree);
  });

  it("leaves ignored files, .git and oversized files alone, naming what it skipped", () => {
    const { root, store } = setup();
    writeFileSync(join(root, ".gitignore"), "node_modules/\n");
    writeFileSync(join(root, ".awlignore"), "*.log\n");
    mkdirSync(join(root, "node_modules", "pkg"), { recursive: true });
    writeFileSync(join(root, "node_modules", "pkg", "index.js"), "1");
    mkdirSync(join(root, ".git"));
    writeFileSync(join(root, ".git", "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(root, "debug.log"), "log");
    writeFileSync(join(root, "big.bin"), Buffer.alloc(2048));
    writeFileSync(join(root, "keep.txt"), "keep");
    const ck = store.take({ session: SESSION, root, prompt: 1, when: "turn", limits: { maxFileSize: 1024 } });
    expect(ck.complete).toBe(true);
    expect(ck.skipped).toEqual([{ path: "big.bin", reason: expect.stringContaining("larger than the 1 KB limit") }]);
    expect(ck.ignored).toEqual(expect.arrayContaining(["node_modules/", "debug.log"]));
    const flat = flattenTree(store.objects, ck.tree!);
    expect([...flat.keys()].sort()).toEqual([".awlignore", ".gitignore", "big.bin", "keep.txt"]);

    writeFileSync(join(root, "node_modules", "pkg", "index.js"), "2");
    writeFileSync(join(root, ".git", "HEAD"), "changed");
    writeFileSync(join(root, "big.bin"), Buffer.alloc(4096));
    writeFileSync(join(root, "keep.txt"), "edited by the model");
    store.take({ session: SESSION, root, prompt: 1, when: "end", limits: { maxFileSize: 1024 } });
    const outcome = rewindCode(store, { session: SESSION, root, prompt: 1, current: 1, limits: { maxFileSize: 1024 } });
    expect(outcome.status).toBe("restored");
    expect(readFileSync(join(root, "keep.txt"), "utf8")).toBe("keep");
    expect(readFileSync(join(root, "node_modules", "pkg", "index.js"), "utf8")).toBe("2");
    expect(readFileSync(join(root, ".git", "HEAD"), "utf8")).toBe("changed");
    expect(statSync(join(root, "big.bin")).size).toBe(4096);
  });

  it("skips sockets and unreadable files, naming them", async () => {
    const { root, store } = setup();
    writeFileSync(join(root, "secret.txt"), "s");
    chmodSync(join(root, "secret.txt"), 0o000);
    const server = createServer();
    await new Promise<void>((done) => server.listen(join(root, "agent.sock"), done));
    try {
      const ck = store.take({ session: SESSION, root, prompt: 1, when: "turn" });
      expect(ck.complete).toBe(true);
      const reasons = Object.fromEntries((ck.skipped ?? []).map((s) => [s.path, s.reason]));
      expect(reasons["agent.sock"]).toContain("socket");
      if (process.getuid?.() !== 0) expect(reasons["secret.txt"]).toContain("EACCES");
    } finally {
      server.close();
    }
  });

  it("names a file changed outside awl since its newest checkpoint and does not overwrite it unless confirmed", () => {
    const { root, store } = setup();
    writeFileSync(join(root, "a.txt"), "one");
    store.take({ session: SESSION, root, prompt: 1, when: "turn" });
    writeFileSync(join(root, "a.txt"), "model's edit");
    store.take({ session: SESSION, root, prompt: 1, when: "end" });
    writeFileSync(join(root, "a.txt"), "user's edit, longer");
    const refused = rewindCode(store, { session: SESSION, root, prompt: 1, current: 1 });
    expect(refused.status).toBe("conflicts");
    if (refused.status === "conflicts") expect(refused.plan.conflicts).toEqual(["a.txt"]);
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("user's edit, longer");
    // Still refused when asked again: the rewind's own record of the present is not awl's view of the workspace.
    expect(rewindCode(store, { session: SESSION, root, prompt: 1, current: 1 }).status).toBe("conflicts");
    expect(rewindCode(store, { session: SESSION, root, prompt: 1, current: 1, overwriteChanged: true }).status).toBe("restored");
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("one");
  });

  it("plans only where the trees differ, deep folders included: unchanged folders skipped, changes and conflicts found at any depth", () => {
    const { root, store } = setup();
    for (const dir of ["same/deep", "b/c", "e/f"]) mkdirSync(join(root, dir), { recursive: true });
    writeFileSync(join(root, "same/deep/keep.txt"), "keep");
    writeFileSync(join(root, "b/c/model.txt"), "one");
    writeFileSync(join(root, "b/c/user.txt"), "one");
    writeFileSync(join(root, "e/f/gone.txt"), "gone");
    const before = store.take({ session: SESSION, root, prompt: 1, when: "turn" });
    writeFileSync(join(root, "b/c/model.txt"), "model's edit");
    rmSync(join(root, "e"), { recursive: true });
    mkdirSync(join(root, "d/x"), { recursive: true });
    writeFileSync(join(root, "d/x/new.txt"), "new");
    const end = store.take({ session: SESSION, root, prompt: 1, when: "end" });
    writeFileSync(join(root, "b/c/user.txt"), "user's edit");
    const now = store.take({ session: SESSION, root, prompt: 2, when: "rewind" });
    const plan = planRestore(store.objects, before.tree!, now.tree!, end.tree!);
    expect(plan.modified.sort()).toEqual(["b/c/model.txt", "b/c/user.txt"]);
    expect(plan.added).toEqual(["e/f/gone.txt"]);
    expect(plan.deleted).toEqual(["d/x/new.txt"]);
    expect(plan.conflicts).toEqual(["b/c/user.txt"]);
    expect(plan.ops.some((op) => op.path.startsWith("same"))).toBe(false);
    expect(plan.ops.filter((op) => op.op === "rmdir").map((op) => op.path)).toEqual(["d/x", "d"]);
  });

  it("a restore stopped halfway leaves whole files, and running it again finishes it", () => {
    const { root, store } = setup();
    for (let i = 0; i < 6; i++) writeFileSync(join(root, `f${i}.txt`), `original ${i}`);
    const before = store.take({ session: SESSION, root, prompt: 1, when: "turn" });
    for (let i = 0; i < 6; i++) writeFileSync(join(root, `f${i}.txt`), `changed ${i} `.repeat(100));
    const now = store.take({ session: SESSION, root, prompt: 1, when: "end" });
    const plan = planRestore(store.objects, before.tree!, now.tree!, now.tree);
    const file = journalFile(store, root);
    const journal = { version: 1 as const, root, checkpoint: before.id, ops: plan.ops };
    writeJournal(file, journal);
    expect(() =>
      applyJournal(store.objects, file, journal, (i) => {
        if (i === 2) throw new Error("killed");
      }),
    ).toThrow("killed");
    for (let i = 0; i < 6; i++) expect(readFileSync(join(root, `f${i}.txt`), "utf8")).toMatch(/^(original \d|(changed \d ){100})$/);
    expect(readJournal(file)).toBeDefined();
    const outcome = rewindCode(store, { session: SESSION, root, prompt: 1, current: 1 });
    expect(outcome.finishedEarlier).toBe(true);
    for (let i = 0; i < 6; i++) expect(readFileSync(join(root, `f${i}.txt`), "utf8")).toBe(`original ${i}`);
    expect(readdirSync(root).filter((n) => n.startsWith(".awl-rewind"))).toEqual([]);
  });

  it("gives up on a workspace over the file limit with a message naming the setting", () => {
    const { root, store } = setup();
    for (let i = 0; i < 20; i++) writeFileSync(join(root, `f${i}`), "");
    const ck = store.take({ session: SESSION, root, prompt: 1, when: "turn", limits: { maxFiles: 10 } });
    expect(ck.complete).toBe(false);
    expect(ck.error).toContain("more than 10 files");
    expect(ck.error).toContain("checkpoints.max_files");
    const outcome = rewindCode(store, { session: SESSION, root, prompt: 1, current: 1 });
    expect(outcome.status).toBe("error");
    if (outcome.status === "error") expect(outcome.message).toContain("incomplete");
  });

  it("a store that cannot be written (full disk) gives an incomplete checkpoint, never used", () => {
    const { root, store } = setup();
    writeFileSync(join(root, "a.txt"), "a");
    mkdirSync(store.dir, { recursive: true });
    // A file where the objects folder should be: every object write fails, as on a full disk.
    writeFileSync(join(store.dir, "objects"), "");
    const ck = store.take({ session: SESSION, root, prompt: 1, when: "turn" });
    expect(ck.complete).toBe(false);
    expect(ck.error).toContain("could not write the checkpoint store");
    expect(store.records(SESSION)).toEqual([expect.objectContaining({ id: ck.id, complete: false })]);
  });
});

describe("pruning", () => {
  it("drops the checkpoints of sessions gone or past the retention, and only the objects nothing else needs", () => {
    const { root, store } = setup();
    const sessions = join(store.dir, "..", "sessions");
    mkdirSync(sessions);
    const kept = "20260101-000000-000-aaaaaa";
    const old = "20250101-000000-000-bbbbbb";
    const gone = "20250101-000000-000-cccccc";
    writeFileSync(join(sessions, `${kept}.jsonl`), "");
    writeFileSync(join(sessions, `${old}.jsonl`), "");
    const longAgo = Date.now() / 1000 - 40 * 86_400;
    utimesSync(join(sessions, `${old}.jsonl`), longAgo, longAgo);
    writeFileSync(join(root, "shared.txt"), "in every checkpoint");
    writeFileSync(join(root, "a.txt"), "only the old session saw this");
    store.take({ session: old, root, prompt: 1, when: "turn" });
    store.take({ session: gone, root, prompt: 1, when: "turn" });
    rmSync(join(root, "a.txt"));
    const live = store.take({ session: kept, root, prompt: 1, when: "turn" });
    // The scan index still names what the last scan read: pruning keeps it (a running awl may reuse it).
    rmSync(join(store.workspaceDir(root), "index.json"));
    const outcome = pruneCheckpoints(store, sessions, 30);
    expect(outcome.sessions).toBe(2);
    expect(store.sessions()).toEqual([kept]);
    expect(outcome.objects).toBeGreaterThan(0);
    expect(flattenTree(store.objects, live.tree!).get("shared.txt")).toBeDefined();
    writeFileSync(join(root, "shared.txt"), "changed");
    expect(rewindCode(store, { session: kept, root, prompt: 1, current: 1, overwriteChanged: true }).status).toBe("restored");
    expect(readFileSync(join(root, "shared.txt"), "utf8")).toBe("in every checkpoint");
  });
});
