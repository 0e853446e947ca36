-- Whole file paths in Lua's messages. Lua names a file chunk in error positions and tracebacks by at most
-- LUA_IDSIZE (60) bytes: a longer path becomes "..." and its last 56 bytes ("...s/deep/folder/out.lua:14: ...").
-- awl remembers every file it loads (`remember`), and `whole` puts the whole path back wherever such a cut
-- name stands in a message: only a "..." that starts the text, a line or a word, or follows "<", is followed by
-- exactly 56 bytes and ":LINE:" or ":LINE>", and those 56 bytes end exactly one remembered path.

local sub, find, match, byte = string.sub, string.find, string.match, string.byte

local KEPT = 56 -- bytes of a cut name after its "..."
local LONGEST = 59 -- the longest name Lua shows whole

local by_tail = {} -- last KEPT bytes of a long path -> the path, or false when two paths end with them

--- Notes that the file `path` was loaded as chunk "@" .. path.
local function remember(path)
  if #path <= LONGEST then return end
  local tail = sub(path, -KEPT)
  local known = by_tail[tail]
  if known == nil then by_tail[tail] = path
  elseif known ~= path then by_tail[tail] = false end
end

-- Bytes a cut name may follow: none (the text's start), white space, or "<" (a traceback's "function <...:12>").
local function opens(text, at)
  if at == 1 then return true end
  local b = byte(text, at - 1)
  return b == 32 or b == 9 or b == 10 or b == 13 or b == 60
end

--- `text` with every cut name of a remembered file replaced by its whole path; other text is left as it is.
local function whole(text)
  if type(text) ~= "string" or next(by_tail) == nil then return text end
  local parts, from, at = {}, 1, 1
  while true do
    local s = find(text, "...", at, true)
    if not s then break end
    local tail = sub(text, s + 3, s + 2 + KEPT)
    local path = #tail == KEPT and opens(text, s) and match(text, "^:%d+[:>]", s + 3 + KEPT) and by_tail[tail]
    if path then
      parts[#parts + 1] = sub(text, from, s - 1)
      parts[#parts + 1] = path
      from = s + 3 + KEPT
      at = from
    else
      at = s + 1
    end
  end
  if from == 1 then return text end
  parts[#parts + 1] = sub(text, from)
  return table.concat(parts)
end

return { remember = remember, whole = whole }
