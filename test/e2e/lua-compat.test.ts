// Where awl's rebuilt io/os functions and JSON input meet real Lua 5.4: the expected strings below were taken
// from the reference interpreter (lua5.4 5.4.4 on Linux) running the same lines with the same paths.
import { afterEach, beforeEach, expect, it } from "vitest";
import { sandbox, type Sandbox } from "./support.js";

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.remove());

it("io and os failures say what Lua 5.4 says, and io.write('') logs nothing", async () => {
  const file = box.extension(
    "probe.lua",
    `awl.register_tool("probe", { type = "object" }, function(a)
  io.write("")
  local r = {}
  local function add(...) local t = table.pack(...) for i = 1, t.n do t[i] = tostring(t[i]) end r[#r+1] = table.concat(t, "|") end
  local missing = a.dir .. "/zzz_nope"
  add(os.rename(missing, a.dir .. "/zzz2"))
  add(os.remove(missing))
  add(pcall(io.lines, missing))
  add(pcall(io.open, missing, "rz"))
  add(pcall(function() local f = io.open(missing, "rz") return f end))
  add(pcall(function() local f = io.open(nil) return f end))
  add(pcall(function() for l in io.lines(missing) do end end))
  add(pcall(function() local ok = os.rename(1) return ok end))
  return table.concat(r, "\\n")
end)\n`,
  );
  const missing = `${box.root}/zzz_nope`;
  const result = await box.awl(["tool", "--trust-project", "call", "probe", JSON.stringify({ dir: box.root })]);
  expect(result.stderr).toBe("");
  expect(result.stdout).toBe(
    [
      "nil|No such file or directory|2",
      `nil|${missing}: No such file or directory|2`,
      `false|cannot open file '${missing}' (No such file or directory)`,
      "false|bad argument #2 to 'io.open' (invalid mode)",
      `false|${file}:10: bad argument #2 to 'open' (invalid mode)`,
      `false|${file}:11: bad argument #1 to 'open' (string expected, got nil)`,
      `false|${file}:12: cannot open file '${missing}' (No such file or directory)`,
      `false|${file}:13: bad argument #2 to 'rename' (string expected, got no value)`,
      "",
    ].join("\n"),
  );
});

it("JSON input keeps -0.0 negative, as Lua's own tonumber('-0.0') does", async () => {
  box.extension(
    "zero.lua",
    `awl.register_tool("zero", { type = "object" }, function(a)
  return tostring(a.x) .. " " .. math.type(a.x) .. " " .. tostring(1 / a.x) .. " " .. awl.json.encode(a)
end)\n`,
  );
  expect(await box.awl(["tool", "--trust-project", "call", "zero", '{"x":-0.0}'])).toMatchObject({ code: 0, stdout: '-0.0 float -inf {"x":-0.0}\n' });
});
