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

  it("writes the same bytes whether the host encodes the value or json.lua does", async () => {
    // The host (src/extensions/lua/worker/json-encode.ts) encodes plain data; a table with a metatable of its own
    // makes it leave the whole value to json.lua: { v, FORCED } is then json.lua's "[" .. v .. ",{}]".
    const result = await evalLua(String.raw`
      math.randomseed(30)
      local FORCED = setmetatable({}, {})
      local strings = { "", "a", "héllo", "😀", "\239\187\191bom", "tab\tq\"b\\", "a\0b", "\1\31\127", "/", "\u{E000}",
        "\u{FFFF}", "\u{10000}", "z", "required", "enum", "type", "properties", "items", "anyOf", "prefixItems" }
      local floats = { 0.1, 0.5, 1/3, 2^-21, 1e15 + 5.0, 1e300, 5e-324, -2.5, 1.0, 100.0, 2^53 + 0.0, 123456.789, 4.35,
        0.3, 1e-5, 1e-4, 1e14, 1e17, 2^63, -0.0, 0.0, 2^-24, 2^-30, 2^-1022, 2^-1074, 2^70, 0.1 + 0.2, 1e21, 1e-7 }
      local function pick(list) return list[math.random(#list)] end
      local gen
      local function array(depth)
        local t = {}
        for i = 1, math.random(0, 6) do if math.random() < 0.8 then t[i] = gen(depth + 1) end end
        return math.random() < 0.2 and json.array(t) or t
      end
      local function object(depth)
        local t = {}
        for _ = 1, math.random(0, 6) do t[pick(strings)] = gen(depth + 1) end
        if math.random() < 0.3 then t[pick(strings)] = {} end
        return math.random() < 0.2 and json.object(t) or t
      end
      function gen(depth)
        local r = math.random(1, depth > 3 and 6 or 11)
        if r == 1 then return pick(strings)
        elseif r == 2 then return math.random(-1000, 1000)
        elseif r == 3 then local f = pick(floats) return math.random() < 0.5 and f or f * math.random()
        elseif r == 4 then return math.random() < 0.5
        elseif r == 5 then return json.null
        elseif r == 6 then return math.random(math.mininteger, math.maxinteger)
        elseif r == 7 then return array(depth)
        elseif r == 8 then return object(depth)
        elseif r == 9 then local t = { gen(depth + 1), gen(depth + 1) } t[pick(strings)] = gen(depth + 1) t[-math.random(0, 3)] = 1 return t
        elseif r == 10 then local t = {} t[math.random(1, 30)] = gen(depth + 1) t[math.random(1, 30)] = gen(depth + 1) return t
        else return { [math.random(1, 3)] = gen(depth + 1), [tostring(math.random(1, 3))] = gen(depth + 1) } -- may clash
        end
      end
      -- The Lua instructions one encode runs: the same for every value the host encodes, more for json.lua's.
      local steps
      local function encode(v)
        steps = 0
        debug.sethook(function() steps = steps + 1 end, "", 1)
        local ok, text = pcall(json.encode, v)
        debug.sethook()
        return ok, text
      end
      encode("plain")
      local hosted, by_host = 0, steps
      for i = 1, 3000 do
        local v = gen(0)
        local ok, host = encode(v)
        if steps == by_host then hosted = hosted + 1 end
        local lua_ok, lua = pcall(json.encode, { v, FORCED })
        if ok ~= lua_ok then return i .. ": host " .. tostring(host) .. " / json.lua " .. tostring(lua) end
        if ok and "[" .. host .. ",{}]" ~= lua then return i .. ": host " .. host .. " / json.lua " .. lua end
      end
      for i = 1, 20000 do -- doubles of every kind: any 64 bits, and decimals of every magnitude
        local f = i % 2 == 0 and string.unpack("d", string.pack("i8", math.random(math.mininteger, math.maxinteger)))
          or (math.random() - 0.5) * 10.0 ^ math.random(-300, 300)
        local host, lua = json.encode(f), json.encode({ f, FORCED })
        if "[" .. host .. ",{}]" ~= lua then return "float " .. string.format("%a", f) .. ": host " .. host .. " / json.lua " .. lua end
      end
      return "same " .. hosted
    `);
    expect(result).toMatch(/^same \d+$/);
    expect(Number(result.split(" ")[1])).toBeGreaterThan(2000); // 2 565 of the 3 000 values took the host's path
  });

  it("round-trips decode(encode(x)) for mixed values", async () => {
    const raw = `{"a":[1,2.5,"x",null,true,{"k":[]}],"b":{},"c":-9223372036854775808,"d":"\\u0000"}`;
    expect(await roundtrip(raw)).toBe(raw);
  });
});
