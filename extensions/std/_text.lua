-- Text helpers shared by the bundled std tools (`require "_text"`): a module, not an extension (its name starts
-- with `_`; docs/extension-api.md "Names"). Written against the public API, like the tools themselves.
local M = {}

--- A byte count as people read it: "512 B", "12.0 KB", "3.4 MB", "2.0 GB".
function M.size(n)
  if n < 1024 then return n .. " B" end
  if n < 1024 * 1024 then return string.format("%.1f KB", n / 1024) end
  if n < 1024 * 1024 * 1024 then return string.format("%.1f MB", n / 1024 / 1024) end
  return string.format("%.1f GB", n / 1024 / 1024 / 1024)
end

--- How many "\n" the text holds.
function M.newlines(s)
  local _, n = s:gsub("\n", "")
  return n
end

--- How many lines the text has (a last line without "\n" counts; "" has none).
function M.line_count(text)
  if text == "" then return 0 end
  local n = M.newlines(text)
  return text:sub(-1) == "\n" and n or n + 1
end

--- `line` cut to at most `max` bytes, never inside a UTF-8 sequence, with `mark` after a cut.
function M.cut(line, max, mark)
  if #line <= max then return line end
  local at = max
  while at > 0 and (line:byte(at + 1) or 0) >= 0x80 and (line:byte(at + 1) or 0) < 0xC0 do at = at - 1 end
  return line:sub(1, at) .. mark
end

--- A name as the model can read it: bytes that are not UTF-8 are written as \xNN.
function M.printable(name)
  if utf8.len(name) then return name end
  return (name:gsub("[\128-\255]", function(c) return string.format("\\x%02X", c:byte()) end))
end

--- `s` with every byte that is not part of valid UTF-8 replaced by U+FFFD (what a UTF-8 decoder shows).
function M.utf8_clean(s)
  local out, at = {}, 1
  while true do
    local ok, bad = utf8.len(s, at)
    if ok then break end
    out[#out + 1] = s:sub(at, bad - 1) .. "\239\191\189"
    at = bad + 1
  end
  if at == 1 then return s end
  out[#out + 1] = s:sub(at)
  return table.concat(out)
end

--- How much of a result a listing may fill: at most `max` bytes, with room for its notice within what the model
--- reads (`ctx.result_limit`).
function M.budget(ctx, max)
  return math.min(max, ctx.result_limit - 256)
end

return M
