// `require` on the real file system (issue 4 item 4): beside the extension, the user's Lua directory,
// awl's extra directories, LUA_PATH, the system trees (Debian's dkjson and penlight); C modules fail clearly.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LuaPool } from "../../../src/extensions/lua/pool.js";
import { call, contentOf, writeTree } from "./helpers.js";

const EVAL = `awl.register_tool("eval", { type = "object" }, function(input)
  local ok, v = pcall(assert(load(input.code, "=eval", "t", setmetatable({ require = require }, { __index = _G }))))
  return ok and tostring(v) or ("error: " .. tostring(v))
end)`;

function poolFor(dir: string, names: { name: string; file: string; root: string }[], extra: Partial<ConstructorParameters<typeof LuaPool>[0]> = {}) {
  const pool = new LuaPool({ extensions: names.map((n) => ({ ...n, file: join(dir, n.file), root: join(dir, n.root) })), maxSlots: 1, ...extra });
  return pool;
}

describe("require", () => {
  it("finds modules beside each extension, each with its own cache", async () => {
    const dir = writeTree({
      "one/init.lua": `local h = require("helpers") local sub = require("sub.deep")
        awl.register_tool("one", {}, function() return h.name .. "+" .. sub .. "+" .. tostring(require("helpers") == h) end)`,
      "one/helpers.lua": `return { name = "one's helpers" }`,
      "one/sub/deep.lua": `return "deep:" .. require("helpers").name`,
      "two/init.lua": `local h = require("helpers") awl.register_tool("two", {}, function() return h.name end)`,
      "two/helpers.lua": `return { name = "two's helpers" }`,
    });
    const pool = poolFor(dir, [
      { name: "one", file: "one/init.lua", root: "one" },
      { name: "two", file: "two/init.lua", root: "two" },
    ]);
    try {
      expect((await pool.load()).errors).toEqual([]);
      expect(contentOf(await call(pool, "one", "one"))).toBe("one's helpers+deep:one's helpers+true");
      expect(contentOf(await call(pool, "two", "two"))).toBe("two's helpers");
    } finally {
      await pool.close();
    }
  });

  it("loads Debian's pure-Lua dkjson and penlight from the system trees", async () => {
    // installed by .ci/run (apt-get install lua-dkjson lua-penlight)
    expect(existsSync("/usr/share/lua/5.4/dkjson.lua")).toBe(true);
    const dir = writeTree({ "e.lua": EVAL });
    const pool = poolFor(dir, [{ name: "e", file: "e.lua", root: "." }]);
    const lua = async (code: string) => contentOf(await call(pool, "e", "eval", { code }));
    try {
      expect(await lua(`local json = require("dkjson") return json.encode({ a = { 1, 2 } }) .. " " .. json.decode('[1,"x"]')[2]`)).toBe(
        `{"a":[1,2]} x`,
      );
      expect(await lua(`return require("pl.pretty").write({ 1, 2, x = "y" }, "")`)).toBe(`{1,2,x="y"}`);
      expect(await lua(`return table.concat(require("pl.stringx").split("a,b,,c", ","), "|")`)).toBe("a|b||c");
      expect(await lua(`return require("pl.stringx").strip("  padded  ")`)).toBe("padded");
    } finally {
      await pool.close();
    }
  });

  it("refuses C modules with a clear error naming them", async () => {
    const dir = writeTree({ "e.lua": EVAL });
    const pool = poolFor(dir, [{ name: "e", file: "e.lua", root: "." }]);
    const lua = async (code: string) => contentOf(await call(pool, "e", "eval", { code }));
    try {
      if (existsSync("/usr/lib/x86_64-linux-gnu/lua/5.4/lfs.so")) {
        expect(await lua(`return require("lfs")`)).toBe(
          "error: module 'lfs' is a C module (/usr/lib/x86_64-linux-gnu/lua/5.4/lfs.so): awl runs Lua in WebAssembly, which can load pure-Lua modules only; use a pure-Lua alternative, or run a program with awl.exec or io.popen",
        );
      }
      expect(await lua(`return require("cjson")`)).toMatch(/^error: module 'cjson' is a C module: awl runs Lua in WebAssembly/);
      // With Debian's lua-socket installed (luarocks, which .ci/run installs, depends on it) socket.http is its pure-Lua
      // part, and the C module that part requires is the one named; without it, awl knows socket.http as LuaSocket's.
      const named = existsSync("/usr/share/lua/5.4/socket/http.lua") ? "socket\\.core" : "socket\\.http";
      expect(await lua(`return require("socket.http")`)).toMatch(new RegExp(`^error: module '${named}' is a C module`));
      expect(await lua(`return package.loadlib("x.so", "f")`)).toBe("nil");
    } finally {
      await pool.close();
    }
  });

  it("searches the user's Lua directory, awl's extra directories and LUA_PATH, and says where it looked", async () => {
    const dir = writeTree({
      "e.lua": EVAL,
      "xdg/awl/lua/fromuser.lua": `return "user dir"`,
      "extra/fromextra.lua": `return "extra dir"`,
      "luapath/fromenv/init.lua": `return "LUA_PATH"`,
    });
    const env = { ...process.env, XDG_CONFIG_HOME: join(dir, "xdg"), LUA_PATH: `${join(dir, "luapath")}/?/init.lua;;` };
    const pool = poolFor(dir, [{ name: "e", file: "e.lua", root: "." }], { env, luaPath: [join(dir, "extra")] });
    const lua = async (code: string) => contentOf(await call(pool, "e", "eval", { code }));
    try {
      expect(await lua(`return require("fromuser") .. ", " .. require("fromextra") .. ", " .. require("fromenv")`)).toBe(
        "user dir, extra dir, LUA_PATH",
      );
      const missing = await lua(`return require("no.such.module")`);
      expect(missing).toContain("module 'no.such.module' not found");
      expect(missing).toContain(`no file '${join(dir, "xdg/awl/lua/no/such/module.lua")}'`);
      expect(missing).toContain("no file '/usr/share/lua/5.4/no/such/module.lua'");
      expect(await lua(`return package.searchpath("fromextra", package.path)`)).toBe(join(dir, "extra/fromextra.lua"));
    } finally {
      await pool.close();
    }
  });

  it("reports an error inside a required module with the module's file and line", async () => {
    const dir = writeTree({ "e/init.lua": `require("broken")`, "e/broken.lua": `\nlocal x = nil + 1` });
    const pool = poolFor(dir, [{ name: "e", file: "e/init.lua", root: "e" }]);
    try {
      const { errors } = await pool.load();
      expect(errors).toHaveLength(1);
      expect(errors[0]!.message).toMatch(new RegExp(`${join(dir, "e/broken.lua")}:2: attempt to perform arithmetic on a nil value`));
      expect(errors[0]!.traceback).toContain(`${join(dir, "e/init.lua")}:1: in main chunk`);
    } finally {
      await pool.close();
    }
  });
});
