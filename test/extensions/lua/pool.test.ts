// The pool (seed's LuaStatePool): slots created lazily, calls in parallel in separate states, a queue
// beyond maxSlots, cancellation while queued, unknown tools, on_unload at close.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { call, context, contentOf, poolOf, tempDir } from "./helpers.js";
import { luaSearchPaths } from "../../../src/extensions/lua/worker/lua-paths.js";

const SOURCE = `
local function exists(path) local f = io.open(path) if f then f:close() return true end return false end
-- Announces itself, then waits (up to ~10 s) for the other call: only works if both run at once.
awl.register_tool("meet", { type = "object" }, function(input)
  io.open(input.dir .. "/" .. input.me, "w"):close()
  for _ = 1, 1000 do
    if exists(input.dir .. "/" .. input.other) then return "met " .. input.other end
    os.execute("sleep 0.01")
  end
  return "alone"
end)
local state_id = os.tmpname() -- unique per state (addresses are the same in every wasm instance)
os.remove(state_id)
awl.register_tool("whoami", {}, function() return state_id end)
local first_random = tostring(math.random(1 << 40))
awl.register_tool("random", {}, function() return state_id .. " " .. first_random end)
awl.register_tool("wait", { type = "object" }, function(input) os.execute("sleep " .. input.s) return "waited" end)
awl.register_tool { name = "drawn", description = "renders", parameters = { type = "object" },
  run = function() return "" end,
  render = function(state) if state.spin then while true do end end return "drawn " .. state.n end }
awl.on_unload(function() local f = io.open(os.getenv("AWL_UNLOAD_MARK"), "a") f:write("unloaded\\n") f:close() end)
`;

