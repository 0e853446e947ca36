// JSON <-> Lua fidelity through the bridge (seed: "Lua bridge input parsing"; LUA-RUNTIME.md pitfalls).
import { describe, expect, it } from "vitest";
import { call, contentOf, poolOf } from "./helpers.js";

const JSON_EXT = String.raw`
local json = awl.json
local function d(v)
  if v == json.null then return "null" end
  local t = type(v)
  if t == "number" then
    if math.type(v) == "integer" then return "int:" .. string.format("%d", v) end
    return "float:" .. string.format("%.17g", v)
  end
  if t == "string" then return "str" .. #v .. ":" .. v end
  if t == "boolean" then return tostring(v) end
  if t == "table" then
    local mt = getmetatable(v)
    local kind = type(mt) == "table" and mt.__jsontype or "plain"
    local parts = {}
    if kind == "array" then
      for i = 1, #v do parts[#parts + 1] = d(v[i]) end
      return "[" .. table.concat(parts, ",") .. "]#" .. #v
    end
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys)
    for _, k in ipairs(keys) do parts[#parts + 1] = k .. "=" .. d(v[k]) end
    return kind .. "{" .. table.concat(parts, ",") .. "}"
  end
  return t
end
awl.register_tool("describe", { type = "object" }, function(input) return d(input.v) end)
awl.register_tool("roundtrip", { type = "object" }, function(input) return json.encode(input) end)
awl.register_tool("eval", { type = "object" }, function(input)
  local chunk = assert(load(input.code, "=eval", "t", setmetatable({ json = json }, { __index = _G })))
  local ok, v = pcall(chunk)
  if not ok then return "error: " .. tostring(v) end
  return v
end)
`;

const { pool } = poolOf({ j: JSON_EXT });
const describeValue = async (raw: string) => contentOf(await call(pool, "j", "describe", `{"v":${raw}}`));
const roundtrip = async (raw: string) => contentOf(await call(pool, "j", "roundtrip", raw));
const evalLua = async (code: string) => contentOf(await call(pool, "j", "eval", { code }));

describe("JSON -> Lua", () => {
  it("turns null into the awl.json.null sentinel, keeping array length", async () => {
    expect(await describeValue(`{"a":null,"b":[1,null,3]}`)).toBe("object{a=null,b=[int:1,null,int:3]#3}");
    expect(await describeValue(`[null,null]`)).toBe("[null,null]#2");
  });

  it("keeps empty objects and empty arrays apart", async () => {
    expect(await describeValue(`{"o":{},"a":[]}`)).toBe("object{a=[]#0,o=object{}}");
    expect(await roundtrip(`{"o":{},"a":[],"n":[[],{}]}`)).toBe(`{"a":[],"n":[[],{}],"o":{}}`);
  });

  it("keeps integers and floats apart", async () => {
    expect(await describeValue(`[1, 1.0, -0.5, 1e2, 0, -7]`)).toBe(
      "[int:1,float:1,float:-0.5,float:100,int:0,int:-7]#6",
    );
    expect(await roundtrip(`{"v":[1,1.0,-0.5,1e2,2.5e-3]}`)).toBe(`{"v":[1,1.0,-0.5,100.0,0.0025]}`);
  });

  it("keeps 64-bit integers exact", async () => {
    expect(await describeValue(`[9223372036854775807,-9223372036854775808,12345678901234567]`)).toBe(
      "[int:9223372036854775807,int:-9223372036854775808,int:12345678901234567]#3",
    );
    expect(await roundtrip(`{"v":9007199254740993}`)).toBe(`{"v":9007199254740993}`);
    // beyond 64 bits: a float, as Lua itself reads it
    expect(await describeValue(`9223372036854775808`)).toBe("float:9.2233720368547758e+18");
  });

  it("keeps NUL bytes inside strings", async () => {
    expect(await evalLua(`local s = json.decode([["a\\u0000b"]]) return #s .. ":" .. s:byte(2)`)).toBe("3:0");
    expect(await roundtrip(`{"s":"a\\u0000b"}`)).toBe(`{"s":"a\\u0000b"}`);
  });

  it("decodes unicode, escapes and surrogate pairs to UTF-8", async () => {
    expect(await describeValue(`"h\\u00e9llo \\ud83d\\ude00 ✓"`)).toBe("str15:héllo 😀 ✓");
    expect(await roundtrip(`{"s":"héllo 😀","e":"tab\\tquote\\"back\\\\"}`)).toBe(`{"e":"tab\\tquote\\"back\\\\","s":"héllo 😀"}`);
  });

  it("ends strings at the right quote, whatever runs of backslashes come before it", async () => {
    const tricky = ["\\", 'a\\"b', '\\\\"', "\\u0041", "back\\slash\\", '"quoted"', "tab\there", "\u00e9\\n"];
    for (const text of tricky) {
      const raw = JSON.stringify({ v: text });
      expect(await describeValue(JSON.stringify(text))).toBe(`str${Buffer.byteLength(text)}:${text}`);
      expect(await roundtrip(raw)).toBe(raw);
    }
  });

  it("decodes nested arrays and objects", async () => {
    expect(await describeValue(`[[1,[2,[3]]],{"a":{"b":[true,false]}}]`)).toBe(
      "[[int:1,[int:2,[int:3]#1]#2]#2,object{a=object{b=[true,false]#2}}]#2",
    );
    const deep = "[".repeat(200) + "]".repeat(200);
    expect(await roundtrip(`{"d":${deep}}`)).toBe(`{"d":${deep}}`);
  });

  it("rejects invalid JSON input with an is_error result", async () => {
    const outcome = await call(pool, "j", "describe", `{"v": [1,}`);
    expect(outcome).toMatchObject({ status: "result", is_error: true });
    expect(contentOf(outcome)).toMatch(/not valid JSON.*line 1, column 10/);
  });
});

