// A restore's own record of the workspace (`end`) reads again only the folders the restore changed
// (TakeCheckpoint.changed): it must be what a full scan would record of the restored files, with the same counts.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CheckpointStore } from "../../src/checkpoints/store.js";
import { rewindCode } from "../../src/checkpoints/rewind.js";
import { tempDir } from "../support/temp-dir.js";

const SESSION = "20260101-000000-000-abcdef";

function setup(): { root: string; store: CheckpointStore; base: string } {
  const base = tempDir("awl-ck-partial-");
  const root = join(base, "work");
  for (const dir of ["a", "b/deep", "c"]) mkdirSync(join(root, dir), { recursive: true });
  for (const file of ["a/1.txt", "a/2.txt", "b/deep/3.txt", "c/4.txt", "top.txt"]) writeFileSync(join(root, file), `${file}\n`);
  writeFileSync(join(root, ".gitignore"), "*.log\n");
  writeFileSync(join(root, "c", "x.log"), "ignored\n");
  return { root, store: new CheckpointStore(join(base, "store")), base };
}

describe("the record a restore takes of what it changed", () => {
  it("equals a full scan of the restored workspace: tree, files, bytes and ignored paths", () => {
    const { root, store, base } = setup();
    store.take({ session: SESSION, root, prompt: 1, when: "turn" });
    writeFileSync(join(root, "b", "deep", "3.txt"), "changed by the turn\n");
    mkdirSync(join(root, "new"));
    writeFileSync(join(root, "new", "5.txt"), "added by the turn\n");
    store.take({ session: SESSION, root, prompt: 1, when: "end" });

    const outcome = rewindCode(store, { session: SESSION, root, prompt: 1, current: 1 });
    expect(outcome.status).toBe("restored");
    const end = store.records(SESSION).at(-1)!;
    expect(end.when).toBe("end");
    // A store that never saw the workspace records it whole.
    const full = new CheckpointStore(join(base, "store")).take({ session: SESSION, root, prompt: 1, when: "tools" });
    expect(end.tree).toBe(full.tree);
    expect({ files: end.files, bytes: end.bytes, ignored: end.ignored, ignored_count: end.ignored_count }).toEqual({
      files: full.files,
      bytes: full.bytes,
      ignored: full.ignored,
      ignored_count: full.ignored_count,
    });
  });

  it("takes the folders it was not told of as last recorded, and the next full checkpoint reads them again", () => {
    const { root, store } = setup();
    const first = store.take({ session: SESSION, root, prompt: 1, when: "turn" });
    writeFileSync(join(root, "a", "1.txt"), "awl's change\n");
    writeFileSync(join(root, "c", "4.txt"), "someone else's change\n");
    const partial = store.take({ session: SESSION, root, prompt: 1, when: "end", changed: ["a/1.txt"] });
    const full = store.take({ session: SESSION, root, prompt: 1, when: "tools" });
    expect(new Set([first.tree, partial.tree, full.tree]).size).toBe(3);
    // Undoing the other change gives the partial record's tree again: only a/1.txt differed in it.
    writeFileSync(join(root, "c", "4.txt"), "c/4.txt\n");
    expect(store.take({ session: SESSION, root, prompt: 1, when: "tools" }).tree).toBe(partial.tree);
  });
});