describe("LuaPool", () => {
  it("runs two calls at once in two Lua states", async () => {
    const { pool } = poolOf({ p: SOURCE }, { maxSlots: 2, env: { ...process.env, AWL_UNLOAD_MARK: "/dev/null" } });
    const dir = tempDir();
    const [a, b] = await Promise.all([
      call(pool, "p", "meet", { dir, me: "a", other: "b" }),
      call(pool, "p", "meet", { dir, me: "b", other: "a" }),
    ]);
    expect([contentOf(a), contentOf(b)]).toEqual(["met b", "met a"]);
    const ids = new Set((await Promise.all([call(pool, "p", "whoami"), call(pool, "p", "whoami")])).map(contentOf));
    expect(ids.size).toBe(2);
    // each state seeds its own random numbers (wasm instances would otherwise all share one sequence)
    const randoms = new Map<string, string>();
    for (let i = 0; i < 20 && randoms.size < 2; i++) {
      for (const o of await Promise.all([call(pool, "p", "random"), call(pool, "p", "random")])) {
        const [state, first] = contentOf(o).split(" ");
        randoms.set(state!, first!);
      }
    }
    expect(randoms.size).toBe(2);
    expect(new Set(randoms.values()).size).toBe(2);
  });

  it("renders while every slot runs a tool, and a runaway render never holds up a tool call", async () => {
    const { pool } = poolOf({ p: SOURCE }, { maxSlots: 1, env: { ...process.env, AWL_UNLOAD_MARK: "/dev/null" } });
    const opts = { signal: new AbortController().signal, timeoutMs: 1000 };
    const view = { width: 40, height: 10, expand: false };
    const busy = call(pool, "p", "wait", { s: 2 });
    const drawn = await pool.render("p", "drawn", { n: 1 }, view, context(), opts);
    expect(drawn).toMatchObject({ status: "result", content: "drawn 1" });
    await busy;
    // A render spinning until its timeout runs beside the (one) tool slot, which stays free for calls.
    const spinning = pool.render("p", "drawn", { spin: true }, view, context(), opts);
    expect(contentOf(await call(pool, "p", "wait", { s: 0 }))).toBe("waited");
    expect(await spinning).toMatchObject({ status: "timeout" });
    // The next render gets a fresh slot.
    expect(await pool.render("p", "drawn", { n: 2 }, view, context(), opts)).toMatchObject({ status: "result", content: "drawn 2" });
  });

  it("queues calls beyond maxSlots and runs them all", async () => {
    const { pool } = poolOf({ p: SOURCE }, { maxSlots: 1, env: { ...process.env, AWL_UNLOAD_MARK: "/dev/null" } });
    const outcomes = await Promise.all([1, 2, 3, 4].map(() => call(pool, "p", "wait", { s: 0.01 })));
    expect(outcomes.map(contentOf)).toEqual(["waited", "waited", "waited", "waited"]);
    expect(new Set((await Promise.all([call(pool, "p", "whoami"), call(pool, "p", "whoami")])).map(contentOf)).size).toBe(1);
  });

  it("cancels a call still waiting for a slot", async () => {
    const { pool } = poolOf({ p: SOURCE }, { maxSlots: 1, env: { ...process.env, AWL_UNLOAD_MARK: "/dev/null" } });
    await pool.load();
    const busy = call(pool, "p", "wait", { s: 0.3 });
    const controller = new AbortController();
    const queued = call(pool, "p", "whoami", {}, { signal: controller.signal });
    controller.abort();
    expect(await queued).toEqual({ status: "cancelled" });
    expect(contentOf(await busy)).toBe("waited");
  });

  it("treats a timeout beyond what timers hold as no timeout", async () => {
    const { pool } = poolOf({ p: SOURCE }, { env: { ...process.env, AWL_UNLOAD_MARK: "/dev/null" } });
    expect(contentOf(await call(pool, "p", "wait", { s: 0.05 }, { timeoutMs: Infinity }))).toBe("waited");
    expect(contentOf(await call(pool, "p", "wait", { s: 0.05 }, { timeoutMs: 2 ** 40 }))).toBe("waited");
  });

  it("answers an unknown tool with an is_error result", async () => {
    const { pool } = poolOf({ p: SOURCE }, { env: { ...process.env, AWL_UNLOAD_MARK: "/dev/null" } });
    expect(await call(pool, "p", "nope")).toEqual({ status: "result", is_error: true, content: `unknown tool "nope" (extension "p")` });
  });

  it("quiesce() waits for a worker that is starting, and stops none", async () => {
    const { pool } = poolOf({ slow: `os.execute("sleep 0.3")\nawl.register_tool("hi", {}, function() return "hi" end)` });
    await pool.quiesce(); // nothing started yet
    let loaded = false;
    void pool.load().then(() => (loaded = true));
    await pool.quiesce();
    await new Promise((resolve) => setImmediate(resolve)); // lets the load's own callbacks run
    expect(loaded).toBe(true);
    expect(await call(pool, "slow", "hi")).toMatchObject({ status: "result", content: "hi" });
  });

  it("abandonStart() gives up a worker whose extensions are owed no hook: before their code ran (it then never runs), and after it", async () => {
    const mark = join(tempDir(), "ran");
    const marking = `io.open(${JSON.stringify(mark)}, "w"):close()\nawl.register_tool("hi", {}, function() return "hi" end)`;
    const { pool } = poolOf({ m: marking });
    const loading = pool.load(); // the worker takes tens of ms to start: nothing has run yet
    expect(pool.abandonStart()).toBe(true);
    await loading.catch(() => undefined);
    await pool.quiesce();
    expect(existsSync(mark)).toBe(false);

    const { pool: loaded } = poolOf({ m: marking });
    await loaded.load();
    expect(existsSync(mark)).toBe(true);
    expect(loaded.abandonStart()).toBe(true); // its code ran, but registered no on_unload hook: nothing is owed
    await loaded.quiesce();
    expect(await call(loaded, "m", "hi")).toMatchObject({ status: "crash", message: "the Lua pool is closed" });
  });

  it("abandonStart() cuts short a load that owes nothing yet", async () => {
    const dir = tempDir();
    const [started, finished] = [join(dir, "started"), join(dir, "finished")];
    const slow = `io.open(${JSON.stringify(started)}, "w"):close()
local t = os.clock() while os.clock() - t < 8 do end
io.open(${JSON.stringify(finished)}, "w"):close()
awl.register_tool("hi", {}, function() return "hi" end)`;
    const { pool } = poolOf({ slow });
    const loading = pool.load();
    await vi.waitFor(() => expect(existsSync(started)).toBe(true), { timeout: 30_000, interval: 20 });
    expect(pool.abandonStart()).toBe(true);
    await pool.quiesce(); // the worker is gone without the 8 s of its load
    await loading.catch(() => undefined);
    expect(existsSync(finished)).toBe(false);
  }, 60_000);

  it("abandonStart() keeps a worker whose extension registered an on_unload hook: the hook runs at close", async () => {
    const mark = join(tempDir(), "unload");
    const hooked = `awl.on_unload(function() local f = io.open(${JSON.stringify(mark)}, "a"); f:write("unloaded\\n"); f:close() end)
awl.register_tool("hi", {}, function() return "hi" end)`;
    const { pool } = poolOf({ h: hooked });
    await pool.load();
    expect(pool.abandonStart()).toBe(false);
    expect(await call(pool, "h", "hi")).toMatchObject({ status: "result", content: "hi" });
    await pool.close();
    expect(readFileSync(mark, "utf8")).toBe("unloaded\n");
  });

  it("runs on_unload hooks in every state at close, then refuses calls", async () => {
    const mark = join(tempDir(), "unload");
    const { pool } = poolOf({ p: SOURCE }, { maxSlots: 2, env: { ...process.env, AWL_UNLOAD_MARK: mark } });
    const dir = tempDir();
    await Promise.all([
      call(pool, "p", "meet", { dir, me: "a", other: "b" }),
      call(pool, "p", "meet", { dir, me: "b", other: "a" }),
    ]);
    await pool.close();
    expect(readFileSync(mark, "utf8")).toBe("unloaded\nunloaded\n");
    expect(await call(pool, "p", "whoami")).toMatchObject({ status: "crash", message: "the Lua pool is closed" });
  });
});

