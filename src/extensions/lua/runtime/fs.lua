-- `awl.fs`: file metadata, directory listings and (later) walks, for every extension author. The host
-- (the worker's JavaScript) does the work, so a listing costs one call, not one per entry.
local host, json = ...

local type, error, format, next, tostring = type, error, string.format, next, tostring
local setmetatable, getmetatable = setmetatable, getmetatable

local fs = {}

local function check_path(path, fname)
  if type(path) ~= "string" then
    error(format("bad argument #1 to 'awl.fs.%s' (string expected, got %s)", fname, type(path)), 3)
  end
  if path == "" then error(format("bad argument #1 to 'awl.fs.%s' (the path is empty)", fname), 3) end
end

--- `{ type, size, mtime, mode, link }` for `path` (symlinks followed), or nil, message, errno.
function fs.stat(path)
  check_path(path, "stat")
  return host.fs_stat(path)
end

--- The absolute path with `..`, `.` and symlinks resolved (the file itself need not exist yet), or nil,
--- message, errno: where a read or a write of `path` really goes.
function fs.real_path(path)
  check_path(path, "real_path")
  return host.fs_real_path(path)
end

--- The entries of `dir` sorted by name, each `{ name, type, size, mtime, mode, link }`, and how many there are
--- in all; or nil, message, errno. `opts.limit`: at most this many entries.
function fs.list(dir, opts)
  check_path(dir, "list")
  local limit = 0
  if opts ~= nil then
    if type(opts) ~= "table" then error("bad argument #2 to 'awl.fs.list' (table expected, got " .. type(opts) .. ")", 2) end
    if opts.limit ~= nil then
      if math.type(opts.limit) ~= "integer" or opts.limit < 1 then
        error("bad argument #2 to 'awl.fs.list' (limit must be a positive integer)", 2)
      end
      limit = opts.limit
    end
  end
  return host.fs_list(dir, limit)
end

local function check_options(opts, fname, arg, known)
  if opts == nil then return {} end
  if type(opts) ~= "table" then error(format("bad argument #%d to 'awl.fs.%s' (table expected, got %s)", arg, fname, type(opts)), 3) end
  for key, value in next, opts do
    local want = known[key]
    if not want then
      local names = {}
      for k in next, known do names[#names + 1] = k end
      table.sort(names)
      error(format("bad argument #%d to 'awl.fs.%s' (unknown option `%s`; the options are %s)", arg, fname, tostring(key), table.concat(names, ", ")), 3)
    end
    local ok = type(value) == want or (want == "integer" and math.type(value) == "integer")
      or (want == "globs" and (type(value) == "string" or type(value) == "table"))
    if not ok then error(format("bad argument #%d to 'awl.fs.%s' (%s must be %s, got %s)", arg, fname, key,
      want == "globs" and "a string or a list of strings" or "a " .. want, type(value)), 3) end
    if want == "integer" and value < 0 then error(format("bad argument #%d to 'awl.fs.%s' (%s must not be negative)", arg, fname, key), 3) end
  end
  return opts
end

--- The text of a file, its bytes unchanged, and `{ size, total_lines, first_line, last_line, binary, more }`;
--- `opts.offset` (1-based) and `opts.limit` read only those lines, `opts.max_line` cuts each line's text to that
--- many bytes. nil, message, errno when it cannot be read.
function fs.read_text(path, opts)
  check_path(path, "read_text")
  opts = check_options(opts, "read_text", 2, { offset = "integer", limit = "integer", max_line = "integer" })
  if opts.offset == 0 then error("bad argument #2 to 'awl.fs.read_text' (offset counts from 1)", 2) end
  if opts.max_line == 0 then error("bad argument #2 to 'awl.fs.read_text' (max_line must be at least 1)", 2) end
  return host.fs_read_text(path, opts.offset, opts.limit, opts.max_line)
end

--- Writes `text` to `path` atomically (old content or new, never a mix), creating parent folders and keeping
--- an existing file's permissions. true, created (a new file) or nil, message, errno.
function fs.write_text(path, text)
  check_path(path, "write_text")
  if type(text) ~= "string" then error("bad argument #2 to 'awl.fs.write_text' (string expected, got " .. type(text) .. ")", 2) end
  return host.fs_write_text(path, text)
end

local SPILL = { __name = "awl.spill" }
SPILL.__index = SPILL

--- A new file for an output saved whole (`ctx.spill_dir/...`): `f:write(bytes)`, `f:close()`, `f.path`. Every API
--- key awl knows of is replaced by [REDACTED] on its way to the file, as in awl's own spill files; only its owner
--- may read it. Closed when the call ends, if not before. nil, message, errno when it cannot be made (it exists).
function fs.open_spill(path)
  check_path(path, "open_spill")
  local handle, err, code = host.fs_open_spill(path)
  if not handle then return nil, path .. ": " .. err, code end
  return setmetatable({ handle = handle, path = path }, SPILL)
end

--- Appends `data` to the file. true, or nil, message, errno.
function SPILL:write(data)
  if getmetatable(self) ~= SPILL then error("bad self to 'write' (use f:write(data))", 2) end
  if type(data) ~= "string" then error("bad argument #1 to 'write' (string expected, got " .. type(data) .. ")", 2) end
  local ok, err, code = host.fs_spill_write(self.handle, data)
  if not ok then return nil, self.path .. ": " .. err, code end
  return true
end

--- Writes what is held back and closes the file. true, or nil, message, errno.
function SPILL:close()
  if getmetatable(self) ~= SPILL then error("bad self to 'close' (use f:close())", 2) end
  if self.closed then return true end
  self.closed = true
  local ok, err, code = host.fs_spill_close(self.handle)
  if not ok then return nil, self.path .. ": " .. err, code end
  return true
end

local WALK = { glob = "globs", gitignore = "boolean", hidden = "boolean", type = "string", sort = "string", limit = "integer", max_depth = "integer" }
local TYPES = { file = true, directory = true, any = true }

local function globs(value)
  if value == nil then return nil end
  if type(value) == "string" then return json.array({ value }) end
  local list = json.array()
  for i = 1, #value do
    if type(value[i]) ~= "string" then error("bad argument to 'awl.fs' (glob[" .. i .. "] is not a string)", 4) end
    list[i] = value[i]
  end
  return list
end

--- Files (or folders) below `dir`, filtered by globs and `.gitignore`: `{ path, type, size, mtime }` records
--- sorted by path (or newest first), at most `opts.limit`; then how many in all, and whether it stopped early.
function fs.walk(dir, opts)
  check_path(dir, "walk")
  opts = check_options(opts, "walk", 2, WALK)
  if opts.type ~= nil and not TYPES[opts.type] then error("bad argument #2 to 'awl.fs.walk' (type must be \"file\", \"directory\" or \"any\")", 2) end
  if opts.sort ~= nil and opts.sort ~= "path" and opts.sort ~= "mtime" then error("bad argument #2 to 'awl.fs.walk' (sort must be \"path\" or \"mtime\")", 2) end
  local spec = {}
  for k, v in next, opts do spec[k] = v end
  spec.glob = globs(opts.glob)
  return host.fs_walk(dir, json.encode(spec))
end

local GREP = { glob = "globs", gitignore = "boolean", hidden = "boolean", ignore_case = "boolean", context = "integer",
  limit = "integer", max_line = "integer", max_depth = "integer" }

--- Lines matching `pattern` (a JavaScript regular expression) in the files below `dir` (or the file `dir`):
--- `{ path, line, text, match }` records (context lines have match = false), at most `opts.limit` matching lines;
--- then the number of matching lines in all, of files with a match, whether it stopped early, and the files it
--- did not search as `{ path, reason }` records (over 64 MB, or unreadable).
--- nil, message when the pattern does not compile or `dir` cannot be read.
function fs.grep(dir, pattern, opts)
  check_path(dir, "grep")
  if type(pattern) ~= "string" then error("bad argument #2 to 'awl.fs.grep' (string expected, got " .. type(pattern) .. ")", 2) end
  opts = check_options(opts, "grep", 3, GREP)
  local spec = {}
  for k, v in next, opts do spec[k] = v end
  spec.glob = globs(opts.glob)
  return host.fs_grep(dir, pattern, json.encode(spec))
end

return fs
