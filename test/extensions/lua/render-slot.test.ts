// Where a tool's block is drawn (`render`): in an idle call worker while the pool may still grow, so a run whose
// blocks are drawn only after their calls (`awl -p`) starts no worker for them; with no room to grow (one slot),
// in the renders' own worker, so a render never holds the slot a call waits for.
import { describe, expect, it, vi } from "vitest";

let started = 0;
vi.mock("../../../src/extensions/lua/thread.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../../src/extensions/lua/thread.js")>();
  class CountedThread extends real.LuaThread {
    constructor(...args: ConstructorParameters<typeof real.LuaThread>) {
      super(...args);
      started++;
    }
  }
  return { ...real, LuaThread: CountedThread };
});

const { call, context, contentOf, poolOf } = await import("./helpers.js");

const DRAWN = `awl.register_tool { name = "drawn", parameters = { type = "object" },
  run = function() return "ran" end,
  render = function(state) return "drawn " .. state.n end }`;
const opts = () => ({ signal: new AbortController().signal, timeoutMs: 5000 });
const view = { width: 40, height: 10, expand: false };

describe("a tool's block", () => {
  it("is drawn in the idle call worker when the pool may grow: no second worker starts", async () => {
    started = 0;
    const { pool } = poolOf({ d: DRAWN }, { maxSlots: 2 });
    expect(contentOf(await call(pool, "d", "drawn"))).toBe("ran");
    expect(await pool.render("d", "drawn", { n: 1 }, view, context(), opts())).toMatchObject({ content: "drawn 1" });
    expect(contentOf(await call(pool, "d", "drawn"))).toBe("ran");
    expect(await pool.render("d", "drawn", { n: 2 }, view, context(), opts())).toMatchObject({ content: "drawn 2" });
    expect(started).toBe(1);
  });

  it("is drawn in the renders' own worker when the one call slot is all the pool may have", async () => {
    started = 0;
    const { pool } = poolOf({ d: DRAWN }, { maxSlots: 1 });
    expect(contentOf(await call(pool, "d", "drawn"))).toBe("ran");
    expect(await pool.render("d", "drawn", { n: 1 }, view, context(), opts())).toMatchObject({ content: "drawn 1" });
    expect(started).toBe(2);
  });
});