describe("working folders", () => {
  it("two pools in two folders, beside each other in one process: load-time code and each call see their own folder, never process.cwd()", async () => {
    const source = `local f = io.open("loaded.txt", "w"); f:write("loaded"); f:close()
awl.register_tool("where", { type = "object" }, function() local h = io.open("here.txt"); local t = h:read("a"); h:close(); return t end)`;
    const folders = [tempDir(), tempDir()];
    folders.forEach((dir, i) => writeFileSync(join(dir, "here.txt"), `folder ${i}`));
    const pools = folders.map((cwd) => poolOf({ where: source }, { cwd }).pool);
    await Promise.all(pools.map((pool) => pool.load()));
    for (const dir of folders) expect(readFileSync(join(dir, "loaded.txt"), "utf8")).toBe("loaded");
    expect(existsSync(join(process.cwd(), "loaded.txt"))).toBe(false);
    const answers = await Promise.all(pools.map((pool, i) => call(pool, "where", "where", {}, { cwd: folders[i]! })));
    expect(answers.map(contentOf)).toEqual(["folder 0", "folder 1"]);
  });
});

describe("search paths", () => {
  it("orders the user's directory, extra directories, LUA_PATH and the system trees", () => {
    const { path, cpath } = luaSearchPaths({ LUA_PATH: "/a/?.lua;;/b/?.lua", HOME: "/h" }, "/h", ["/extra"], "x64");
    const list = path.split(";");
    expect(list.slice(0, 5)).toEqual(["/h/.config/awl/lua/?.lua", "/h/.config/awl/lua/?/init.lua", "/extra/?.lua", "/extra/?/init.lua", "/a/?.lua"]);
    expect(list.at(-1)).toBe("/b/?.lua");
    expect(list).toContain("/usr/share/lua/5.4/?.lua");
    expect(list).toContain("/usr/local/share/lua/5.1/?/init.lua");
    expect(cpath.split(";")).toContain("/usr/lib/x86_64-linux-gnu/lua/5.4/?.so");
    expect(luaSearchPaths({ XDG_CONFIG_HOME: "/x" }, "/h", []).path.split(";")[0]).toBe("/x/awl/lua/?.lua");
  });
});
