// The first worker loads the extension a call waits for before the others (LuaPoolOptions.loadFirst, issue 30):
// that call runs before any other extension's top level, the others load after it, and everything else (the
// whole load's answer, calls of the others, a second call meanwhile, on_unload hooks) is as without it.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { loadLuaThreadAhead, startLuaThreadAhead, stopLuaThreadsAhead } from "../../../src/extensions/lua/head-start.js";
import { LuaPool } from "../../../src/extensions/lua/pool.js";
import { call, contentOf, poolOf, tempDir, writeTree } from "./helpers.js";

/** An extension that notes its load, and a tool `<name>_note` that notes each call, in the file $NOTES. */
const noting = (name: string, extra = "") => `
local function note(text) local f = io.open(os.getenv("NOTES"), "a") f:write(text .. "\\n") f:close() end
note("loaded ${name}")
awl.register_tool("${name}_note", { type = "object" }, function() note("call ${name}") return "noted by ${name}" end)
${extra}
`;

function notingPool(loadFirst?: string[]) {
  const notes = join(tempDir(), "notes");
  const made = poolOf(
    { early: noting("early"), other: noting("other"), last: noting("last", `awl.on_unload(function() note("unload last") end)`) },
    { maxSlots: 1, env: { ...process.env, NOTES: notes }, ...(loadFirst && { loadFirst }) },
  );
  return { ...made, notes: () => readFileSync(notes, "utf8").trim().split("\n") };
}

describe("an extension loaded first for a call", () => {
  it("runs that call before the other extensions load, then loads them all", async () => {
    const { pool, notes } = notingPool(["last"]);
    await pool.readyFor("last", "last_note");
    expect(contentOf(await call(pool, "last", "last_note"))).toBe("noted by last");
    const loaded = await pool.load();
    // The whole load's answer keeps the list's order, whatever the order of the loads.
    expect(loaded.tools.map((t) => t.name)).toEqual(["early_note", "other_note", "last_note"]);
    expect(contentOf(await call(pool, "early", "early_note"))).toBe("noted by early");
    await pool.close();
    expect(notes()).toEqual(["loaded last", "call last", "loaded early", "loaded other", "call early", "unload last"]);
  });

  it("without it, the call waits for every extension (the list's order)", async () => {
    const { pool, notes } = notingPool();
    await pool.readyFor("last", "last_note");
    expect(contentOf(await call(pool, "last", "last_note"))).toBe("noted by last");
    await pool.close();
    expect(notes()).toEqual(["loaded early", "loaded other", "loaded last", "call last", "unload last"]);
  });

  it("a call of another extension waits for the whole load; a second call of the first waits for the first", async () => {
    const { pool, notes } = notingPool(["last"]);
    await pool.readyFor("last", "last_note");
    const outcomes = await Promise.all([call(pool, "last", "last_note"), call(pool, "early", "early_note"), call(pool, "last", "last_note")]);
    expect(outcomes.map(contentOf)).toEqual(["noted by last", "noted by early", "noted by last"]);
    const seen = notes();
    expect(seen.slice(0, 2)).toEqual(["loaded last", "call last"]);
    expect(seen.indexOf("call early")).toBeGreaterThan(seen.indexOf("loaded other"));
    expect(seen.filter((n) => n === "call last")).toHaveLength(2);
  });

  it("a name that is no extension of the list loads everything at once", async () => {
    const { pool, notes } = notingPool(["gone"]);
    await pool.readyFor("last", "last_note");
    expect(contentOf(await call(pool, "last", "last_note"))).toBe("noted by last");
    expect(notes()).toEqual(["loaded early", "loaded other", "loaded last", "call last"]);
  });

  it("an extension loaded first that fails to load is reported with the others, and they still load", async () => {
    const notes = join(tempDir(), "notes");
    const { pool } = poolOf({ broken: "error('broken on purpose')", fine: noting("fine") }, { maxSlots: 1, env: { ...process.env, NOTES: notes }, loadFirst: ["broken"] });
    await pool.readyFor("broken", "anything");
    const loaded = await pool.load();
    expect(loaded.errors.map((e) => e.extension)).toEqual(["broken"]);
    expect(loaded.errors[0]!.message).toContain("broken on purpose");
    expect(contentOf(await call(pool, "fine", "fine_note"))).toBe("noted by fine");
    expect(contentOf(await call(pool, "broken", "anything"))).toBe('unknown tool "anything" (extension "broken")');
  });

  it("a thread started ahead and sent the split load is the pool's first worker: the call runs before the others load", async () => {
    const cwd = tempDir();
    const notes = join(tempDir(), "notes");
    const dir = writeTree({ "early.lua": noting("early"), "last.lua": noting("last") });
    const env = { ...process.env, NOTES: notes };
    startLuaThreadAhead({ env, cwd });
    // What the tool set does as a call streams: the thread gets the pool's load before the pool is created.
    const options = { extensions: ["early", "last"].map((name) => ({ name, file: join(dir, `${name}.lua`), root: dir })), cwd, env, maxSlots: 1, loadFirst: ["last"] };
    loadLuaThreadAhead(options);
    const pool = new LuaPool(options);
    await pool.readyFor("last", "last_note");
    expect(contentOf(await call(pool, "last", "last_note", {}, { cwd }))).toBe("noted by last");
    await pool.load();
    await pool.close();
    expect(readFileSync(notes, "utf8").trim().split("\n")).toEqual(["loaded last", "call last", "loaded early"]);
  });

  it("a thread started ahead, sent the split load and never taken, runs every extension's on_unload hooks at exit", async () => {
    const cwd = tempDir();
    const notes = join(tempDir(), "notes");
    const hooked = (name: string) => noting(name, `awl.on_unload(function() note("unload ${name}") end)\nnote("hooked ${name}")`);
    const dir = writeTree({ "early.lua": hooked("early"), "last.lua": hooked("last") });
    const env = { ...process.env, NOTES: notes };
    startLuaThreadAhead({ env, cwd });
    loadLuaThreadAhead({ extensions: ["early", "last"].map((name) => ({ name, file: join(dir, `${name}.lua`), root: dir })), cwd, env, loadFirst: ["last"] });
    // "last" has registered its hook: it is owed from now on.
    await vi.waitFor(() => expect(existsSync(notes) && readFileSync(notes, "utf8")).toContain("hooked last"), { timeout: 10_000 });
    await stopLuaThreadsAhead(); // awl exits before any pool took the thread (no call came)
    expect(readFileSync(notes, "utf8").trim().split("\n")).toEqual(["loaded last", "hooked last", "loaded early", "hooked early", "unload early", "unload last"]);
  });
});
