// Checkpoints of a watched workspace (docs/checkpoints.md, "The watch"): a checkpoint reads only the folders the
// file-system watch named, so each one must equal what a full scan records; and each safety net is tried by a change
// the watch itself cannot see (an inotify queue overflow, a write through a hard link from outside, a watch that
// cannot be set up, a change only the periodic full scan finds, a restore over such a change).
import { chmodSync, closeSync, linkSync, openSync, writeSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import * as fsCjs from "node:fs";
import { createRequire, syncBuiltinESMExports } from "node:module";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CheckpointStore, type CheckpointRecord } from "../../src/checkpoints/store.js";
import { rewindCode } from "../../src/checkpoints/rewind.js";
import { VERIFY_EVERY_MS } from "../../src/checkpoints/scan.js";
import { FolderWatch } from "../../src/checkpoints/folder-watch.js";
import { tempDir } from "../support/temp-dir.js";

const SESSION = "20260101-000000-000-abcdef";
const stores: CheckpointStore[] = [];

function setup(): { base: string; root: string; store: CheckpointStore; take: (extra?: Partial<Parameters<CheckpointStore["take"]>[0]>) => Promise<CheckpointRecord>; full: () => string } {
  const base = tempDir("awl-ck-watch-");
  const root = join(base, "work");
  for (const dir of ["a", "b/deep", "c"]) mkdirSync(join(root, dir), { recursive: true });
  for (const file of ["a/1.txt", "a/2.txt", "b/deep/3.txt", "c/4.txt", "top.txt"]) writeFileSync(join(root, file), `${file}\n`);
  writeFileSync(join(root, ".gitignore"), "*.log\n");
  const store = new CheckpointStore(join(base, "store"), [join(base, "store")], true);
  stores.push(store);
  let prompt = 0;
  const take = async (extra = {}): Promise<CheckpointRecord> => {
    await store.settle(root);
    return store.take({ session: SESSION, root, prompt: ++prompt, when: "turn", ...extra });
  };
  // What a full scan records now (a store of its own without a watch; objects are named by content, so trees compare).
  const full = (): string => new CheckpointStore(join(base, "reference")).take({ session: SESSION, root, prompt: 1, when: "turn" }).tree!;
  return { base, root, store, take, full };
}

afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  vi.restoreAllMocks();
});

