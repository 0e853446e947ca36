-- std.grep: the `grep` tool. A regex search of file contents that respects .gitignore, with glob and file-type
-- filters and context lines; ripgrep when it is on PATH, else awl.fs.grep, with the same output either way.
-- Bundled with awl, written against the public Lua API only (docs/std-tools.md).
local DEFAULT_LIMIT, MAX_LIMIT, MAX_LINE, MAX_BYTES = 100, 1000, 500, 40 * 1024
local text = require "_text"
local paths = require "_paths"

-- File types as globs, the same for ripgrep and the fallback.
local TYPES = {
  c = { "*.c", "*.h" }, cpp = { "*.cpp", "*.cc", "*.cxx", "*.hpp", "*.hh", "*.h" }, cs = { "*.cs" },
  css = { "*.css", "*.scss", "*.sass", "*.less" }, go = { "*.go" }, html = { "*.html", "*.htm" },
  java = { "*.java" }, js = { "*.js", "*.mjs", "*.cjs", "*.jsx" }, json = { "*.json", "*.jsonc" },
  kotlin = { "*.kt", "*.kts" }, lua = { "*.lua" }, md = { "*.md", "*.markdown" }, php = { "*.php" },
  py = { "*.py", "*.pyi" }, rb = { "*.rb" }, rust = { "*.rs" }, sh = { "*.sh", "*.bash", "*.zsh" },
  sql = { "*.sql" }, swift = { "*.swift" }, toml = { "*.toml" }, ts = { "*.ts", "*.tsx", "*.mts", "*.cts" },
  yaml = { "*.yaml", "*.yml" },
}