describe("Lua -> JSON", () => {
  it("sorts object keys so the bytes are deterministic", async () => {
    expect(await evalLua(`return json.encode({ zeta = 1, alpha = { c = 1, b = 2, a = 3 }, mid = "x" })`)).toBe(
      `{"alpha":{"a":3,"b":2,"c":1},"mid":"x","zeta":1}`,
    );
  });

  it("decides arrays by content, with holes as null", async () => {
    expect(await evalLua(`return json.encode({ 1, nil, 3 })`)).toBe(`[1,null,3]`);
    expect(await evalLua(`return json.encode({ [1] = "a", [100] = "b" })`)).toBe(`{"1":"a","100":"b"}`);
    expect(await evalLua(`return json.encode({ 1, 2, x = 3 })`)).toBe(`{"1":1,"2":2,"x":3}`);
  });

  it("encodes empty tables by JSON Schema keyword, or by explicit marker", async () => {
    expect(await evalLua(`return json.encode({ required = {}, properties = {}, enum = {}, other = {} })`)).toBe(
      `{"enum":[],"other":{},"properties":{},"required":[]}`,
    );
    expect(await evalLua(`return json.encode({ a = json.array(), o = json.object(), n = json.null })`)).toBe(
      `{"a":[],"n":null,"o":{}}`,
    );
  });

  it("writes floats so they read back as floats, and integers as integers", async () => {
    expect(await evalLua(`return json.encode({ 1, 1.0, 0.1, 1/3, -0.0, 1e300, math.maxinteger, 2^63 })`)).toBe(
      `[1,1.0,0.1,0.3333333333333333,-0.0,1e+300,9223372036854775807,9.223372036854776e+18]`,
    );
    expect(await evalLua(`return json.encode({ 0/0, math.huge })`)).toBe(`[null,null]`);
  });

  it("escapes control characters and replaces invalid UTF-8", async () => {
    expect(await evalLua(`return json.encode("a\\0b\\1\\n\\127")`)).toBe(`"a\\u0000b\\u0001\\n\\u007f"`);
    expect(await evalLua(`return json.encode("ok\\255\\254end")`)).toBe(`"ok\uFFFD\uFFFDend"`);
  });

  it("names where a value cannot be encoded", async () => {
    expect(await evalLua(`return json.encode({ a = { b = { print } } })`)).toMatch(
      /^error: .*cannot encode a function as JSON \(at value\.a\.b\[1\]\)/,
    );
    expect(await evalLua(`local t = {} t.self = t return json.encode(t)`)).toMatch(/contains itself/);
  });

  it("round-trips decode(encode(x)) for mixed values", async () => {
    const raw = `{"a":[1,2.5,"x",null,true,{"k":[]}],"b":{},"c":-9223372036854775808,"d":"\\u0000"}`;
    expect(await roundtrip(raw)).toBe(raw);
  });
});
