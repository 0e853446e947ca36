// A reloaded extension's old state is released (issue 30, "No growth"): after reload() swapped an extension's new
// version in, nothing of awl's keeps the old registration, so a session that reloads every few calls all day does
// not pile up every version it has seen. A WeakRef to the old registration, then full GCs (exposed for the test).
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterEach, expect, it } from "vitest";
import { LuaToolSet } from "../../src/extensions/lua-tool-set.js";
import { tempDir } from "../support/temp-dir.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const root = tempDir("awl-reload-release-");
afterEach(() => rmSync(root, { recursive: true, force: true }));

const tool = (answer: string) => `awl.register_tool { name = "a_tool", description = "Answers ${answer}.", run = function() return "${answer}" end }\n`;

it("keeps no registration of a version replaced by a reload", { timeout: 60_000 }, async () => {
  const cwd = join(root, "project");
  const dir = join(cwd, ".awl", "extensions");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "a.lua"), tool("v0"));
  const env = { HOME: join(root, "home"), XDG_CONFIG_HOME: join(root, "home", ".config"), XDG_CACHE_HOME: join(root, "cache"), PATH: process.env.PATH };
  const tools = await LuaToolSet.open({ cwd, env, trustProject: true, maxSlots: 1, cachePath: join(root, "cache", "tools.json"), bundledDir: false });
  try {
    const versions: WeakRef<object>[] = [];
    for (let v = 1; v <= 5; v++) {
      versions.push(new WeakRef(tools.tool("a_tool")!));
      writeFileSync(join(dir, "a.lua"), tool(`v${v}`));
      await tools.reload();
      expect(tools.tool("a_tool")?.description).toBe(`Answers v${v}.`);
    }
    for (let i = 0; i < 5; i++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(versions.map((ref) => ref.deref() === undefined)).toEqual([true, true, true, true, true]);
  } finally {
    await tools.close();
  }
});