describe("a watched workspace", () => {
  it("reads only what changed, and records what a full scan records, through creations, deletions, renames and modes", async () => {
    const { root, store, take, full } = setup();
    const first = await take();
    expect(store.lastScanFull(root)).toBe("the first scan");
    expect(first.tree).toBe(full());
    const steps: [string, () => void][] = [
      ["nothing", () => {}],
      ["a file changed", () => writeFileSync(join(root, "a", "1.txt"), "changed\n")],
      ["a file added deep", () => writeFileSync(join(root, "b", "deep", "new.txt"), "new\n")],
      ["a mode", () => chmodSync(join(root, "c", "4.txt"), 0o755)],
      ["a folder made with files in it", () => {
        mkdirSync(join(root, "n", "m"), { recursive: true });
        writeFileSync(join(root, "n", "m", "x.txt"), "x\n");
      }],
      ["a file in the new folder", () => writeFileSync(join(root, "n", "m", "y.txt"), "y\n")],
      ["a folder renamed", () => renameSync(join(root, "b"), join(root, "b2"))],
      ["a file in the renamed folder", () => writeFileSync(join(root, "b2", "deep", "3.txt"), "in b2\n")],
      ["a folder removed and made again with other files", () => {
        rmSync(join(root, "n"), { recursive: true });
        mkdirSync(join(root, "n", "m"), { recursive: true });
        writeFileSync(join(root, "n", "m", "z.txt"), "z\n");
      }],
      ["a folder replaced by a file", () => {
        rmSync(join(root, "c"), { recursive: true });
        writeFileSync(join(root, "c"), "now a file\n");
      }],
      ["a link", () => symlinkSync("a/1.txt", join(root, "link"))],
      ["an ignored file", () => writeFileSync(join(root, "a", "x.log"), "ignored\n")],
    ];
    for (const [what, change] of steps) {
      change();
      const record = await take();
      expect(store.lastScanFull(root), what).toBeUndefined();
      expect(record.tree, what).toBe(full());
    }
  });

  it("an ignore file changed: the next checkpoint reads everything", async () => {
    const { root, store, take, full } = setup();
    await take();
    writeFileSync(join(root, ".gitignore"), "*.log\na/\n");
    const record = await take();
    expect(store.lastScanFull(root)).toBe("an ignore file changed");
    expect(record.tree).toBe(full());
    writeFileSync(join(root, "a", "1.txt"), "ignored now\n");
    expect((await take()).tree).toBe(full());
  });

  it("(a) more events than half of inotify's queue: a full scan, which finds the change whose event the overflow lost", async () => {
    const { root, store, take, full } = setup();
    await take();
    const queue = Number(readFileSync("/proc/sys/fs/inotify/max_queued_events", "utf8"));
    // Nothing is read from the watch while this loop runs: the kernel's queue fills and overflows, and the events of
    // the last change are lost (Node drops the overflow event too).
    const fds = [openSync(join(root, "a", "1.txt"), "a"), openSync(join(root, "a", "2.txt"), "a")];
    // Two files in turn: inotify merges an event only with the same one just before it.
    for (let i = 0; i < queue + 2_000; i++) writeSync(fds[i % 2]!, "x");
    for (const fd of fds) closeSync(fd);
    writeFileSync(join(root, "c", "4.txt"), "changed after the overflow\n");
    const record = await take();
    expect(store.lastScanFull(root)).toMatch(/events since the last full scan/);
    expect(record.tree).toBe(full());
    const after = await take();
    expect(store.lastScanFull(root)).toBeUndefined();
    expect(after.tree).toBe(record.tree);
  });

  it("(b) a file with a hard link from outside the workspace: a write through the link is recorded", async () => {
    const { base, root, store, take, full } = setup();
    mkdirSync(join(base, "outside"));
    linkSync(join(root, "b", "deep", "3.txt"), join(base, "outside", "link"));
    const first = await take();
    writeFileSync(join(base, "outside", "link"), "written through the link\n");
    const record = await take();
    expect(store.lastScanFull(root)).toBeUndefined();
    expect(record.tree).not.toBe(first.tree);
    expect(record.tree).toBe(full());
  });

  it("(c) a watch that cannot be set up (the system's limit of watches): said once, and every checkpoint reads everything", async () => {
    const fs = createRequire(import.meta.url)("node:fs") as typeof fsCjs;
    const watch = fs.watch;
    let calls = 0;
    fs.watch = ((...args: Parameters<typeof watch>) => {
      // The watch's own folder and the workspace's first two folders, then the limit.
      if (++calls > 3) throw Object.assign(new Error("ENOSPC: System limit for number of file watchers reached"), { code: "ENOSPC" });
      return watch(...args);
    }) as typeof watch;
    syncBuiltinESMExports();
    try {
      const { root, store, take, full } = setup();
      await take();
      expect(store.notices()).toEqual([expect.stringMatching(/watch of .* stopped \(the system's limit of watches is reached.*every checkpoint reads the whole workspace/)]);
      expect(store.notices()).toEqual([]);
      writeFileSync(join(root, "c", "4.txt"), "changed\n");
      const record = await take();
      expect(store.lastScanFull(root)).toMatch(/limit of watches/);
      expect(record.tree).toBe(full());
    } finally {
      fs.watch = watch;
      syncBuiltinESMExports();
    }
  });

  it("(d) a change no event names is found by the periodic full scan that follows a checkpoint nothing waits for", async () => {
    const { base, root, store, take, full } = setup();
    await take();
    // A hard link made from outside after the last full scan: neither the link nor a write through it raises an event.
    mkdirSync(join(base, "outside"));
    linkSync(join(root, "a", "2.txt"), join(base, "outside", "late"));
    writeFileSync(join(base, "outside", "late"), "unseen by the watch\n");
    const request = { session: SESSION, root, prompt: 9, when: "end" as const, idle: true };
    const missed = await take(request);
    expect(store.lastScanFull(root)).toBeUndefined();
    expect(missed.tree).not.toBe(full());
    // Not due yet: nothing runs.
    store.verifyIfDue(request);
    expect(store.lastScanFull(root)).toBeUndefined();
    const now = Date.now();
    vi.spyOn(Date, "now").mockReturnValue(now + VERIFY_EVERY_MS);
    // What the worker runs after answering a checkpoint nothing waits for.
    store.verifyIfDue(request);
    expect(store.lastScanFull(root)).toBe("the periodic full scan");
    const next = await take();
    expect(store.lastScanFull(root)).toBeUndefined();
    expect(next.tree).toBe(full());
  });

  it("a restore planned from the watched view checks the files it would overwrite, and names one changed unseen", async () => {
    const { base, root, take } = setup();
    const store = stores[0]!;
    await take({ prompt: 1, when: "turn" } as never);
    writeFileSync(join(root, "a", "1.txt"), "the turn's\n");
    await take({ prompt: 1, when: "end" } as never);
    // The user changes the file through a hard link made from outside: no event names it.
    mkdirSync(join(base, "outside"));
    linkSync(join(root, "a", "1.txt"), join(base, "outside", "late"));
    writeFileSync(join(base, "outside", "late"), "the user's, unseen\n");
    await store.settle(root);
    const outcome = rewindCode(store, { session: SESSION, root, prompt: 1, current: 2 });
    expect(outcome.status).toBe("conflicts");
    expect(outcome.status === "conflicts" && outcome.plan.conflicts).toEqual(["a/1.txt"]);
    expect(readFileSync(join(root, "a", "1.txt"), "utf8")).toBe("the user's, unseen\n");
  });
});

describe("the watch's share of the system's watches", () => {
  it("watches no more folders than its cap (half of fs.inotify.max_user_watches): past it, it says so and asks for full scans", () => {
    const base = tempDir("awl-ck-cap-");
    for (const dir of ["a", "b", "c"]) mkdirSync(join(base, dir));
    const watch = new FolderWatch(join(base, "sentinel"), () => false, 8192, 2);
    try {
      watch.add("a", join(base, "a"), false);
      watch.add("b", join(base, "b"), false);
      expect(watch.take()).toEqual({ folders: new Set() });
      watch.add("c", join(base, "c"), false);
      expect(watch.newFailure()).toMatch(/more than 2 folders to watch .*max_user_watches/);
      expect(watch.take()).toEqual({ all: expect.stringMatching(/more than 2 folders/) });
    } finally {
      watch.close();
    }
  });
});
