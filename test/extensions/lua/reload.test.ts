// The pool's reload (hot reload's runtime half): only the changed extension is loaded again, in every worker,
// never under a running call; its old version's on_unload hooks run first; a version that fails keeps the old one.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { call, poolOf, tempDir } from "./helpers.js";

// Each call takes ~0.3 s, so calls at once run in different workers.
const counter = (name: string, answer: string) => `
local calls = 0
awl.register_tool { name = "${name}", run = function()
  calls = calls + 1
  local until_ = os.clock() + 0.3
  while os.clock() < until_ do end
  return "${answer} " .. calls
end }
`;

describe("LuaPool.reload", () => {
  it("reloads one extension in every worker; the other keeps its state", { timeout: 30_000 }, async () => {
    const { pool, dir } = poolOf({ a: counter("a_tool", "a-v1"), b: counter("b_tool", "b") }, { maxSlots: 2 });
    await pool.load();
    // Both workers busy at once, so both exist and have state.
    const first = await Promise.all([call(pool, "a", "a_tool"), call(pool, "b", "b_tool"), call(pool, "b", "b_tool")]);
    expect(first.every((o) => o.status === "result")).toBe(true);
    writeFileSync(join(dir, "a.lua"), counter("a_tool2", "a-v2"));
    const results = await pool.reload([{ name: "a", file: join(dir, "a.lua"), root: dir }], []);
    expect(results).toEqual([{ extension: "a", tools: [expect.objectContaining({ name: "a_tool2", extension: "a" })] }]);
    const after = await Promise.all([call(pool, "a", "a_tool2"), call(pool, "a", "a_tool2"), call(pool, "a", "a_tool")]);
    expect(after.slice(0, 2).map((o) => (o.status === "result" ? o.content : o.status)).sort()).toEqual(["a-v2 1", "a-v2 1"]);
    expect(after[2]).toMatchObject({ status: "result", is_error: true, content: expect.stringContaining("unknown tool") });
    // b was not reloaded: its counter goes on (3 calls before, in two workers, so one of them is at 2).
    const b = await Promise.all([call(pool, "b", "b_tool"), call(pool, "b", "b_tool")]);
    const counts = b.map((o) => (o.status === "result" ? Number(o.content.split(" ")[1]) : 0));
    expect(Math.max(...counts)).toBeGreaterThan(1);
  });

  it("keeps the old version when the new one fails, with the file and line", async () => {
    const { pool, dir } = poolOf({ a: counter("a_tool", "old") });
    await pool.load();
    writeFileSync(join(dir, "a.lua"), "awl.register_tool { name = 'a_tool', run = function() return 'new' end }\nerror('broken on purpose')\n");
    const [result] = await pool.reload([{ name: "a", file: join(dir, "a.lua"), root: dir }], []);
    expect(result).toMatchObject({ extension: "a", error: { line: 2, message: expect.stringContaining(`${join(dir, "a.lua")}:2: broken on purpose`) } });
    expect(await call(pool, "a", "a_tool")).toMatchObject({ status: "result", content: "old 1" });
  });

  it("runs the old version's on_unload hooks before the new one serves, and at removal", async () => {
    const mark = join(tempDir(), "mark");
    writeFileSync(mark, "");
    const source = (v: string) => `
awl.on_unload(function() local f = io.open(${JSON.stringify(mark)}, "a"); f:write("unload ${v}\\n"); f:close() end)
awl.register_tool { name = "t", run = function() return "${v}" end }
`;
    const { pool, dir } = poolOf({ a: source("v1") }, { maxSlots: 1 });
    await pool.load();
    writeFileSync(join(dir, "a.lua"), source("v2"));
    await pool.reload([{ name: "a", file: join(dir, "a.lua"), root: dir }], []);
    expect(readFileSync(mark, "utf8")).toBe("unload v1\n");
    expect(await call(pool, "a", "t")).toMatchObject({ content: "v2" });
    await pool.reload([], ["a"]);
    expect(readFileSync(mark, "utf8")).toBe("unload v1\nunload v2\n");
    expect(await call(pool, "a", "t")).toMatchObject({ is_error: true, content: expect.stringContaining("unknown tool") });
  });

  it("stops an on_unload hook that never returns, and reloads anyway", async () => {
    const { pool, dir, logs } = poolOf(
      { a: "awl.on_unload(function() while true do end end)\nawl.register_tool { name = 't', run = function() return 'v1' end }\n" },
      { maxSlots: 1 },
    );
    await pool.load();
    writeFileSync(join(dir, "a.lua"), "awl.register_tool { name = 't', run = function() return 'v2' end }\n");
    await pool.reload([{ name: "a", file: join(dir, "a.lua"), root: dir }], []);
    expect(await call(pool, "a", "t")).toMatchObject({ content: "v2" });
    expect(logs.join("")).toContain("on_unload failed");
  }, 30_000);

  it("never reloads under a running call: the busy worker catches up when its call ends", async () => {
    const { pool, dir } = poolOf(
      { a: "awl.register_tool { name = 'slow', run = function() local t = os.time() + 1; while os.time() < t + 1 do end; return 'v1 done' end }\n" },
      { maxSlots: 1 },
    );
    await pool.load();
    const running = call(pool, "a", "slow");
    await new Promise((r) => setTimeout(r, 200));
    writeFileSync(join(dir, "a.lua"), "awl.register_tool { name = 'slow', run = function() return 'v2' end }\n");
    const reloaded = pool.reload([{ name: "a", file: join(dir, "a.lua"), root: dir }], []);
    expect(await running).toMatchObject({ status: "result", content: "v1 done" });
    await reloaded;
    expect(await call(pool, "a", "slow")).toMatchObject({ content: "v2" });
  }, 30_000);
});
