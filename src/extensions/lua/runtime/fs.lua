-- `awl.fs`: file metadata, directory listings and (later) walks, for every extension author. The host
-- (the worker's JavaScript) does the work, so a listing costs one call, not one per entry.
local host = ...

local type, error, format = type, error, string.format

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

return fs
