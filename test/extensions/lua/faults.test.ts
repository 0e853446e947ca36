// Runaway handlers (issue 4 item 8): timeouts through the instruction hook and, where the hook cannot
// reach, worker termination; cancellation that kills child processes; the memory cap; os.exit.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../../src/util/package-path.js";
import { call, contentOf, poolOf, tempDir } from "./helpers.js";

const SOURCE = `
local function tool(name, run) awl.register_tool{ name = name, run = run } end
tool("ok", function() return "ok" end)
tool("spin", function() while true do end end)
tool("spin_in_pcall", function() while true do pcall(function() while true do end end) end end)
tool("spin_in_handler", function()
  xpcall(function() error("first") end, function() while true do end end)
  while true do end
end)
tool("unhook", function() debug.sethook(); while true do end end)
tool("popen_hang", function() local p = io.popen("sleep 100"); return p:read("a") end)
tool("grandchild", function(input)
  os.execute("sleep 100 & echo $! > " .. input.pidfile .. "; wait")
  return "not reached"
end)
tool("hog", function()
  local t = {}
  for i = 1, 1e9 do t[i] = string.rep("x", 1024) .. i end
end)
tool("exit3", function() os.exit(3) end)
tool("exit_in_pcall", function() pcall(os.exit, 0); return "pcall caught os.exit" end)
`;

const { pool } = poolOf({ f: SOURCE }, { maxSlots: 2, memoryLimitBytes: 48 * 1024 * 1024 });

function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

/** Waits for a state, with a limit a loaded machine cannot reach. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe("timeouts", () => {
  it("stops `while true do end`", async () => {
    expect(await call(pool, "f", "spin", {}, { timeoutMs: 200 })).toEqual({ status: "timeout", timeout_ms: 200 });
    expect(contentOf(await call(pool, "f", "ok"))).toBe("ok");
  });

  it("stops a loop inside pcall", async () => {
    expect(await call(pool, "f", "spin_in_pcall", {}, { timeoutMs: 200 })).toEqual({ status: "timeout", timeout_ms: 200 });
    expect(contentOf(await call(pool, "f", "ok"))).toBe("ok");
  });

  it("stops a loop in an xpcall message handler", async () => {
    expect(await call(pool, "f", "spin_in_handler", {}, { timeoutMs: 200 })).toEqual({ status: "timeout", timeout_ms: 200 });
    expect(contentOf(await call(pool, "f", "ok"))).toBe("ok");
  });

  it("terminates the worker when the handler removed the hook, and replaces the slot", async () => {
    expect(await call(pool, "f", "unhook", {}, { timeoutMs: 200 })).toEqual({ status: "timeout", timeout_ms: 200 });
    const after = await Promise.all([call(pool, "f", "ok"), call(pool, "f", "ok")]);
    expect(after.map(contentOf)).toEqual(["ok", "ok"]);
  });

  it("stops a handler that hangs in a host call (io.popen of a long program)", async () => {
    expect(await call(pool, "f", "popen_hang", {}, { timeoutMs: 300 })).toEqual({ status: "timeout", timeout_ms: 300 });
    expect(contentOf(await call(pool, "f", "ok"))).toBe("ok");
  });
});

describe("cancellation", () => {
  it("stops a running handler", async () => {
    const controller = new AbortController();
    const running = call(pool, "f", "spin", {}, { signal: controller.signal, timeoutMs: 60_000 });
    setTimeout(() => controller.abort(), 100);
    expect(await running).toEqual({ status: "cancelled" });
  });

  it("kills the processes the handler started, grandchildren included", { timeout: 150_000 }, async () => {
    const pidfile = join(tempDir(), "pid");
    const controller = new AbortController();
    const running = call(pool, "f", "grandchild", { pidfile }, { signal: controller.signal, timeoutMs: 60_000 });
    await until(() => existsSync(pidfile) && readFileSync(pidfile, "utf8").trim() !== "", "the pid file");
    const pid = Number(readFileSync(pidfile, "utf8"));
    expect(gone(pid)).toBe(false);
    controller.abort();
    expect(await running).toEqual({ status: "cancelled" });
    await until(() => gone(pid), `process ${pid} to end`);
  });

  it("answers a call cancelled before it started", async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await call(pool, "f", "ok", {}, { signal: controller.signal })).toEqual({ status: "cancelled" });
  });
});

describe("memory cap", () => {
  // Limits a loaded machine cannot reach: the allocation runs until the cap stops it.
  it("makes a runaway allocation fail inside Lua, then serves the next call", { timeout: 150_000 }, async () => {
    const outcome = await call(pool, "f", "hog", {}, { timeoutMs: 120_000 });
    expect(outcome).toMatchObject({ status: "crash", extension: "f" });
    expect(outcome.status === "crash" && outcome.message).toMatch(/not enough memory.*memory cap of 48 MB/);
    expect(contentOf(await call(pool, "f", "ok"))).toBe("ok");
  });
});

describe("memory cap beside the bundled extensions", () => {
  // The bundled extensions' top levels load on Lua's own allocator (awl's code); the cap is back for what follows.
  it("still stops a handler that allocates past it, after the bundled extensions loaded", async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, "big.lua"),
      `awl.register_tool{ name = "big", run = function()
        local t = {}
        for i = 1, 100000 do t[i] = string.rep("y", 1024) .. i end -- about 100 MB, twice the cap
        return "allocated " .. #t
      end }`,
    );
    const std = join(packageRoot(), "extensions", "std");
    const { pool: mixed } = poolOf({}, {
      memoryLimitBytes: 48 * 1024 * 1024,
      extensions: [
        { name: "big", file: join(dir, "big.lua"), root: dir },
        { name: "std.ls", file: join(std, "ls.lua"), root: std },
      ],
    });
    const loaded = await mixed.load();
    expect(loaded.errors).toEqual([]);
    expect(loaded.tools.map((t) => t.name).sort()).toEqual(["big", "ls"]);
    const outcome = await call(mixed, "big", "big", {}, { timeoutMs: 60_000 });
    expect(outcome.status === "crash" && outcome.message).toMatch(/not enough memory.*memory cap of 48 MB/);
    expect(contentOf(await call(mixed, "std.ls", "ls", { path: dir }, { cwd: dir }))).toContain("big.lua");
  });
});

describe("os.exit", () => {
  it("ends the handler only, never the host, and cannot be caught by pcall", async () => {
    expect(await call(pool, "f", "exit3")).toEqual({
      status: "result",
      content: "the handler ended with os.exit(3)",
      is_error: true,
    });
    expect(await call(pool, "f", "exit_in_pcall")).toEqual({
      status: "result",
      content: "the handler ended with os.exit(0)",
      is_error: false,
    });
    expect(contentOf(await call(pool, "f", "ok"))).toBe("ok");
  });
});

describe("extensions that never finish loading", () => {
  it("fail alone, whether the hook stops them or the worker must be killed", async () => {
    const { pool: p } = poolOf(
      {
        a_spin: `while true do end`,
        b_unhook: `debug.sethook(); while true do end`,
        c_good: `awl.register_tool("fine", {}, function() return "fine" end)`,
      },
      { loadTimeoutMs: 300 },
    );
    const { tools, errors } = await p.load();
    expect(errors.map((e) => [e.extension, e.message.replace(/^.*\.lua: /, "")])).toEqual([
      ["a_spin", "did not finish loading within 0.3 s"],
      ["b_unhook", "did not finish loading within 0.3 s"],
    ]);
    expect(tools.map((t) => t.name)).toEqual(["fine"]);
    expect(contentOf(await call(p, "c_good", "fine"))).toBe("fine");
  });
});
