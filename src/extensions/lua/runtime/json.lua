-- awl.json: JSON <-> Lua, faithful both ways.
--
-- Decoding keeps what Lua tables would lose: `null` is the `json.null` sentinel (so arrays keep
-- their length), arrays and objects carry the metatables `json.ARRAY` / `json.OBJECT` (dkjson's
-- `__jsontype` convention, so `{}` and `[]` survive a round trip), integers stay integers
-- (`1` vs `1.0`), 64-bit integers are exact, strings may hold NUL bytes.
--
-- Encoding is deterministic: object keys are sorted (bytewise), so the same tables give the same
-- bytes in every Lua state (prompt caches hit). A plain table is an array when its keys are
-- 1..n (holes become null); an empty plain table is `{}`, except under the JSON Schema keys that
-- hold arrays (`required`, `enum`, `type`, `allOf`, `anyOf`, `oneOf`, `prefixItems`, `examples`),
-- where it is `[]`. `json.array(t)` / `json.object(t)` say it explicitly.

local byte, sub, find, format, gsub, char = string.byte, string.sub, string.find, string.format, string.gsub, string.char
local concat, sort = table.concat, table.sort
local tointeger, mtype, huge = math.tointeger, math.type, math.huge
local utf8char, utf8len = utf8.char, utf8.len
local getmetatable, setmetatable, rawget, type, tostring, tonumber, next, error, pairs =
  getmetatable, setmetatable, rawget, type, tostring, tonumber, next, error, pairs

local host = ... -- the worker's host functions (boot.lua)

local json = {}

json.ARRAY = { __jsontype = "array" }
json.OBJECT = { __jsontype = "object" }
json.null = setmetatable({}, {
  __jsontype = "null",
  __tostring = function() return "null" end,
  __newindex = function() error("awl.json.null is read-only", 2) end,
  __metatable = "awl.json.null",
})
local null, ARRAY, OBJECT = json.null, json.ARRAY, json.OBJECT

--- Marks `t` (or a new table) as a JSON array.
function json.array(t) return setmetatable(t or {}, ARRAY) end
--- Marks `t` (or a new table) as a JSON object.
function json.object(t) return setmetatable(t or {}, OBJECT) end

---------------------------------------------------------------------------------------------------
-- Decoding

local MAX_DEPTH = 500

local function decode_error(s, pos, what)
  local line, col = 1, 1
  local last = 1
  while true do
    local nl = find(s, "\n", last, true)
    if not nl or nl >= pos then break end
    line = line + 1
    last = nl + 1
  end
  col = pos - last + 1
  error(format("invalid JSON at line %d, column %d: %s", line, col, what), 0)
end

local function skip(s, pos)
  return find(s, "[^ \t\r\n]", pos) or #s + 1
end

local SIMPLE = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }

-- The exact (slower) unescaping: \uXXXX with surrogate pairs, and errors for bad escapes.
-- `base` is where `raw` starts in `s`, for error positions.
local function unescape(raw, s, base)
  local parts, n, pos = {}, 0, 1
  while true do
    local at = find(raw, "\\", pos, true)
    if not at then break end
    n = n + 1; parts[n] = sub(raw, pos, at - 1)
    local e = sub(raw, at + 1, at + 1)
    local simple = SIMPLE[e]
    if simple then
      n = n + 1; parts[n] = simple
      pos = at + 2
    elseif e == "u" then
      local hex = sub(raw, at + 2, at + 5)
      local cp = #hex == 4 and not find(hex, "[^%x]") and tonumber(hex, 16)
      if not cp then decode_error(s, base + at - 1, "bad \\u escape") end
      pos = at + 6
      if cp >= 0xD800 and cp <= 0xDBFF then
        local lo = sub(raw, pos, pos + 1) == "\\u" and tonumber(sub(raw, pos + 2, pos + 5), 16)
        if lo and lo >= 0xDC00 and lo <= 0xDFFF then
          cp = 0x10000 + (cp - 0xD800) * 0x400 + (lo - 0xDC00)
          pos = pos + 6
        else
          cp = 0xFFFD -- a lone surrogate has no UTF-8 form
        end
      elseif cp >= 0xDC00 and cp <= 0xDFFF then
        cp = 0xFFFD
      end
      n = n + 1; parts[n] = utf8char(cp)
    else
      decode_error(s, base + at - 1, "bad escape")
    end
  end
  n = n + 1; parts[n] = sub(raw, pos)
  return concat(parts)
