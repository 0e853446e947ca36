// Standard Lua on the real system (issue 4 item 4): io.open / file methods / io.lines, io.popen,
// os.execute, os.getenv, os.remove, os.rename, os.tmpname, print; Lua 5.4 return values.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { call, contentOf, poolOf, tempDir } from "./helpers.js";

// `eval` runs Lua given as input, returning awl.json.encode of every value it returns.
const EVAL = `
awl.register_tool("eval", { type = "object" }, function(input)
  local chunk = assert(load(input.code, "=eval", "t", setmetatable({ D = input.dir }, { __index = _G })))
  local results = table.pack(chunk())
  for i = 1, results.n do if results[i] == nil then results[i] = awl.json.null end end
  return awl.json.encode(awl.json.array({ table.unpack(results, 1, results.n) }))
end)
`;

const { pool, logs } = poolOf({ s: EVAL }, { env: { ...process.env, AWL_TEST_VAR: "from the env" } });
const dir = tempDir();
async function lua(code: string, cwd?: string): Promise<unknown[]> {
  return JSON.parse(contentOf(await call(pool, "s", "eval", { code, dir }, cwd ? { cwd } : {}))) as unknown[];
}

describe("io.open and file methods", () => {
  it("writes real files and reads them back with every format", async () => {
    const path = join(dir, "formats.txt");
    expect(
      await lua(`
        local f = assert(io.open(D .. "/formats.txt", "w"))
        assert(f:write("first line\\n", 42, " ", 1.5, "\\n", "0x1F -7 3e2 rest\\n", "no newline at end") == f)
        f:close()
        return io.type(f), tostring(f)`),
    ).toEqual(["closed file", "file (closed)"]);
    expect(readFileSync(path, "utf8")).toBe("first line\n42 1.5\n0x1F -7 3e2 rest\nno newline at end");
    expect(
      await lua(`
        local f = assert(io.open(D .. "/formats.txt"))
        local l = f:read("l")
        local a, b = f:read("n", "n")
        local L = f:read("L")
        local h, n, e = f:read("n", "n", "n")
        local five = f:read(5)
        local rest = f:read("a")
        local eof1, eof2, eof3 = f:read("a"), f:read("l"), f:read(0)
        f:close()
        return l, a, math.type(a), b, math.type(b), L, h, n, e, five, rest, eof1, eof2, eof3`),
    ).toEqual(["first line", 42, "integer", 1.5, "float", "\n", 31, -7, 300, " rest", "\nno newline at end", "", null, null]);
  });

  it("seeks, appends, updates in place and iterates lines", async () => {
    writeFileSync(join(dir, "seek.txt"), "0123456789");
    expect(
      await lua(`
        local f = assert(io.open(D .. "/seek.txt", "r+"))
        local size = f:seek("end")
        f:seek("set", 2)
        local two = f:read(2)
        local here = f:seek()
        f:write("AB")
        f:seek("set")
        local all = f:read("a")
        f:close()
        local g = assert(io.open(D .. "/seek.txt", "a")) g:write("\\nx\\ny") g:close()
        local lines = {}
        for line in io.lines(D .. "/seek.txt") do lines[#lines + 1] = line end
        local h = assert(io.open(D .. "/seek.txt"))
        local pairs_ = {}
        for a, b in h:lines(1, "l") do pairs_[#pairs_ + 1] = a .. "|" .. tostring(b) end
        h:close()
        return size, two, here, all, lines, pairs_`),
    ).toEqual([10, "23", 4, "0123AB6789", ["0123AB6789", "x", "y"], ["0|123AB6789", "x|", "y|nil"]]);
  });

  it("returns Lua's (nil, message, errno) for files it cannot open", async () => {
    mkdirSync(join(dir, "adir"), { recursive: true });
    expect(
      await lua(`
        local a, b, c = io.open(D .. "/missing.txt")
        local ok, err = pcall(io.lines, D .. "/missing.txt")
        local mode_ok, mode_err = pcall(io.open, D .. "/x", "rw")
        local d = io.open(D .. "/adir")
        local x, y, z = d:read("a")
        return a, b, c, ok, err, mode_ok, mode_err, x, y, z`),
    ).toEqual([
      null,
      `${dir}/missing.txt: No such file or directory`,
      2,
      false,
      `cannot open file '${dir}/missing.txt' (No such file or directory)`, // real Lua 5.4's words
      false,
      "bad argument #2 to 'io.open' (invalid mode)", // called by pcall: named by its global name, as in Lua 5.4
      null,
      "Is a directory",
      21,
    ]);
  });

  it("resolves relative paths against the call's cwd", async () => {
    writeFileSync(join(dir, "rel.txt"), "relative");
    expect(await lua(`return io.open("rel.txt"):read("a")`, dir)).toEqual(["relative"]);
  });

  it("reads binary data byte for byte", async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 254, 10, 13, 0]);
    writeFileSync(join(dir, "bin"), bytes);
    expect(await lua(`local s = io.open(D .. "/bin", "rb"):read("a") return #s, s:byte(1, -1)`)).toEqual([8, 0, 1, 2, 255, 254, 10, 13, 0]);
    await lua(`local f = io.open(D .. "/bin2", "wb") f:write("\\0\\255\\n") f:close()`);
    expect([...readFileSync(join(dir, "bin2"))]).toEqual([0, 255, 10]);
  });

  it("has a tmpfile that works and io.write/print that go to the log", async () => {
    expect(await lua(`local f = io.tmpfile() f:write("tmp data") f:seek("set") return f:read("a")`)).toEqual(["tmp data"]);
    await lua(`print("hello", 1, nil) io.write("written ", 2, "\\n") io.stderr:write("to stderr\\n")`);
    expect(logs).toEqual(expect.arrayContaining(["s: hello\t1\tnil\n", "s: written 2\n", "s: to stderr\n"]));
  });
});

