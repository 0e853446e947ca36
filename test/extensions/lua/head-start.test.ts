// A Lua worker started ahead (what a headless `awl` run does as it starts, before its extensions are known): the
// pool's first worker is that thread when it boots the same way, with the extensions loaded into it then; one that
// boots otherwise (another folder) is not used, and one nobody took is stopped.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";

const started: { cwd: string; exited: () => boolean }[] = [];
vi.mock("../../../src/extensions/lua/thread.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../../src/extensions/lua/thread.js")>();
  class CountedThread extends real.LuaThread {
    constructor(...args: ConstructorParameters<typeof real.LuaThread>) {
      super(...args);
      started.push({ cwd: args[0].cwd, exited: () => this.exited });
    }
  }
  return { ...real, LuaThread: CountedThread };
});

const { bootLuaThreadAhead, loadLuaThreadAhead, startLuaThreadAhead, stopLuaThreadsAhead } = await import("../../../src/extensions/lua/head-start.js");
const { call, contentOf, poolOf, tempDir, writeTree } = await import("./helpers.js");
const { LuaPool } = await import("../../../src/extensions/lua/pool.js");

const WHERE = `local f = io.open("loaded.txt", "w"); f:write("loaded"); f:close()
awl.register_tool("where", { type = "object" }, function() local h = io.open("here.txt"); local t = h:read("a"); h:close(); return t end)`;

describe("a Lua worker started ahead", () => {
  it("is the pool's first worker when it boots the same way: the extensions load into it and calls run there", async () => {
    started.length = 0;
    const cwd = tempDir();
    writeFileSync(join(cwd, "here.txt"), "this folder");
    startLuaThreadAhead({ env: process.env, cwd });
    const { pool } = poolOf({ where: WHERE }, { cwd, env: process.env });
    expect(contentOf(await call(pool, "where", "where", {}, { cwd }))).toBe("this folder");
    expect(readFileSync(join(cwd, "loaded.txt"), "utf8")).toBe("loaded");
    expect(started.map((t) => t.cwd)).toEqual([cwd]); // no other worker was started
    await stopLuaThreadsAhead(); // nothing left to stop: the pool has it
    expect(started[0]!.exited()).toBe(false);
    await pool.close();
  });

  it("loads what it was sent ahead of its pool once: the pool's first worker is it, and calls run there", async () => {
    started.length = 0;
    const cwd = tempDir();
    writeFileSync(join(cwd, "here.txt"), "this folder");
    const COUNTED = `local f = io.open("loads.txt", "a"); f:write("x"); f:close()\n` + WHERE;
    startLuaThreadAhead({ env: process.env, cwd });
    bootLuaThreadAhead({ env: process.env, cwd });
    const dir = writeTree({ "where.lua": COUNTED });
    // What the tool set does as a call comes: the thread gets the pool's extensions before the pool is created.
    const options = { extensions: [{ name: "where", file: join(dir, "where.lua"), root: dir }], cwd, env: process.env };
    loadLuaThreadAhead(options);
    const pool = new LuaPool(options);
    expect(contentOf(await call(pool, "where", "where", {}, { cwd }))).toBe("this folder");
    expect(readFileSync(join(cwd, "loads.txt"), "utf8")).toBe("x"); // loaded once, in the thread started ahead
    expect(started.map((t) => t.cwd)).toEqual([cwd]);
    await pool.close();
  });

  it("is not taken when it was sent other extensions than the pool's: the pool starts its own worker", async () => {
    started.length = 0;
    const cwd = tempDir();
    writeFileSync(join(cwd, "here.txt"), "this folder");
    startLuaThreadAhead({ env: process.env, cwd });
    const { pool } = poolOf({ where: WHERE }, { cwd, env: process.env });
    const other = tempDir();
    writeFileSync(join(other, "other.lua"), `local f = io.open("other-loaded.txt", "w"); f:write("1"); f:close()`);
    loadLuaThreadAhead({ extensions: [{ name: "other", file: join(other, "other.lua"), root: other }], cwd, env: process.env });
    expect(contentOf(await call(pool, "where", "where", {}, { cwd }))).toBe("this folder");
    expect(started.map((t) => t.cwd)).toEqual([cwd, cwd]); // a second worker, with the pool's own extensions
    await vi.waitFor(() => expect(started[0]!.exited()).toBe(true)); // the one that loaded others is stopped
    await pool.close();
  });

  it("sent a load but never taken, runs the on_unload hooks its extensions registered when stopped at exit", async () => {
    const cwd = tempDir();
    const dir = writeTree({
      "hooked.lua": `awl.on_unload(function() local f = io.open("unloaded.txt", "w"); f:write("bye"); f:close() end)
local f = io.open("loaded.txt", "w"); f:write("hi"); f:close()`,
    });
    startLuaThreadAhead({ env: process.env, cwd });
    loadLuaThreadAhead({ extensions: [{ name: "hooked", file: join(dir, "hooked.lua"), root: dir }], cwd, env: process.env });
    await vi.waitFor(() => expect(existsSync(join(cwd, "loaded.txt"))).toBe(true), { timeout: 10_000 });
    await stopLuaThreadsAhead(); // awl exits before any pool took the thread
    expect(readFileSync(join(cwd, "unloaded.txt"), "utf8")).toBe("bye");
  });

  it("is not used by a pool in another folder (whose code sees its own folder), and is stopped at exit", async () => {
    started.length = 0;
    const [elsewhere, cwd] = [tempDir(), tempDir()];
    startLuaThreadAhead({ env: process.env, cwd: elsewhere });
    const { pool } = poolOf({ where: WHERE }, { cwd, env: process.env });
    await pool.load();
    expect(existsSync(join(cwd, "loaded.txt"))).toBe(true);
    expect(existsSync(join(elsewhere, "loaded.txt"))).toBe(false);
    expect(started.map((t) => t.cwd)).toEqual([elsewhere, cwd]);
    await stopLuaThreadsAhead();
    expect(started[0]!.exited()).toBe(true);
    await pool.close();
  });

  it("is stopped at exit when nobody took it", async () => {
    started.length = 0;
    startLuaThreadAhead({ env: process.env, cwd: tempDir() });
    await stopLuaThreadsAhead();
    expect(started).toHaveLength(1);
    expect(started[0]!.exited()).toBe(true);
  });
});