end

local function parse_string(s, pos)
  -- pos is just after the opening quote; the closing one is the first quote after an even run of backslashes
  local q = find(s, '"', pos, true)
  while q do
    local before = q - 1
    while byte(s, before) == 92 do before = before - 1 end
    if (q - 1 - before) % 2 == 0 then break end
    q = find(s, '"', q + 1, true)
  end
  if not q then decode_error(s, pos - 1, "unterminated string") end
  local raw = sub(s, pos, q - 1)
  local ctl = find(raw, "[%z\1-\31]")
  if ctl then decode_error(s, pos + ctl - 1, "control character in string") end
  if not find(raw, "\\", 1, true) then return raw, q + 1 end
  -- Fast path (one gsub, no function calls) when every escape is a one-letter one; a false alarm
  -- (an escaped backslash before "u" or another letter) only costs the exact path.
  if find(raw, "\\u", 1, true) or find(raw, '\\[^"\\/bfnrt]') then return unescape(raw, s, pos), q + 1 end
  return (gsub(raw, "\\(.)", SIMPLE)), q + 1
end

local function parse_number(s, pos)
  local _, e = find(s, "^-?%d+", pos)
  if not e then decode_error(s, pos, "unexpected character '" .. sub(s, pos, pos) .. "'") end
  if find(s, "^-?0%d", pos) then decode_error(s, pos, "leading zero in number") end
  local is_float = false
  local _, fe = find(s, "^%.%d+", e + 1)
  if fe then e = fe; is_float = true end
  local _, xe = find(s, "^[eE][-+]?%d+", e + 1)
  if xe then e = xe; is_float = true end
  local text = sub(s, pos, e)
  local v = tonumber(text)
  if is_float then
    v = v * 1.0 -- keep 1.0 a float (and -0.0 negative: -0.0 + 0.0 would be 0.0)
  end
  return v, e + 1
end

local parse_value

local function parse_array(s, pos, depth)
  local t, n = setmetatable({}, ARRAY), 0
  pos = skip(s, pos)
  if byte(s, pos) == 93 then return t, pos + 1 end
  while true do
    local v
    v, pos = parse_value(s, pos, depth)
    n = n + 1; t[n] = v
    pos = skip(s, pos)
    local c = byte(s, pos)
    if c == 93 then return t, pos + 1 end
    if c ~= 44 then decode_error(s, pos, "expected ',' or ']'") end
    pos = pos + 1
  end
end

local function parse_object(s, pos, depth)
  local t = setmetatable({}, OBJECT)
  pos = skip(s, pos)
  if byte(s, pos) == 125 then return t, pos + 1 end
  while true do
    if byte(s, pos) ~= 34 then decode_error(s, pos, "expected a string key") end
    local k
    k, pos = parse_string(s, pos + 1)
    pos = skip(s, pos)
    if byte(s, pos) ~= 58 then decode_error(s, pos, "expected ':'") end
    local v
    v, pos = parse_value(s, pos + 1, depth)
    t[k] = v
    pos = skip(s, pos)
    local c = byte(s, pos)
    if c == 125 then return t, pos + 1 end
    if c ~= 44 then decode_error(s, pos, "expected ',' or '}'") end
    pos = skip(s, pos + 1)
  end
end

