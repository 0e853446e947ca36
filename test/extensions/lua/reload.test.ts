// The pool's reload (hot reload's runtime half): only the changed extension is loaded again, in every worker,
// never under a running call; its old version's on_unload hooks run first; a version that fails keeps the old one.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { call, poolOf, tempDir } from "./helpers.js";

const counter = (name: string, answer: string) => `
local calls = 0
awl.register_tool { name = "${name}", run = function() calls = calls + 1; return "${answer} " .. calls end }
`;

// Two calls of a `together` tool return only once both run at the same time: they prove two workers. Each
// answers its version, its Lua state's id and how many calls that state has seen.
const together = (tool: string, version: string, dir: string) => `
local calls, id = 0, tostring(math.random(1, 1000000000))
awl.register_tool { name = "${tool}", run = function(args)
  calls = calls + 1
  local mark = ${JSON.stringify(dir)} .. "/${tool}-${version}-"
  io.open(mark .. args.tag .. calls, "w"):close()
  local other = mark .. (args.tag == "x" and "y" or "x") .. calls
  local deadline = os.time() + 20
  while not io.open(other) do
    if os.time() > deadline then return "alone" end
    os.execute("sleep 0.02")
  end
  return "${version} " .. id .. " " .. calls
end }
`;

describe("LuaPool.reload", () => {
  it("reloads one extension in every worker; the other keeps its state", { timeout: 60_000 }, async () => {
    const marks = tempDir();
    const { pool, dir } = poolOf({ a: together("a_tool", "v1", marks), b: together("b_tool", "b", marks) }, { maxSlots: 2 });
    await pool.load();
    const both = async (extension: string, tool: string) =>
      (await Promise.all(["x", "y"].map((tag) => call(pool, extension, tool, { tag }, { timeoutMs: 30_000 })))).map((o) =>
        o.status === "result" ? o.content : o.status,
      );
    expect(await both("a", "a_tool")).toEqual([expect.stringMatching(/^v1 \d+ 1$/), expect.stringMatching(/^v1 \d+ 1$/)]);
    const bBefore = await both("b", "b_tool");
    writeFileSync(join(dir, "a.lua"), together("a_tool", "v2", marks));
    const results = await pool.reload([{ name: "a", file: join(dir, "a.lua"), root: dir }], []);
    expect(results).toEqual([{ extension: "a", tools: [expect.objectContaining({ name: "a_tool", extension: "a" })] }]);
    // Both workers run the new version, each from a fresh state.
    expect(await both("a", "a_tool")).toEqual([expect.stringMatching(/^v2 \d+ 1$/), expect.stringMatching(/^v2 \d+ 1$/)]);
    // b was not reloaded: the same two states answer, each one call further.
    const ids = (answers: string[]) => answers.map((a) => a.split(" ")[1]).sort();
    const bAfter = await both("b", "b_tool");
    expect(ids(bAfter)).toEqual(ids(bBefore));
    expect(bAfter.every((a) => a.endsWith(" 2"))).toBe(true);
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
