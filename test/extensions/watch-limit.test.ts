// The system's limit of file watches reached (inotify's ENOSPC), simulated by a watcher that reports it: a clear
// message once, and awl goes on: the tools keep working, and /reload (reload()) still picks up a save.
import { EventEmitter } from "node:events";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LuaToolSet } from "../../src/extensions/lua-tool-set.js";
import { tempDir } from "../support/temp-dir.js";

vi.mock("chokidar", () => ({
  watch: () => {
    const watcher = Object.assign(new EventEmitter(), { add: () => watcher, close: async () => {} });
    setImmediate(() => {
      watcher.emit("ready");
      const error = Object.assign(new Error("ENOSPC: System limit for number of file watchers reached, watch '/x'"), { code: "ENOSPC" });
      watcher.emit("error", error);
      watcher.emit("error", error); // reported once, however often the watcher repeats it
    });
    return watcher;
  },
}));

let root: string;
let dir: string;
beforeEach(() => {
  root = tempDir("awl-watch-limit-");
  dir = join(root, "project", ".awl", "extensions");
  mkdirSync(dir, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const tool = (answer: string) => `awl.register_tool { name = "t", description = "${answer}", run = function() return "${answer}" end }\n`;

describe("a watcher past the system's limit", () => {
  it("says so clearly once, and the tools and /reload keep working", { timeout: 60_000 }, async () => {
    writeFileSync(join(dir, "a.lua"), tool("v1"));
    const env = { HOME: join(root, "home"), XDG_CONFIG_HOME: join(root, "home", ".config"), PATH: process.env.PATH };
    const tools = await LuaToolSet.open({ cwd: join(root, "project"), env, trustProject: true, maxSlots: 1, cachePath: false, bundledDir: false });
    try {
      const problems: string[] = [];
      await tools.watch({ onProblem: (m) => problems.push(m) });
      await new Promise((resolve) => setImmediate(resolve));
      expect(problems).toEqual([
        "cannot watch the extension folders: the system's limit of file watches is reached (ENOSPC; on Linux raise fs.inotify.max_user_watches); saved extensions are not picked up by themselves; /reload reloads them",
      ]);
      const run = async () => {
        const outcome = await tools.execute({ id: "1", name: "t", input: "{}" }, new AbortController().signal);
        return outcome.status === "result" ? outcome.content : outcome.status;
      };
      expect(await run()).toBe("v1");
      writeFileSync(join(dir, "a.lua"), tool("v2"));
      await tools.refresh(); // nothing was seen: the old version serves on
      expect(await run()).toBe("v1");
      await tools.reload();
      expect(await run()).toBe("v2");
    } finally {
      await tools.close();
    }
  });
});