function parse_value(s, pos, depth)
  pos = skip(s, pos)
  local c = byte(s, pos)
  if c == 34 then return parse_string(s, pos + 1) end
  if c == 123 or c == 91 then
    if depth >= MAX_DEPTH then decode_error(s, pos, "nested deeper than " .. MAX_DEPTH .. " levels") end
    if c == 123 then return parse_object(s, pos + 1, depth + 1) end
    return parse_array(s, pos + 1, depth + 1)
  end
  if c == 116 and sub(s, pos, pos + 3) == "true" then return true, pos + 4 end
  if c == 102 and sub(s, pos, pos + 4) == "false" then return false, pos + 5 end
  if c == 110 and sub(s, pos, pos + 3) == "null" then return null, pos + 4 end
  if c == nil then decode_error(s, pos, "unexpected end of input") end
  return parse_number(s, pos)
end

--- Decodes JSON text into Lua values (see the header for the mapping). Raises on invalid JSON.
function json.decode(s)
  if type(s) ~= "string" then error("awl.json.decode expects a string, got " .. type(s), 2) end
  local v, pos = parse_value(s, 1, 0)
  pos = skip(s, pos)
  if pos <= #s then decode_error(s, pos, "trailing characters after the JSON value") end
  return v
end

---------------------------------------------------------------------------------------------------
-- Encoding

local ARRAY_KEYWORDS = {
  required = true, enum = true, type = true, allOf = true, anyOf = true, oneOf = true,
  prefixItems = true, examples = true,
}

