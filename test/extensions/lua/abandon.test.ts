// A start given up at exit (LuaPool.abandonStart, what `awl` does when only a prewarm started the worker) is
// stopped once the worker is past Node's own start of its thread: the exit does not wait for the Lua runtime.
import { describe, expect, it, vi } from "vitest";

// wasmoon's module never arrives here, so the Lua runtime never boots: only a stop that does not wait for it ends.
vi.mock("../../../src/extensions/lua/assets.js", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../../../src/extensions/lua/assets.js")>()),
  luaWasmModule: () => new Promise(() => undefined),
}));

const { poolOf } = await import("./helpers.js");

describe("LuaPool.abandonStart", () => {
  it("stops the given-up worker without waiting for its Lua runtime to boot", async () => {
    const { pool } = poolOf({ m: `awl.register_tool("hi", {}, function() return "hi" end)` });
    const loading = pool.load();
    expect(pool.abandonStart()).toBe(true);
    await pool.quiesce(); // the worker is gone (its boot would have waited for the module for 30 s)
    await expect(loading).rejects.toThrow("the Lua worker exited"); // it loaded nothing
  });
});
