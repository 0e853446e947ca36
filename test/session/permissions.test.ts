/**
 * A session file owned by another user, or unreadable: a clear `io` error naming the file.
 * Tests run as root in CI, and root reads everything, so the reading side runs as `nobody` when we are root.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempStore, NEW } from "./fixtures.js";

const dist = join(dirname(fileURLToPath(import.meta.url)), "../../dist/index.js");

/** Loads session `id` from `dir` in a process that cannot read the file; returns the result. */
function loadAsOtherUser(dir: string, id: string): { ok: boolean; error?: { kind: string; message: string; code?: string } } {
  const script = `import { SessionStore } from ${JSON.stringify(dist)};
    const store = new SessionStore(${JSON.stringify(dir)});
    const r = store.load(${JSON.stringify(id)});
    const o = store.open(${JSON.stringify(id)});
    console.log(JSON.stringify({ load: r.ok ? { ok: true } : r, open: o.ok ? { ok: true } : o }));`;
  const asRoot = process.getuid?.() === 0;
  const argv = asRoot ? ["runuser", "-u", "nobody", "--", process.execPath] : [process.execPath];
  const run = spawnSync(argv[0]!, [...argv.slice(1), "--input-type=module", "-e", script], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(run.stderr);
  const out = JSON.parse(run.stdout);
  expect(out.open.ok).toBe(out.load.ok);
  return out.load;
}

describe("a session file another user owns", () => {
  it("gives an io error naming the file and what to check", () => {
    expect(existsSync(dist)).toBe(true); // built by `npm test`
    const store = tempStore();
    const w = store.create(NEW);
    if (!w.ok) throw new Error(w.error.message);
    w.value.close();
    // The folder is listable by anyone, the file readable by its owner only (0600, as awl creates it).
    // Only the test's own two folders (sessions/ and the temporary folder holding it) are opened up.
    chmodSync(store.dir, 0o755);
    chmodSync(dirname(store.dir), 0o755);
    if (process.getuid?.() !== 0) chmodSync(w.value.path, 0o000);
    else chownSync(w.value.path, 0, 0);
    const result = loadAsOtherUser(store.dir, w.value.id);
    expect(result.ok).toBe(false);
    expect(result.error).toMatchObject({ kind: "io", code: "EACCES" });
    expect(result.error!.message).toContain(w.value.path);
    expect(result.error!.message).toContain("permission denied");
  });
});