local ESCAPE = { ['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f", ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }
for b = 0, 31 do
  local c = char(b)
  ESCAPE[c] = ESCAPE[c] or format("\\u%04x", b)
end
ESCAPE["\127"] = "\\u007f"

--- Replaces every byte sequence that is not UTF-8 with U+FFFD. Returns the string and whether it changed.
local function to_utf8(s)
  if utf8len(s) then return s, false end
  local out, n, pos, len = {}, 0, 1, #s
  while pos <= len do
    local ok, bad = utf8len(s, pos)
    if ok then n = n + 1; out[n] = sub(s, pos); break end
    n = n + 1; out[n] = sub(s, pos, bad - 1)
    n = n + 1; out[n] = "\239\191\189"
    pos = bad + 1
    -- skip continuation bytes of the broken sequence
    while pos <= len do
      local b = byte(s, pos)
      if b < 0x80 or b >= 0xC0 then break end
      pos = pos + 1
    end
  end
  return concat(out), true
end
json.to_utf8 = to_utf8

local function encode_string(s, state)
  local fixed, changed = to_utf8(s)
  if changed then state.replaced = true end
  if find(fixed, '[%z\1-\31"\\\127]') then
    fixed = gsub(fixed, '[%z\1-\31"\\\127]', ESCAPE)
  end
  return '"' .. fixed .. '"'
end

local FLOAT_FORMATS = { "%.14g", "%.15g", "%.16g", "%.17g" }

local function encode_number(v)
  if mtype(v) == "integer" then return format("%d", v) end
  if v ~= v or v == huge or v == -huge then return "null" end
  local s
  for i = 1, #FLOAT_FORMATS do
    s = format(FLOAT_FORMATS[i], v)
    if tonumber(s) == v then break end
  end
  if not find(s, "[%.eEn]") then s = s .. ".0" end
  return s
end

local function path_of(state)
  local parts = { state.root }
  for i = 1, state.depth do
    local k = state.path[i]
    if type(k) == "string" and find(k, "^[%a_][%w_]*$") then
      parts[#parts + 1] = "." .. k
    else
      parts[#parts + 1] = "[" .. (type(k) == "string" and format("%q", k) or tostring(k)) .. "]"
    end
  end
  return concat(parts)
end

local function fail(state, what)
  error(format("cannot encode %s as JSON (at %s)", what, path_of(state)), 0)
end

local encode_value

local function key_string(k, state)
  local tk = type(k)
  if tk == "string" then return k end
  if tk == "number" then return mtype(k) == "integer" and format("%d", k) or encode_number(k) end
  fail(state, "a table key of type " .. tk)
end

local function encode_table(t, buf, state, key)
  if state.seen[t] then fail(state, "a table that contains itself") end
  local mt = getmetatable(t)
  local kind = type(mt) == "table" and rawget(mt, "__jsontype") or nil
  if kind == "null" or t == null then buf[#buf + 1] = "null"; return end

  -- Decide array or object by content unless marked.
  local count, max_index, only_index = 0, 0, true
  for k in next, t do
    count = count + 1
    if only_index and mtype(k) == "integer" and k > 0 then
      if k > max_index then max_index = k end
    else
      only_index = false
    end
  end
  local as_array
  if kind == "array" then
    if not only_index then fail(state, "an array (marked with awl.json.array) with non-index keys") end
    as_array = true
  elseif kind == "object" then
    as_array = false
  elseif count == 0 then
    as_array = key ~= nil and ARRAY_KEYWORDS[key] == true
  else
    as_array = only_index and max_index <= count * 2 + 8
  end

  state.seen[t] = true
  local depth = state.depth + 1
  state.depth = depth
  if as_array then
    buf[#buf + 1] = "["
    for i = 1, max_index do
      if i > 1 then buf[#buf + 1] = "," end
      state.path[depth] = i
      local v = t[i]
      if v == nil then buf[#buf + 1] = "null" else encode_value(v, buf, state, nil) end
    end
    buf[#buf + 1] = "]"
  else
    local keys, map = {}, {}
    for k in next, t do
      local ks = key_string(k, state)
      if map[ks] ~= nil then fail(state, "a table with two keys that are both " .. format("%q", ks)) end
      keys[#keys + 1] = ks
      map[ks] = k
    end
    sort(keys)
    buf[#buf + 1] = "{"
    for i = 1, #keys do
      local ks = keys[i]
      if i > 1 then buf[#buf + 1] = "," end
      buf[#buf + 1] = encode_string(ks, state)
      buf[#buf + 1] = ":"
      state.path[depth] = ks
      local v = t[map[ks]]
      encode_value(v, buf, state, type(map[ks]) == "string" and ks or nil)
    end
    buf[#buf + 1] = "}"
  end
  state.path[depth] = nil
  state.depth = depth - 1
  state.seen[t] = nil
end

function encode_value(v, buf, state, key)
  local tv = type(v)
  if tv == "string" then
    buf[#buf + 1] = encode_string(v, state)
  elseif tv == "number" then
    buf[#buf + 1] = encode_number(v)
  elseif tv == "boolean" then
    buf[#buf + 1] = v and "true" or "false"
  elseif tv == "table" then
    encode_table(v, buf, state, key)
  elseif v == nil then
    buf[#buf + 1] = "null"
  else
    fail(state, "a " .. tv)
  end
end

-- The host writes the same text for plain data without running Lua (src/extensions/lua/worker/json-encode.ts), nil
-- for anything else, encoded below. Registering a tool encodes its schema and a load its whole list: here they took
-- ~10x the load's other instructions, enough for V8 to recompile the Lua VM's loop in every cold start.
local host_encode = host.encode_json

--- Encodes a Lua value as deterministic JSON text. `root` names the value in error messages.
--- Returns the text and whether invalid UTF-8 was replaced. Raises on functions, cycles, etc.
function json.encode_ex(v, root)
  local text = host_encode(v, ARRAY, OBJECT, null)
  if text then return text, false end
  local buf = {}
  local state = { seen = {}, path = {}, depth = 0, root = root or "value", replaced = false }
  encode_value(v, buf, state, nil)
  return concat(buf), state.replaced
end

--- Encodes a Lua value as deterministic JSON text (see the header). Raises on values JSON cannot hold.
function json.encode(v)
  local ok, text = pcall(json.encode_ex, v)
  if not ok then error(text, 2) end
  return text
end

return json
