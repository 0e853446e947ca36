// Config and state files changed by several awl processes at once lose nothing (issue 22 item 7i): each change
// re-reads the file under its lock and replaces it atomically.
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AWL, runNode, sandbox } from "./support.js";

describe("the user config under concurrent changes", () => {
  it("twenty awl permissions trust run at once, from twenty folders, leave all twenty trusted and the rest kept", { timeout: 120_000 }, async () => {
    const box = sandbox();
    try {
      const config = join(box.home, ".config", "awl", "config.json");
      mkdirSync(join(box.home, ".config", "awl"), { recursive: true });
      writeFileSync(config, `${JSON.stringify({ model: "kept", permissions: { allow: ["read"] } }, null, 2)}\n`);
      const folders = Array.from({ length: 20 }, (_, i) => join(box.root, `f${i}`));
      for (const folder of folders) mkdirSync(folder);
      const runs = await Promise.all(folders.map((cwd) => runNode([AWL, "permissions", "trust"], { cwd, env: box.env(), input: "", asNobody: false })));
      for (const run of runs) expect(run.code, run.stderr).toBe(0);
      const saved = JSON.parse(readFileSync(config, "utf8")) as { model: string; permissions: unknown; trusted_folders: string[] };
      expect([...saved.trusted_folders].sort()).toEqual(folders.map((f) => realpathSync(f)).sort());
      expect(saved.model).toBe("kept");
      expect(saved.permissions).toEqual({ allow: ["read"] });
    } finally {
      box.remove();
    }
  });
});
