-- std.edit: the `edit` tool. Replaces an exact string that must occur once (or every occurrence with
-- replace_all), keeping the file's line endings and BOM; the model gets a short confirmation, the UI a
-- unified diff. Bundled with awl, written against the public Lua API only (docs/std-tools.md).
local CONTEXT = 3
local BOM = "\239\187\191"
local REPLACEMENT_CHAR = "\239\191\189" -- U+FFFD, what the model sees for bytes that are not UTF-8
local MAX_BYTES = 64 * 1024 * 1024 -- awl.fs.read_text's whole-file limit
local MAX_DIFF_LINES = 2000 -- kept in the result's details (and the session), not counting what follows
local paths = require "_paths"
local text_util = require "_text"

local function plain_find_all(text, needle)
  local found, at = {}, 1
  while true do
    local s, e = text:find(needle, at, true)
    if not s then return found end
    found[#found + 1] = { s, e }
    at = e + 1
  end
end

-- Byte offsets where each line starts, for line numbers by binary search.
local function line_starts(text)
  local starts, at = { 1 }, 1
  while true do
    local nl = text:find("\n", at, true)
    if not nl then return starts end
    starts[#starts + 1] = nl + 1
    at = nl + 1
  end
end

local function line_at(starts, pos)
  local lo, hi = 1, #starts
  while lo < hi do
    local mid = (lo + hi + 1) // 2
    if starts[mid] <= pos then lo = mid else hi = mid - 1 end
  end
  return lo
end

local function split_lines(text)
  local lines = {}
  if text == "" then return lines end
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = line end
  if text:sub(-1) == "\n" then lines[#lines] = nil end
  return lines
end

local function words(s)
  local set, n = {}, 0
  for w in s:gmatch("[%w_]+") do if not set[w] then set[w] = true; n = n + 1 end end
  return set, n
end

-- The file line most like old_string's first non-blank line, for a "not found" error.
local function closest_line(lines, old)
  local first = old:match("[^\n]*%S[^\n]*") or old
  local want = first:match("^%s*(.-)%s*$")
  local want_words, count = words(want)
  local best, best_score = nil, 0
  for i, line in ipairs(lines) do
    local trimmed = line:match("^%s*(.-)%s*$")
    if trimmed == want and want ~= "" then return i, "it differs in whitespace or indentation" end
    if count > 0 then
      local have, shared = words(trimmed), 0
      for w in pairs(want_words) do if have[w] then shared = shared + 1 end end
      local score = shared / count
      if score > best_score then best, best_score = i, score end
    end
  end
  if best and best_score >= 0.5 then return best end
end

local function rstrip(s) return (s:gsub("%s+$", "")) end
local function strip(s) return (s:match("^%s*(.-)%s*$")) end
local function indent_of(s) return s:match("^[ \t]*") end

-- When old_string is not in the file as it is: its lines compared with trailing whitespace ignored, then with
-- indentation ignored too (what models get wrong most). Returns the first level at which it matches anywhere: the
-- first lines of each match, the normaliser's name, and the file's lines.
local LEVELS = {
  { norm = rstrip, name = "trailing whitespace" },
  { norm = strip, name = "indentation and trailing whitespace" },
}
local function loose_matches(text, old)
  local want_raw = split_lines(old)
  local blank = true
  for _, l in ipairs(want_raw) do if l:find("%S") then blank = false end end
  if blank then return nil end
  local lines = split_lines(text)
  for _, level in ipairs(LEVELS) do
    local want = {}
    for k, l in ipairs(want_raw) do want[k] = level.norm(l) end
    local hits = {}
    for i = 1, #lines - #want + 1 do
      local same = true
      for k = 1, #want do
        if level.norm(lines[i + k - 1]) ~= want[k] then same = false; break end
      end
      if same then hits[#hits + 1] = i end
    end
    if #hits > 0 then return hits, level.name, lines, want_raw end
  end
end

-- new_string moved by the indentation the file's lines have and old_string's lacked (or had too much), when that
-- difference is the same on every non-blank line; else new_string as it is. Also says what it did.
local function reindent(new, file_lines, first, old_lines)
  local delta, sign
  for k, ol in ipairs(old_lines) do
    if ol:find("%S") then
      local fi, oi = indent_of(file_lines[first + k - 1]), indent_of(ol)
      local d, sg
      if #fi >= #oi and fi:sub(#fi - #oi + 1) == oi then d, sg = fi:sub(1, #fi - #oi), 1
      elseif oi:sub(#oi - #fi + 1) == fi then d, sg = oi:sub(1, #oi - #fi), -1
      else return new, nil end
      if delta and (d ~= delta or (d ~= "" and sg ~= sign)) then return new, nil end
      delta, sign = d, sg
    end
  end
  if not delta or delta == "" then return new, nil end
  local out = {}
  for line in (new .. "\n"):gmatch("([^\n]*)\n") do
    if line:find("%S") then
      if sign > 0 then line = delta .. line
      elseif line:sub(1, #delta) == delta then line = line:sub(#delta + 1) end
    end
    out[#out + 1] = line
  end
  local width = #delta:gsub("\t", "    ")
  return table.concat(out, "\n"), string.format("new_string %s by %d column%s to fit", sign > 0 and "indented" or "dedented",
    width, width == 1 and "" or "s")
end

-- A unified diff of the replacements (each at old bytes f[1]..f[2], `old_len` bytes replaced by `new_len`): the
-- whole lines each one touches, with CONTEXT lines around them; nearby changes share a hunk.
local function unified_diff(path, text, starts, result, found, old_len, new_len)
  local line_end = function(n) return (starts[n + 1] or #text + 1) - 1 end
  -- The file's line n without its "\n" (or a "\r" before it, which would move a terminal's cursor).
  local function old_line(n) return (text:sub(starts[n], line_end(n)):gsub("\r?\n$", "")) end
  local old_count_all = text:sub(-1) == "\n" and #starts - 1 or #starts
  -- Changes as old line ranges, merged where occurrences share a line; `count` occurrences each.
  local changes = {}
  for _, f in ipairs(found) do
    local a1, a2 = line_at(starts, f[1]), line_at(starts, f[2])
    local last = changes[#changes]
    if last and a1 <= last.a2 then last.a2 = math.max(last.a2, a2); last.count = last.count + 1
    else changes[#changes + 1] = { a1 = a1, a2 = a2, count = 1 } end
  end
  -- Each change's new lines: its old region with the replacements applied.
  local shift, line_shift = 0, 0
  for _, c in ipairs(changes) do
    local from, to = starts[c.a1], line_end(c.a2)
    local region_shift = c.count * (new_len - old_len)
    local region = result:sub(from + shift, to + shift + region_shift)
    -- A region that no longer ends at a line end took in the next old line: include it on both sides.
    while region ~= "" and region:sub(-1) ~= "\n" and to < #text do
      c.a2 = c.a2 + 1
      to = line_end(c.a2)
      region = result:sub(from + shift, to + shift + region_shift)
    end
    c.new = split_lines(region)
    for k, line in ipairs(c.new) do c.new[k] = line:gsub("\r$", "") end
    c.b1 = c.a1 + line_shift
    shift = shift + region_shift
    line_shift = line_shift + #c.new - (c.a2 - c.a1 + 1)
    -- Lines the replacement left as they were are context, not a change (`one\ntwo` -> `one\n2`: only `two` changed).
    local same = 0
    while c.a1 + same <= c.a2 and same < #c.new and old_line(c.a1 + same) == c.new[same + 1] do same = same + 1 end
    if same > 0 then
      c.new = table.move(c.new, same + 1, #c.new, 1, {})
      c.a1, c.b1 = c.a1 + same, c.b1 + same
    end
    while c.a1 <= c.a2 and #c.new > 0 and old_line(c.a2) == c.new[#c.new] do c.new[#c.new] = nil; c.a2 = c.a2 - 1 end
  end
  local kept = {}
  for _, c in ipairs(changes) do if c.a1 <= c.a2 or #c.new > 0 then kept[#kept + 1] = c end end
  changes = kept
  local out = { "--- " .. path, "+++ " .. path }
  local i = 1
  while i <= #changes do
    local j = i
    while j < #changes and changes[j + 1].a1 - changes[j].a2 <= 2 * CONTEXT + 1 do j = j + 1 end
    local first_old = math.max(1, changes[i].a1 - CONTEXT)
    local last_old = math.min(old_count_all, changes[j].a2 + CONTEXT)
    local first_new = first_old + (changes[i].b1 - changes[i].a1)
    local body, old_count, new_count, at = {}, 0, 0, first_old
    local function same(n) body[#body + 1] = " " .. old_line(n); old_count = old_count + 1; new_count = new_count + 1 end
    for k = i, j do
      local c = changes[k]
      for n = at, c.a1 - 1 do same(n) end
      for n = c.a1, c.a2 do body[#body + 1] = "-" .. old_line(n); old_count = old_count + 1 end
      for _, line in ipairs(c.new) do body[#body + 1] = "+" .. line; new_count = new_count + 1 end
      at = c.a2 + 1
    end
    for n = at, last_old do same(n) end
    out[#out + 1] = string.format("@@ -%d,%d +%d,%d @@", first_old, old_count, new_count == 0 and first_new - 1 or first_new, new_count)
    for _, line in ipairs(body) do out[#out + 1] = line end
    i = j + 1
  end
  return table.concat(out, "\n")
end

local function line_list(lines)
  if #lines <= 8 then return table.concat(lines, ", ") end
  return table.concat(lines, ", ", 1, 8) .. ", …"
end

-- The edit itself, once the path is known to be a file of at most MAX_BYTES: the result, or a tool error.
local function edit_file(path, file, info, old, new, replace_all, ctx)
  local raw, meta = awl.fs.read_text(file)
  if not raw then return awl.tool_error("cannot edit " .. path .. ": " .. meta) end
  if meta.binary then return awl.tool_error(path .. " is a binary file; edit changes text files") end

  -- Match on the text the model saw: no BOM, LF line endings when the file uses CRLF throughout.
  local bom = raw:sub(1, 3) == BOM
  local text = bom and raw:sub(4) or raw
  -- CRLF throughout: a "\r\n", and no "\n" without its "\r" (found without copying the text).
  local crlf = text:find("\r\n", 1, true) and not text:find("[^\r]\n") and text:byte(1) ~= 10
  if crlf then
    text = text:gsub("\r\n", "\n")
    old, new = old:gsub("\r\n", "\n"), new:gsub("\r\n", "\n")
  end

  local found = plain_find_all(text, old)
  local loosely -- how old_string matched when it did not match exactly
  if #found == 0 then
    local hits, level, lines, old_lines = loose_matches(text, old)
    if hits and #hits == 1 then
      -- One place matches but for whitespace: edit it (whole lines), and say so.
      local starts, first = line_starts(text), hits[1]
      local last = first + #old_lines - 1
      local stop = (starts[last + 1] or #text + 2) - 1 -- the byte after the last line's text
      if old:sub(-1) ~= "\n" or not starts[last + 1] then stop = stop - 1 end
      local moved
      new, moved = reindent(new, lines, first, old_lines)
      found = { { starts[first], stop } }
      old = text:sub(starts[first], stop)
      loosely = "old_string matched only when ignoring " .. level .. (moved and ("; " .. moved) or "")
    elseif hits and #hits > 1 then
      local listed = {}
      for i, h in ipairs(hits) do listed[i] = h end
      return awl.tool_error(string.format("old_string was not found in %s; ignoring %s it occurs %d times (lines %s): copy the "
        .. "text exactly from the file, with surrounding lines to make it unique", path, level, #hits, line_list(listed)))
    else
      lines = lines or split_lines(text)
      local line, why = closest_line(lines, old)
      local hint = ""
      if line then
        hint = string.format("; the closest is line %d%s: %s", line, why and (" (" .. why .. ")") or "", lines[line]:sub(1, 200))
      end
      if old:find(REPLACEMENT_CHAR, 1, true) and not utf8.len(text) then
        hint = hint .. ". old_string holds U+FFFD (\u{FFFD}) where the file has bytes that are not UTF-8, which edit cannot "
          .. "match: edit around those bytes (old_string without them)"
        return awl.tool_error("old_string was not found in " .. path .. hint)
      end
      return awl.tool_error("old_string was not found in " .. path .. hint .. ". Read the file and copy the text exactly")
    end
  end
  local starts = line_starts(text)
  if #found > 1 and not replace_all then
    local at = {}
    for i, f in ipairs(found) do at[i] = line_at(starts, f[1]) end
    return awl.tool_error(string.format("old_string occurs %d times in %s (lines %s); add surrounding lines to make it unique, or set replace_all",
      #found, path, line_list(at)))
  end

  local parts, prev = {}, 1
  for _, f in ipairs(found) do
    parts[#parts + 1] = text:sub(prev, f[1] - 1)
    parts[#parts + 1] = new
    prev = f[2] + 1
  end
  parts[#parts + 1] = text:sub(prev)
  local result = table.concat(parts)
  local out = crlf and result:gsub("\n", "\r\n") or result
  if bom then out = BOM .. out end
  local ok, werr = awl.fs.write_text(file, out)
  if not ok then return awl.tool_error("cannot write " .. path .. ": " .. werr) end

  -- The file is written: from here on a memory error costs the diff only, never the answer.
  local first_line = line_at(starts, found[1][1])
  local made, diff = pcall(unified_diff, path, text, starts, result, found, #old, #new)
  text, result, out, parts, starts = nil, nil, nil, nil, nil
  local summary = "edited"
  if made then
    local added, removed, lines = 0, 0, 0
    for line in diff:gmatch("[^\n]+") do
      local c = line:sub(1, 1)
      if c == "+" and line:sub(1, 4) ~= "+++ " then added = added + 1 elseif c == "-" and line:sub(1, 4) ~= "--- " then removed = removed + 1 end
      lines = lines + 1
    end
    summary = string.format("+%d -%d", added, removed)
    -- A diff too long to keep (replace_all over a whole file) keeps its start, saying how much is left out.
    if lines > MAX_DIFF_LINES then
      local at, n = 0, 0
      while n < MAX_DIFF_LINES do at = diff:find("\n", at + 1, true); n = n + 1 end
      diff = diff:sub(1, at) .. string.format("… %d more lines of the diff", lines - MAX_DIFF_LINES)
    end
  elseif not tostring(diff):find("not enough memory", 1, true) then
    error(diff, 0)
  else
    diff = "(the diff is too big to show)"
  end
  ctx:show { path = path, diff = diff }
  local what = #found == 1 and ("1 replacement at line " .. first_line) or (#found .. " replacements")
  local landing = paths.landing(path, file, ctx, info.link)
  local notes = {}
  if landing then notes[#notes + 1] = landing end
  if loosely then notes[#notes + 1] = loosely end
  local note = #notes > 0 and (" (" .. table.concat(notes, "; ") .. ")") or ""
  return { content = string.format("Edited %s: %s%s", path, what, note), summary = summary, details = { diff = diff } }
end

awl.register_tool {
  name = "edit",
  description = "Replace old_string with new_string in a file. old_string must match exactly (whitespace too) "
    .. "and occur once, unless replace_all. Read the file first.",
  parameters = {
    type = "object",
    properties = {
      path = { type = "string", description = "File to edit" },
      old_string = { type = "string", description = "Exact text to replace" },
      new_string = { type = "string", description = "Text to put instead" },
      replace_all = { type = "boolean", description = "Replace every occurrence (default false)" },
    },
    required = { "path", "old_string", "new_string" },
  },
  kinds = { "write" },
  parallel = false,
  run = function(args, ctx)
    -- `path` as the model wrote it (in messages), `file` the bytes it names (paths.arg).
    local path, old, new = args.path, args.old_string, args.new_string
    ctx:title(path)
    local file, bad = paths.file_arg(path)
    if not file then return bad end
    if old == "" then
      return awl.tool_error("old_string is empty: give the exact text to replace (to create or overwrite a whole file, use write)")
    end
    if old == new then return awl.tool_error("old_string and new_string are the same: nothing would change") end
    local info, err = awl.fs.stat(file)
    if not info then
      if err:find("No such file", 1, true) then return awl.tool_error("no such file: " .. path .. " (to create it, use write)") end
      return awl.tool_error("cannot edit " .. path .. ": " .. err)
    end
    if info.type ~= "file" then return awl.tool_error(path .. " is a " .. info.type:gsub("_", " ") .. ", not a file") end
    if info.size > MAX_BYTES then
      return awl.tool_error(string.format("%s is %s, over the %s edit changes; change a file this big with bash (sed, a script)",
        path, text_util.size(info.size), text_util.size(MAX_BYTES)))
    end
    -- A file that fits the limit but not the extension's memory (many lines, many replacements) is an error too.
    local ok, result = pcall(edit_file, path, file, info, old, new, args.replace_all, ctx)
    if ok then return result end
    if tostring(result):find("not enough memory", 1, true) then
      return awl.tool_error(string.format("%s (%s) is too big for edit to change in memory; nothing was written. Change it "
        .. "with bash (sed, a script)", path, text_util.size(info.size)))
    end
    error(result, 0)
  end,
  -- The diff's hunks (the block's header names the file); cut to the block's height unless expanded, saying how
  -- much is left.
  render = function(state, view)
    local lines, skip = {}, state.diff:sub(1, 4) == "--- " and 2 or 0
    for line in state.diff:gmatch("[^\n]+") do
      if skip > 0 then skip = skip - 1 else lines[#lines + 1] = line end
    end
    if view.expand or #lines <= view.height then return lines end
    local shown = { table.unpack(lines, 1, view.height - 1) }
    shown[#shown + 1] = string.format("… %d more lines", #lines - #shown)
    return shown
  end,
}
