// A really full disk while a checkpoint is recorded (a 64 KB tmpfs as the store; needs root to mount, skipped
// otherwise: checkpoint-bad-input.test.ts simulates it for everyone): the checkpoint is incomplete with the reason,
// no object is left half-written, and nothing of it can be used for a restore.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hashOf } from "../../src/checkpoints/objects.js";
import { rewindCode } from "../../src/checkpoints/rewind.js";
import { CheckpointStore } from "../../src/checkpoints/store.js";
import { tempDir } from "../support/temp-dir.js";

const base = tempDir("awl-ck-full-");
const mounted = join(base, "store");
mkdirSync(mounted);
let canMount = false;
try {
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", mounted], { stdio: "ignore" });
  canMount = true;
} catch {
  // not root, or no mount in this sandbox
}
afterAll(() => {
  if (canMount) execFileSync("umount", [mounted]);
  rmSync(base, { recursive: true, force: true });
});

describe.skipIf(!canMount)("a disk that fills up while a checkpoint is recorded", () => {
  it("gives an incomplete checkpoint naming ENOSPC, leaves no object half-written, and a rewind refuses to use it", () => {
    const root = join(base, "work");
    mkdirSync(root);
    for (let i = 0; i < 4; i++) writeFileSync(join(root, `big${i}.bin`), randomBytes(30 * 1024));
    const store = new CheckpointStore(mounted);
    const record = store.take({ session: "20260101-000000-000-abcdef", root, prompt: 1, when: "turn" });
    expect(record.complete).toBe(false);
    expect(record.tree).toBeUndefined();
    expect(record.error).toContain("ENOSPC");
    // Every object there is whole: its bytes hash to its name. Nothing is left in tmp/.
    for (const prefix of readdirSync(join(mounted, "objects"))) {
      for (const name of readdirSync(join(mounted, "objects", prefix))) expect(hashOf(readFileSync(join(mounted, "objects", prefix, name)))).toBe(prefix + name);
    }
    expect(readdirSync(join(mounted, "tmp"))).toEqual([]);
    const rewind = rewindCode(store, { session: "20260101-000000-000-abcdef", root, prompt: 1, current: 1 });
    expect(rewind.status).toBe("error");
  });
});