describe("processes", () => {
  it("io.popen reads a program's output and :close() gives Lua 5.4's triple", async () => {
    expect(
      await lua(`
        local p = io.popen("printf 'a\\nb\\n'; exit 3")
        local first = p:read("l")
        local rest = p:read("a")
        local ok, how, code = p:close()
        local q = io.popen("true")
        return first, rest, ok, how, code, q:close()`),
    ).toEqual(["a", "b\n", null, "exit", 3, true, "exit", 0]);
  });

  it("io.popen in write mode feeds the program", async () => {
    const out = join(dir, "popen-w.txt");
    expect(await lua(`local p = io.popen("cat > " .. D .. "/popen-w.txt", "w") p:write("fed ", "through\\n") return p:close()`)).toEqual([
      true,
      "exit",
      0,
    ]);
    expect(readFileSync(out, "utf8")).toBe("fed through\n");
  });

  it("os.execute returns Lua 5.4's values and runs in the call's cwd", async () => {
    expect(
      await lua(`
        local a = { os.execute("exit 0") }
        local b = { os.execute("exit 7") }
        local c = { os.execute("kill -TERM $$") }
        os.execute("pwd > where.txt")
        return a, b, c, os.execute()`, dir),
    ).toEqual([[true, "exit", 0], [null, "exit", 7], [null, "signal", 15], true]);
    expect(readFileSync(join(dir, "where.txt"), "utf8").trim()).toBe(dir);
  });

  it("awl.exec runs a program without a shell, with stdin, cwd and a timeout", async () => {
    expect(
      await lua(`
        local code, out, err = awl.exec{ "sh", "-c", "cat; echo err >&2; exit 4", stdin = "in\\0put" }
        local c2, o2 = awl.exec{ "pwd", cwd = D }
        local c3, o3, e3, why3 = awl.exec{ "sleep", "5", timeout = 0.1 }
        local c4, o4, e4, why4 = awl.exec{ "/no/such/program" }
        return code, out, err, c2, o2, c3, why3, c4, why4`),
    ).toEqual([4, "in\u0000put", "err\n", 0, `${dir}\n`, null, "timeout", null, expect.stringMatching(/cannot run \/no\/such\/program: .*ENOENT/)]);
  });
});

describe("os", () => {
  it("getenv reads the real environment", async () => {
    expect(await lua(`return os.getenv("AWL_TEST_VAR"), os.getenv("AWL_NOT_SET_ANYWHERE")`)).toEqual(["from the env", null]);
  });

  it("remove, rename and tmpname work on real files with Lua's results", async () => {
    writeFileSync(join(dir, "old.txt"), "x");
    mkdirSync(join(dir, "empty"), { recursive: true });
    expect(
      await lua(`
        local r1 = { os.rename(D .. "/old.txt", D .. "/new.txt") }
        local r2 = { os.remove(D .. "/new.txt") }
        local r3 = { os.remove(D .. "/new.txt") }
        local r4 = { os.remove(D .. "/empty") }
        local t = os.tmpname()
        local exists = io.open(t) ~= nil
        os.remove(t)
        return r1, r2, r3, r4, exists, t:sub(1, 1)`),
    ).toEqual([[true], [true], [null, `${dir}/new.txt: No such file or directory`, 2], [true], true, "/"]);
    expect(existsSync(join(dir, "empty"))).toBe(false);
  });

  it("keeps os.time, os.clock and os.date", async () => {
    const [time, clock, year] = await lua(`return os.time(), math.type(os.clock()), os.date("%Y")`);
    expect(Math.abs((time as number) - Date.now() / 1000)).toBeLessThan(5);
    expect(clock).toBe("float");
    expect(year).toBe(String(new Date().getFullYear()));
  });

  it("loads Lua files with loadfile and dofile", async () => {
    writeFileSync(join(dir, "chunk.lua"), "#!/usr/bin/env lua\nreturn ...  or 'none', 1 + 1");
    expect(await lua(`return dofile(D .. "/chunk.lua"), loadfile(D .. "/chunk.lua")("arg")`)).toEqual(["none", "arg", 2]);
  });
});
