// The Lua worker's V8 code cache ($XDG_CACHE_HOME/awl/lua-worker-*.v8, see worker/loader.ts): the first worker whose
// extensions load writes it, the next one starts from it as it is, and one that is damaged or cannot be written
// costs nothing but the compile: the worker starts and its tools answer every time.
import { closeSync, openSync, readdirSync, readFileSync, statSync, writeFileSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { workerScriptPath } from "../../../src/extensions/lua/assets.js";
import { call, contentOf, poolOf, tempDir } from "./helpers.js";

const GREET = `awl.register_tool("greet", { type = "object" }, function(input) return "hello " .. input.name end)`;

async function greets(env: NodeJS.ProcessEnv): Promise<void> {
  const { pool } = poolOf({ greet: GREET }, { env });
  expect(contentOf(await call(pool, "greet", "greet", { name: "ada" }))).toBe("hello ada");
  // A second round trip: whatever the worker does right after its load (the cache's write) is done by now.
  expect(contentOf(await call(pool, "greet", "greet", { name: "bob" }))).toBe("hello bob");
  await pool.close();
}

describe("the Lua worker's code cache", () => {
  it("is written once, used as it is by the next worker, and replaced when damaged", async () => {
    const cacheHome = tempDir();
    const env = { ...process.env, XDG_CACHE_HOME: cacheHome };
    const dir = join(cacheHome, "awl");
    const caches = () => readdirSync(dir).filter((name) => name.startsWith("lua-worker-"));

    await greets(env);
    await vi.waitFor(() => expect(caches()).toHaveLength(1), { timeout: 10_000 });
    const file = join(dir, caches()[0]!);
    const written = statSync(file);

    await greets(env);
    const after = statSync(file);
    expect([after.ino, after.mtimeMs]).toEqual([written.ino, written.mtimeMs]); // taken, not written again

    const fd = openSync(file, "r+");
    writeSync(fd, Buffer.alloc(64, 0x5a), 0, 64, Math.floor(written.size / 2)); // V8's data damaged, its header intact
    closeSync(fd);
    const damaged = statSync(file);
    await greets(env);
    await vi.waitFor(() => expect(statSync(file).ino).not.toBe(damaged.ino), { timeout: 10_000 });
    expect(caches()).toHaveLength(1);
    const rewritten = statSync(file);
    await greets(env);
    expect(statSync(file).ino).toBe(rewritten.ino); // the new one is good: taken as it is
  });

  it("is made from scripts written in ASCII (a character above U+00FF made V8 hold every worker's source as two bytes a character, twice)", () => {
    for (const script of ["worker.cjs", "worker-main.cjs"]) {
      const text = readFileSync(join(dirname(workerScriptPath()), script), "utf8");
      expect(text.length, script).toBeGreaterThan(1000);
      expect(text.match(/[^\x00-\x7f]/g) ?? [], script).toEqual([]);
    }
  });

  it("that cannot be written leaves the worker as it is", async () => {
    const notAFolder = join(tempDir(), "file");
    writeFileSync(notAFolder, "");
    await greets({ ...process.env, XDG_CACHE_HOME: notAFolder });
  });
});
