// A file that changes while a checkpoint reads it: read again (up to three times), then named and left out; the
// checkpoint never holds a torn mix of two versions.
import * as realFs from "node:fs";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { tempDir } from "../support/temp-dir.js";

/** Appends to the file behind each read of these names, as a program writing it at that moment would: this many times each. */
const busy = new Map<string, number>();

vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const readFileSync = ((target: unknown, ...rest: unknown[]) => {
    const data = (fs.readFileSync as (...args: unknown[]) => unknown)(target, ...rest);
    if (typeof target === "number") {
      const path = fs.readlinkSync(`/proc/self/fd/${target}`);
      const left = busy.get(path) ?? 0;
      if (left > 0) {
        busy.set(path, left - 1);
        fs.appendFileSync(path, "more\n");
      }
    }
    return data;
  }) as typeof fs.readFileSync;
  return { ...fs, default: { ...fs, readFileSync }, readFileSync };
});

const { CheckpointStore } = await import("../../src/checkpoints/store.js");
const { flattenTree } = await import("../../src/checkpoints/tree.js");

describe("a file changing while it is recorded", () => {
  it("is read again until it holds still, and named and left out when it never does", () => {
    const base = tempDir("awl-ck-");
    const root = join(base, "work");
    mkdirSync(root);
    realFs.writeFileSync(join(root, "settles.log"), "one\n");
    realFs.writeFileSync(join(root, "busy.log"), "one\n");
    realFs.writeFileSync(join(root, "still.txt"), "still\n");
    busy.set(join(root, "settles.log"), 1);
    busy.set(join(root, "busy.log"), 100);
    const store = new CheckpointStore(join(base, "store"));
    const ck = store.take({ session: "20260101-000000-000-abcdef", root, prompt: 1, when: "turn" });
    expect(ck.complete).toBe(true);
    expect(ck.skipped).toEqual([{ path: "busy.log", reason: "it kept changing while it was recorded" }]);
    const tree = flattenTree(store.objects, ck.tree!);
    // The file that changed once is recorded as it was at the read that held still.
    expect(store.objects.get(tree.get("settles.log")!.object!).toString()).toBe("one\nmore\n");
    expect(tree.get("busy.log")!.kind).toBe("s");
    expect(store.objects.get(tree.get("still.txt")!.object!).toString()).toBe("still\n");
  });
});
