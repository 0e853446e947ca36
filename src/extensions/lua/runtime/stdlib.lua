-- The standard `io` and `os` functions on the real file system and processes, with Lua 5.4's
-- return values. WebAssembly Lua only sees an in-memory file system, so every function that
-- touches files or processes is rebuilt here on synchronous host functions (`host.*`, provided by
-- the worker). Output that would go to the terminal (print, io.write, os.execute's children)
-- goes to awl's log instead: a handler must never write into awl's own output.
local host, names = ...

local sub, find, format, concat = string.sub, string.find, string.format, table.concat
local type, tostring, tonumber, select, error, setmetatable, getmetatable =
  type, tostring, tonumber, select, error, setmetatable, getmetatable

local CHUNK = 65536

local FILE = {}
local FILE_MT = { __index = FILE, __name = "FILE*" }

local function new_file(kind, fields)
  fields = fields or {}
  fields.kind, fields.rbuf, fields.rpos, fields.closed = kind, fields.rbuf or "", 1, false
  return setmetatable(fields, FILE_MT)
end

local function is_file(x) return getmetatable(x) == FILE_MT end

local function check_file(f, fname)
  if not is_file(f) then
    error(format("bad argument #1 to '%s' (FILE* expected, got %s)", fname, type(f)), 3)
  end
  if f.closed then error("attempt to use a closed file", 3) end
  return f
end

local function ebadf() return nil, "Bad file descriptor", 9 end

--- Reads more bytes into the buffer. Returns true when some were added.
local function fill(f)
  if f.kind ~= "file" then return false end
  local chunk, err, code = host.fs_read(f.fd, CHUNK)
  if not chunk then f.err, f.errno = err, code; return false end
  if chunk == "" then return false end
  if f.rpos > #f.rbuf then f.rbuf = chunk else f.rbuf = sub(f.rbuf, f.rpos) .. chunk end
  f.rpos = 1
  return true
end

--- Gives back what the buffer read ahead, so the host's position is the Lua position again.
local function unread(f)
  local ahead = #f.rbuf - f.rpos + 1
  f.rbuf, f.rpos = "", 1
  if ahead > 0 and f.kind == "file" then host.fs_seek(f.fd, "cur", -ahead) end
end

local function read_line(f, keep)
  local from = f.rpos
  while true do
    local nl = find(f.rbuf, "\n", from, true)
    if nl then
      local line = sub(f.rbuf, f.rpos, keep and nl or nl - 1)
      f.rpos = nl + 1
      return line
    end
    local scanned = #f.rbuf - f.rpos + 1
    if not fill(f) then
      if f.rpos <= #f.rbuf then
        local line = sub(f.rbuf, f.rpos)
        f.rpos = #f.rbuf + 1
        return line
      end
      return nil
    end
    from = scanned + 1
  end
end

local function read_all(f)
  local parts = { sub(f.rbuf, f.rpos) }
  f.rbuf, f.rpos = "", 1
  while f.kind == "file" do
    local chunk, err, code = host.fs_read(f.fd, CHUNK)
    if not chunk then f.err, f.errno = err, code; break end
    if chunk == "" then break end
    parts[#parts + 1] = chunk
  end
  return concat(parts)
end

local function read_count(f, n)
  if n == 0 then
    if f.rpos <= #f.rbuf or fill(f) then return "" end
    return nil
  end
  while #f.rbuf - f.rpos + 1 < n and fill(f) do end
  if f.rpos > #f.rbuf then return nil end
  local s = sub(f.rbuf, f.rpos, f.rpos + n - 1)
  f.rpos = f.rpos + #s
  return s
end

-- Like C Lua's read_number: at most 200 characters of a numeral, then tonumber.
local function read_number(f)
  while true do
    local at = find(f.rbuf, "[^ \t\n\r\f\v]", f.rpos)
    if at then f.rpos = at; break end
    f.rbuf, f.rpos = "", 1
    if not fill(f) then return nil end
  end
  while #f.rbuf - f.rpos + 1 < 200 and fill(f) do end
  local buf, p = f.rbuf, f.rpos
  local _, e = find(buf, "^[+-]?", p); p = e + 1
  local hex = find(buf, "^0[xX]", p)
  if hex then p = p + 2 end
  local digits = hex and "%x*" or "%d*"
  _, e = find(buf, "^" .. digits, p); p = e + 1
  _, e = find(buf, "^%.", p)
  if e then p = e + 1; _, e = find(buf, "^" .. digits, p); p = e + 1 end
  _, e = find(buf, hex and "^[pP][+-]?%d*" or "^[eE][+-]?%d*", p)
  if e then p = e + 1 end
  local text = sub(buf, f.rpos, p - 1)
  f.rpos = p
  return tonumber(text)
end

local function read_one(f, fmt)
  if type(fmt) == "number" then return read_count(f, fmt) end
  if type(fmt) ~= "string" then error("bad argument to 'read' (invalid format)", 3) end
  local c = sub(fmt, 1, 1) == "*" and sub(fmt, 2, 2) or sub(fmt, 1, 1)
  if c == "l" then return read_line(f, false) end
  if c == "L" then return read_line(f, true) end
  if c == "a" then return read_all(f) end
  if c == "n" then return read_number(f) end
  error("bad argument to 'read' (invalid format)", 3)
end

local function read(f, ...)
  if f.kind == "sink" or f.kind == "popen_w" then return ebadf() end
  f.err = nil
  local n = select("#", ...)
  if n == 0 then
    local line = read_line(f, false)
    if f.err then return nil, f.err, f.errno end
    return line
  end
  local out = {}
  for i = 1, n do
    local v = read_one(f, (select(i, ...)))
    out[i] = v
    if v == nil then n = i; break end
  end
  if f.err then return nil, f.err, f.errno end
  return table.unpack(out, 1, n)
end

function FILE:read(...)
  check_file(self, "read")
  return read(self, ...)
end

local function lines_iterator(f, close_at_eof, ...)
  local n, formats = select("#", ...), { ... }
  return function()
    if f.closed then error("file is already closed", 2) end
    local results = table.pack(read(f, table.unpack(formats, 1, n)))
    if results[1] == nil and results[2] ~= nil then error(results[2], 2) end
    if results[1] == nil and close_at_eof then f:close() end
    return table.unpack(results, 1, results.n)
  end
end

function FILE:lines(...)
  check_file(self, "lines")
  return lines_iterator(self, false, ...)
end

local function to_text(v, i)
  local tv = type(v)
  if tv == "string" then return v end
  if tv == "number" then return math.type(v) == "integer" and format("%d", v) or format("%.14g", v) end
  error(format("bad argument #%d to 'write' (string expected, got %s)", i, tv), 3)
end

function FILE:write(...)
  check_file(self, "write")
  local n = select("#", ...)
  local parts = {}
  for i = 1, n do parts[i] = to_text((select(i, ...)), i) end
  local data = concat(parts)
  local kind = self.kind
  if kind == "file" then
    unread(self)
    local ok, err, code = host.fs_write(self.fd, data)
    if not ok then return nil, err, code end
  elseif kind == "sink" then
    if data ~= "" then host.log(self.stream, data) end -- io.write("") writes nothing, not an empty log line
  elseif kind == "popen_w" then
    self.wbuf[#self.wbuf + 1] = data
  else
    return ebadf()
  end
  return self
end

function FILE:seek(whence, offset)
  check_file(self, "seek")
  whence = whence or "cur"
  offset = offset or 0
  if whence ~= "set" and whence ~= "cur" and whence ~= "end" then
    error("bad argument #1 to 'seek' (invalid option '" .. tostring(whence) .. "')", 2)
  end
  if math.type(offset) ~= "integer" then
    offset = math.tointeger(offset) or error("bad argument #2 to 'seek' (number has no integer representation)", 2)
  end
  if self.kind ~= "file" then return nil, "Illegal seek", 29 end
  local ahead = #self.rbuf - self.rpos + 1
  self.rbuf, self.rpos = "", 1
  if whence == "cur" then offset = offset - ahead end
  return host.fs_seek(self.fd, whence, offset)
end

function FILE:setvbuf() check_file(self, "setvbuf"); return true end
function FILE:flush() check_file(self, "flush"); return self end

local function status_triple(code, how, detail)
  if how == "exit" then
    return code == 0 or nil, "exit", code
  elseif how == "signal" then
    return nil, "signal", detail
  elseif how == "timeout" then
    return nil, "signal", 9
  end
  return nil, "exit", 127
end

function FILE:close()
  if not is_file(self) then error("bad argument #1 to 'close' (FILE* expected, got " .. type(self) .. ")", 2) end
  if self.closed then error("attempt to use a closed file", 2) end
  local kind = self.kind
  if kind == "sink" or kind == "stdin" then return nil, "cannot close standard file" end
  self.closed = true
  self.rbuf = ""
  if kind == "file" then return host.fs_close(self.fd) end
  if kind == "popen_r" then return status_triple(self.code, self.how, self.detail) end
  -- popen_w: the program runs now, with everything written as its input
  local code, _, _, how, detail = host.exec(self.spec, concat(self.wbuf))
  return status_triple(code, how, detail)
end

FILE_MT.__close = function(f) if not f.closed then f:close() end end
FILE_MT.__gc = function(f) if not f.closed and f.kind == "file" then f.closed = true; host.fs_close(f.fd) end end
FILE_MT.__tostring = function(f)
  if f.closed then return "file (closed)" end
  return format("file (%p)", f)
end

---------------------------------------------------------------------------------------------------
-- io

local stdin = new_file("stdin")
local stdout = new_file("sink", { stream = "stdout" })
local stderr = new_file("sink", { stream = "stderr" })

-- Raises "bad argument #n to 'name' (why)" at the level of the code that called the library function, naming
-- it as Lua 5.4 does: by how it was called (`io.open(...)` → 'open'), else by its global name ('io.open').
-- Call it from the library function itself.
local function bad_argument(n, global_name, why)
  local info = debug.getinfo(2, "n")
  error(format("bad argument #%d to '%s' (%s)", n, info and info.name or global_name, why), 3)
end

local function typename(v, given)
  return given and type(v) or "no value"
end

-- The file, or nil, "name: message", errno and the bare message.
local function open(filename, mode)
  local fd, err, code = host.fs_open(filename, (mode:gsub("b", "")))
  if not fd then return nil, filename .. ": " .. err, code, err end
  return new_file("file", { fd = fd })
end

-- Lua 5.4's error for a file io.lines or io.input/io.output must open.
local function open_or_raise(filename, mode)
  local f, _, _, why = open(filename, mode)
  if not f then error(format("cannot open file '%s' (%s)", filename, why), 3) end
  return f
end

io.open = function(...)
  local filename, mode = ...
  if type(filename) ~= "string" then
    bad_argument(1, "io.open", "string expected, got " .. typename(filename, select("#", ...) >= 1))
  end
  mode = mode or "r"
  if type(mode) ~= "string" or not find(mode, "^[rwa]%+?b*$") then bad_argument(2, "io.open", "invalid mode") end
  return open(filename, mode)
end

io.type = function(x)
  if not is_file(x) then return nil end
  return x.closed and "closed file" or "file"
end

io.stdin, io.stdout, io.stderr = stdin, stdout, stderr

-- io.input / io.output: get the default file, or set it from a file or a file name.
local defaults = { input = stdin, output = stdout }
local function default_file(which, mode)
  return function(file)
    if file ~= nil then
      if type(file) == "string" then
        defaults[which] = open_or_raise(file, mode)
      else
        defaults[which] = check_file(file, which)
      end
    end
    return defaults[which]
  end
end
io.input = default_file("input", "r")
io.output = default_file("output", "w")

io.read = function(...) return defaults.input:read(...) end
io.write = function(...) return defaults.output:write(...) end
io.close = function(file) return (file or defaults.output):close() end

io.lines = function(filename, ...)
  if filename == nil then return defaults.input:lines(...) end
  local f = open_or_raise(filename, "r")
  return lines_iterator(f, true, ...), nil, nil, f
end

io.tmpfile = function()
  local name, err = host.fs_tmpname()
  if not name then return nil, err end
  local f, oerr, code = open(name, "w+")
  host.fs_remove(name) -- unlinked but open: gone when closed, like C's tmpfile()
  if not f then return nil, oerr, code end
  return f
end

io.popen = function(prog, mode)
  if type(prog) ~= "string" then error("bad argument #1 to 'popen' (string expected, got " .. type(prog) .. ")", 2) end
  mode = mode or "r"
  if mode ~= "r" and mode ~= "w" then error("bad argument #2 to 'popen' (invalid mode)", 2) end
  if mode == "w" then
    return new_file("popen_w", { wbuf = {}, spec = { shell = prog, stdout = "log", stderr = "log" } })
  end
  local code, out, _, how, detail = host.exec({ shell = prog, stdout = "capture", stderr = "log" })
  if how == "error" then return nil, prog .. ": " .. tostring(detail), 2 end
  return new_file("popen_r", { rbuf = out, code = code, how = how, detail = detail })
end

---------------------------------------------------------------------------------------------------
-- os

os.execute = function(command)
  if command == nil then return true end
  if type(command) ~= "string" then error("bad argument #1 to 'execute' (string expected, got " .. type(command) .. ")", 2) end
  local code, _, _, how, detail = host.exec({ shell = command, stdout = "log", stderr = "log" })
  return status_triple(code, how, detail)
end

os.getenv = function(name)
  if type(name) ~= "string" then error("bad argument #1 to 'getenv' (string expected, got " .. type(name) .. ")", 2) end
  return host.getenv(name)
end

-- Lua 5.4 names the file in os.remove's message, not in os.rename's.
local function path_result(ok, err, code, filename)
  if ok then return true end
  return nil, filename and filename .. ": " .. err or err, code
end

os.remove = function(filename)
  if type(filename) ~= "string" then error("bad argument #1 to 'remove' (string expected, got " .. type(filename) .. ")", 2) end
  local ok, err, code = host.fs_remove(filename)
  return path_result(ok, err, code, filename)
end

os.rename = function(...)
  local from, to = ...
  local args = { from, to }
  for i = 1, 2 do
    local v = args[i]
    if type(v) ~= "string" and type(v) ~= "number" then -- a number is taken as a string, as in Lua
      bad_argument(i, "os.rename", "string expected, got " .. typename(v, select("#", ...) >= i))
    end
  end
  local ok, err, code = host.fs_rename(tostring(from), tostring(to))
  return path_result(ok, err, code)
end

os.tmpname = function()
  local name, err = host.fs_tmpname()
  if not name then error("unable to generate a unique filename: " .. tostring(err), 2) end
  return name
end

os.exit = function(code)
  if code == nil or code == true then code = 0 elseif code == false then code = 1 end
  host.exit(math.tointeger(code) or 1)
  error("os.exit", 0) -- not reached: the host stops the handler
end

---------------------------------------------------------------------------------------------------
-- base functions that read files or print

print = function(...)
  local n = select("#", ...)
  local parts = {}
  for i = 1, n do parts[i] = tostring((select(i, ...))) end
  host.log("stdout", concat(parts, "\t") .. "\n")
end

warn = function(first, ...)
  if type(first) == "string" and sub(first, 1, 1) == "@" and select("#", ...) == 0 then return end
  host.log("warn", concat({ first, ... }))
end

local function read_chunk(filename)
  local src, err = host.read_source(filename)
  if not src then return nil, err end
  if sub(src, 1, 1) == "#" then src = "--" .. src end -- a #! line, as C Lua skips it
  return src
end

loadfile = function(filename, mode, env)
  if filename == nil then return nil, "awl: loadfile cannot read standard input" end
  local src, err = read_chunk(filename)
  if not src then return nil, err end
  names.remember(filename)
  if env ~= nil then return load(src, "@" .. filename, mode or "bt", env) end
  return load(src, "@" .. filename, mode or "bt")
end

dofile = function(filename)
  local chunk, err = loadfile(filename)
  if not chunk then error(err, 2) end
  return chunk()
end

---------------------------------------------------------------------------------------------------
-- errors an extension catches itself: whole file paths in their messages, as in the errors that reach awl
-- (chunk_names.lua), so a message passed on from pcall does not name "...s/deep/out.lua:14:"

-- A protected call's results, the message of a failure with whole paths (a non-string error is left as it is).
local function caught(ok, ...)
  if ok then return ok, ... end
  return ok, names.whole((...))
end

--- Installs the extensions' pcall, xpcall, coroutine.resume and load; called once awl's own runtime has taken
--- the originals (its dispatcher's tracebacks end at its own xpcall).
local function catch_whole_paths()
  local raw_load, raw_pcall, raw_xpcall, raw_resume = load, pcall, xpcall, coroutine.resume
  pcall = function(f, ...) return caught(raw_pcall(f, ...)) end
  xpcall = function(f, handler, ...) return caught(raw_xpcall(f, handler, ...)) end
  coroutine.resume = function(co, ...) return caught(raw_resume(co, ...)) end
  -- A chunk an extension loads under a file's name ("@" .. path) is remembered as awl's own loads are.
  load = function(chunk, chunkname, ...)
    if type(chunkname) == "string" and sub(chunkname, 1, 1) == "@" then names.remember(sub(chunkname, 2)) end
    return raw_load(chunk, chunkname, ...)
  end
end

return { read_chunk = read_chunk, is_file = is_file, catch_whole_paths = catch_whole_paths }
