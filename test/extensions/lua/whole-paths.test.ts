// Lua cuts a chunk name longer than 59 bytes to "..." and its last 56 in error positions and tracebacks
// (LUA_IDSIZE); awl's messages name the whole path of an extension's file (runtime/chunk_names.lua).
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LuaPool } from "../../../src/extensions/lua/pool.js";
import type { ToolOutcome } from "../../../src/tools/types.js";
import { call, writeTree } from "./helpers.js";

const DEEP = "a-folder-whose-name-is-long/and-another-one-below-it/and-a-third-level-too";

function poolFor(dir: string, names: { name: string; file: string }[]): LuaPool {
  const pool = new LuaPool({ extensions: names.map((n) => ({ name: n.name, file: join(dir, n.file), root: join(dir, DEEP) })), maxSlots: 1 });
  return pool;
}

function crash(outcome: ToolOutcome): { message: string; traceback: string } {
  if (outcome.status !== "crash") throw new Error(`expected a crash, got ${JSON.stringify(outcome)}`);
  return outcome;
}

describe("error messages name an extension's whole file path", () => {
  it("a syntax error", async () => {
    const dir = writeTree({ [`${DEEP}/broken.lua`]: `local a = 1\n\nlocal = 2\n` });
    const file = join(dir, DEEP, "broken.lua");
    expect(file.length).toBeGreaterThan(60);
    const pool = poolFor(dir, [{ name: "broken", file: `${DEEP}/broken.lua` }]);
    try {
      const { errors } = await pool.load();
      expect(errors).toHaveLength(1);
      expect(errors[0]!.message).toContain(`${file}:3: <name> expected near '='`);
      expect(errors[0]!.message).not.toContain("...");
    } finally {
      await pool.close();
    }
  });

  it("a runtime error in a tool's run, an error() in a hook and in a command, in a required module", async () => {
    const dir = writeTree({
      [`${DEEP}/out.lua`]: [
        `local helper = require("helper")`,
        `awl.register_tool("index", {}, function()`,
        `  local t = nil`,
        `  return t.field`,
        `end)`,
        `awl.on("tool_call", function()`,
        `  error("the hook refuses")`,
        `end)`,
        `awl.register_command{ name = "deploy", handler = function()`,
        `  error("no target to deploy to")`,
        `end }`,
        `awl.register_tool("deeper", {}, function() local sum = helper.add(nil) return sum end)`,
      ].join("\n"),
      [`${DEEP}/helper.lua`]: `local M = {}\nfunction M.add(x)\n  return x + 1\nend\nreturn M\n`,
    });
    const file = join(dir, DEEP, "out.lua");
    const helper = join(dir, DEEP, "helper.lua");
    const pool = poolFor(dir, [{ name: "out", file: `${DEEP}/out.lua` }]);
    try {
      expect((await pool.load()).errors).toEqual([]);

      const run = crash(await call(pool, "out", "index"));
      expect(run.message).toBe(`${file}:4: attempt to index a nil value (local 't')`);
      expect(run.traceback).toContain(`${file}:4: in function <${file}:2>`);
      expect(run.traceback).not.toContain("...");

      const hook = crash(await call(pool, "out", "@tool_call#1", { tool: "x", input: {} }));
      expect(hook.message).toBe(`${file}:7: the hook refuses`);

      const command = crash(await call(pool, "out", "/deploy", { args: "" }));
      expect(command.message).toBe(`${file}:10: no target to deploy to`);

      const module = crash(await call(pool, "out", "deeper"));
      expect(module.message).toBe(`${helper}:3: attempt to perform arithmetic on a nil value (local 'x')`);
      expect(module.traceback).toContain(`\t${helper}:3: in `);
      expect(module.traceback).toContain(`\t${file}:12: in `);
      expect(module.traceback).not.toContain("...");
    } finally {
      await pool.close();
    }
  });

  it("a message the extension catches itself (pcall, xpcall, coroutine.resume) and a chunk it loads under a file's name", async () => {
    const dir = writeTree({
      [`${DEEP}/catch.lua`]: [
        `local function fail() local t = nil; return t.x end`,
        `awl.register_tool("p", {}, function() local ok, err = pcall(fail); return "caught: " .. err end)`,
        `awl.register_tool("x", {}, function() local ok, err = xpcall(fail, debug.traceback); return err end)`,
        `awl.register_tool("c", {}, function() local ok, err = coroutine.resume(coroutine.create(fail)); return err end)`,
        `awl.register_tool("ok", {}, function() return tostring(select("#", pcall(function() return 1, nil, 3 end))) end)`,
        `awl.register_tool("obj", {}, function() local ok, err = pcall(error, { code = 7 }); return tostring(err.code) end)`,
        `local own = ${JSON.stringify(`${"z".repeat(70)}/own.lua`)}`,
        `local chunk = load("return function() error('from my own chunk') end", "@" .. own)()`,
        `awl.register_tool("own", {}, function() chunk() end)`,
      ].join("\n"),
    });
    const file = join(dir, DEEP, "catch.lua");
    const pool = poolFor(dir, [{ name: "catch", file: `${DEEP}/catch.lua` }]);
    const text = async (tool: string): Promise<string> => {
      const outcome = await call(pool, "catch", tool);
      if (outcome.status !== "result") throw new Error(`expected a result, got ${JSON.stringify(outcome)}`);
      return outcome.content;
    };
    try {
      expect((await pool.load()).errors).toEqual([]);
      expect(await text("p")).toBe(`caught: ${file}:1: attempt to index a nil value (local 't')`);
      const traceback = await text("x");
      expect(traceback).toContain(`${file}:1: attempt to index a nil value (local 't')`);
      expect(traceback).toContain(`\t${file}:1: in `);
      expect(traceback).not.toContain("...");
      expect(await text("c")).toBe(`${file}:1: attempt to index a nil value (local 't')`);
      // What succeeds comes back as it was, every value; an error that is not a string too.
      expect(await text("ok")).toBe("4");
      expect(await text("obj")).toBe("7");
      expect(crash(await call(pool, "catch", "own")).message).toBe(`${"z".repeat(70)}/own.lua:1: from my own chunk`);
    } finally {
      await pool.close();
    }
  });

  it("leaves a cut name two loaded files end with, and text that only looks like one", async () => {
    // Two folders whose last 56 bytes of path are the same: the message cannot tell which one, so it stays cut.
    const tail = "x".repeat(40) + "/same.lua";
    const dir = writeTree({
      [`one/${DEEP}/${tail}`]: `awl.register_tool("one", {}, function() error("from one") end)`,
      [`two/${DEEP}/${tail}`]: `awl.register_tool("two", {}, function() error("from two") end)
awl.register_tool("fake", {}, function() error("...a message about ${"y".repeat(50)}:12: itself", 0) end)`,
    });
    const pool = new LuaPool({
      extensions: ["one", "two"].map((name) => ({ name, file: join(dir, name, DEEP, tail), root: join(dir, name) })),
      maxSlots: 1,
    });
    try {
      expect((await pool.load()).errors).toEqual([]);
      const one = crash(await call(pool, "one", "one")).message;
      expect(one).toMatch(/^\.\.\..*\/same\.lua:1: from one$/);
      expect(one).toBe(`...${join(dir, "one", DEEP, tail).slice(-56)}:1: from one`);
      const fake = crash(await call(pool, "two", "fake")).message;
      expect(fake).toBe(`...a message about ${"y".repeat(50)}:12: itself`);
    } finally {
      await pool.close();
    }
  });

  it("leaves a short path as Lua gives it", async () => {
    const dir = writeTree({ "e.lua": `awl.register_tool("t", {}, function() error("short") end)` });
    const pool = new LuaPool({ extensions: [{ name: "e", file: join(dir, "e.lua"), root: dir }], maxSlots: 1 });
    try {
      expect((await pool.load()).errors).toEqual([]);
      const file = join(dir, "e.lua");
      expect(file.length).toBeLessThan(60);
      expect(crash(await call(pool, "e", "t")).message).toBe(`${file}:1: short`);
    } finally {
      await pool.close();
    }
  });
});