local function type_names()
  local names = {}
  for name in pairs(TYPES) do names[#names + 1] = name end
  table.sort(names)
  return table.concat(names, ", ")
end

local ripgrep -- the path of rg on PATH, or false; looked up once per Lua state
local function find_ripgrep()
  if ripgrep == nil then
    ripgrep = false
    for dir in (os.getenv("PATH") or ""):gmatch("[^:]+") do
      local info = awl.fs.stat(dir .. "/rg")
      if info and info.type == "file" then ripgrep = dir .. "/rg"; break end
    end
  end
  return ripgrep
end

local function text_of(field)
  if not field then return "" end
  return field.text or awl.base64.decode(field.bytes or "")
end

-- `n` and the noun, singular or plural: "1 file", "3 files".
local function count(n, noun)
  return n .. " " .. noun .. (n == 1 and "" or "s")
end

-- ripgrep's errors about single files ("./secret.txt: Permission denied (os error 13)", with "rg: " before it in
-- newer versions) as the fallback's skipped records { path, reason }; and the rest of what it said (a bad regex).
local function ripgrep_errors(stderr, prefix)
  local skipped, other = {}, {}
  for line in stderr:gmatch("[^\n]+") do
    local path, reason = line:gsub("^rg: ", ""):match("^(.-): ([^:]+) %(os error %d+%)$")
    if path then
      if prefix and path:sub(1, 2) == prefix then path = path:sub(3) end
      skipped[#skipped + 1] = { path = path, reason = reason }
    else
      other[#other + 1] = line
    end
  end
  return skipped, table.concat(other, "\n")
end

-- ripgrep's message about a regex, for the model: its advice to pass --pcre2 (a flag the model cannot give) left out.
local function regex_message(message)
  message = message:gsub("%s*Consider enabling PCRE2 with the %-%-pcre2 flag.*$", "")
  return "the regex does not compile: " .. message
end

-- Records { path, line, text, match } from ripgrep's JSON lines, at most `limit` matching lines; then the number
-- of matching lines, of files with a match, and the files ripgrep could not search ({ path, reason }). nil,
-- message when ripgrep fails (a bad regex); nil, nil when it cannot run at all. `pcre2`: with ripgrep's PCRE2
-- engine (look-around, backreferences).
local function search_ripgrep(rg, dir, pattern, opts, pcre2)
  local argv = { rg, "--json", "--no-config", "--no-require-git", "--no-ignore-dot", "--no-ignore-global", "--sort", "path" }
  if pcre2 then argv[#argv + 1] = "--pcre2" end
  if opts.ignore_case then argv[#argv + 1] = "-i" end
  if opts.context > 0 then argv[#argv + 1] = "-C"; argv[#argv + 1] = tostring(opts.context) end
  for _, g in ipairs(opts.glob) do argv[#argv + 1] = "--glob"; argv[#argv + 1] = g end
  argv[#argv + 1] = "-e"; argv[#argv + 1] = pattern
  argv[#argv + 1] = "--"; argv[#argv + 1] = dir
  local proc = awl.spawn(argv)
  local records, matches, files, pending, errors = {}, 0, 0, "", {}
  local prefix = dir == "." and "./" or nil
  local after_left, last = 0, nil -- context lines still owed to the last match past the limit's reach
  local function record(data, is_match)
    local path = text_of(data.path)
    if prefix and path:sub(1, 2) == prefix then path = path:sub(3) end
    -- Text as the fallback reads it (decoded as UTF-8), so both give the same output.
    local line = text.utf8_clean((text_of(data.lines):gsub("\r?\n$", "")))
    last = { path = path, line = data.line_number, text = line, match = is_match }
    records[#records + 1] = last
  end
  local function handle(line)
    local kind = line:match('^{"type":"(%a+)"') or line:match('"type":"(%a+)"}%s*$')
    if kind == "match" then
      matches = matches + 1
      if matches <= opts.limit then
        record(awl.json.decode(line).data, true)
        after_left = opts.context
      else
        after_left = 0
      end
    elseif kind == "context" then
      if matches < opts.limit then
        record(awl.json.decode(line).data, false)
      elseif after_left > 0 then
        local data = awl.json.decode(line).data
        if last and text_of(data.path):gsub("^%./", "") == last.path and data.line_number == last.line + 1 then
          record(data, false)
          after_left = after_left - 1
        else
          after_left = 0
        end
      end
    elseif kind == "summary" then
      files = awl.json.decode(line).data.stats.searches_with_match
    end
  end
  while true do
    local data, stream = proc:read()
    if not data then break end
    if stream == "stderr" then
      errors[#errors + 1] = data
    else
      pending = pending .. data
      local at = 1
      while true do
        local nl = pending:find("\n", at, true)
        if not nl then break end
        handle(pending:sub(at, nl - 1))
        at = nl + 1
      end
      pending = pending:sub(at)
    end
  end
  local code, why = proc:wait()
  if code == nil and tostring(why):find("^cannot run") then return nil, nil end -- not runnable: the fallback searches
  if code == nil then return nil, "ripgrep stopped: " .. tostring(why) end
  local skipped, message = ripgrep_errors(table.concat(errors), prefix)
  message = message:gsub("%s+$", "")
  if code == 2 and matches == 0 and message ~= "" then
    -- Look-around and backreferences need ripgrep's PCRE2 engine (the fallback's JavaScript regexes have them).
    if not pcre2 and message:find("--pcre2", 1, true) then
      local again, again_matches, again_files, again_skipped = search_ripgrep(rg, dir, pattern, opts, true)
      if again then return again, again_matches, again_files, again_skipped end
      if again_matches == nil or again_matches:find("PCRE2 is not available", 1, true) then
        return nil, regex_message(message) .. "\n(this ripgrep has no PCRE2: write the regex without look-around or backreferences)"
      end
      return nil, again_matches
    end
    return nil, message:find("^regex parse error") and regex_message(message) or ("ripgrep failed: " .. message)
  end
  return records, matches, files, skipped
end

-- The files not searched, as one line for the model (nil when all were searched); `why` says why they were not.
local MAX_SKIPPED_SHOWN = 10
local function skipped_note(skipped, why)
  if not skipped or #skipped == 0 then return nil end
  local parts = {}
  for i = 1, math.min(#skipped, MAX_SKIPPED_SHOWN) do
    parts[i] = text.printable(skipped[i].path) .. " (" .. skipped[i].reason .. ")"
  end
  if #skipped > MAX_SKIPPED_SHOWN then parts[#parts + 1] = string.format("and %d more", #skipped - MAX_SKIPPED_SHOWN) end
  return "[not searched" .. why .. ": " .. table.concat(parts, "; ") .. "]"
end

local function search_fallback(dir, pattern, opts)
  local records, matches, files, _, skipped = awl.fs.grep(dir, pattern, {
    glob = opts.glob, ignore_case = opts.ignore_case, context = opts.context, limit = opts.limit,
  })
  if not records then return nil, matches end
  local function where(path) return dir == "." and path or (path == "" and dir or dir .. "/" .. path) end
  local out = {}
  for i, r in ipairs(records) do
    out[i] = { path = where(r.path), line = r.line, text = r.text, match = r.match }
  end
  for _, s in ipairs(skipped) do s.path = where(s.path) end
  return out, matches, files, skipped
end

awl.register_tool {
  name = "grep",
  description = "Search file contents for a regex; respects .gitignore. Shows path:line:text (context lines path-line-text). "
    .. "At most " .. DEFAULT_LIMIT .. " matches (raise with limit), lines cut at " .. MAX_LINE .. " chars.",
  parameters = {
    type = "object",
    properties = {
      pattern = { type = "string", description = "Regular expression" },
      path = { type = "string", description = "Folder or file (default: the working directory)" },
      glob = { type = "string", description = "Only files matching, e.g. '*.ts' or 'src/**/*.py'" },
      type = { type = "string", description = "Only this file type, e.g. py, ts, rust, go" },
      ignore_case = { type = "boolean" },
      context = { type = "integer", minimum = 0, description = "Lines around each match" },
      limit = { type = "integer", minimum = 1, description = "Most matches" },
    },
    required = { "pattern" },
  },
  kinds = { "read" },
  run = function(args, ctx)
    local budget = text.budget(ctx, MAX_BYTES)
    local dir = paths.folder_arg(args.path)
    ctx:title(args.pattern .. (dir ~= "." and (" in " .. dir) or ""))
    local info, err = paths.stat(dir, "no such file or folder", "cannot search")
    if not info then return err end
    local glob = {}
    if args.glob then glob[1] = args.glob end
    if args.type then
      local globs = TYPES[args.type]
      if not globs then return awl.tool_error("unknown file type \"" .. args.type .. "\"; the types are " .. type_names() .. " (or use glob)") end
      if args.glob then return awl.tool_error("give glob or type, not both") end
      glob = globs
    end
    local opts = { glob = glob, ignore_case = args.ignore_case == true, context = math.min(args.context or 0, 10),
      limit = math.min(args.limit or DEFAULT_LIMIT, MAX_LIMIT) }
    local rg = find_ripgrep()
    local records, matches, files, skipped
    if rg then
      records, matches, files, skipped = search_ripgrep(rg, dir, args.pattern, opts)
      if not records and not matches then rg, ripgrep = false, false end -- an `rg` that cannot run: as if absent
    end
    if not rg then records, matches, files, skipped = search_fallback(dir, args.pattern, opts) end
    if not records then return awl.tool_error(matches) end
    local note = skipped_note(skipped, rg and "" or " (ripgrep is not installed)")
    if matches == 0 then
      ctx:show { summary = "no matches" }
      return { content = note and ("No matches in the files searched.\n" .. note) or "No matches.", summary = "no matches" }
    end
    local out, bytes, shown, last = {}, 0, 0, nil
    for _, r in ipairs(records) do
      if opts.context > 0 and last and (r.path ~= last.path or r.line > last.line + 1) then out[#out + 1] = "--" end
      local line = text.printable(r.path) .. (r.match and ":" or "-") .. r.line .. (r.match and ":" or "-") .. text.cut(r.text, MAX_LINE, " …")
      bytes = bytes + #line + 1
      if bytes > budget then break end
      out[#out + 1] = line
      if r.match then shown = shown + 1 end
      last = r
    end
    if shown < matches then
      out[#out + 1] = string.format("[%d of %d matching lines shown, in %s; narrow with path, glob or type, or raise limit]",
        shown, matches, count(files, "file"))
    end
    if note then out[#out + 1] = note end
    local summary = count(matches, "matching line") .. " in " .. count(files, "file")
    ctx:show { summary = summary }
    return { content = table.concat(out, "\n"), summary = summary }
  end,
  render = function(state) return state.summary end,
}
