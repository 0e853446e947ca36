-- `awl.spawn`: a program whose output the handler reads as it comes (for tools that stream, like a shell).
-- The program runs on awl's main thread in its own process group, with no stdin (it reads end of file); a
-- cancelled or timed-out call kills the group, and so does the end of the call for a program still running.
local host, json = ...

local type, error, format, tostring, setmetatable = type, error, string.format, tostring, setmetatable

local PROC = {}
PROC.__name = "awl.process"
-- `proc.pid` is asked of the main thread when first read: starting a program does not wait for it.
function PROC.__index(self, key)
  if key == "pid" then
    local pid = host.proc_pid(rawget(self, "handle"))
    rawset(self, "pid", pid)
    return pid
  end
  return PROC[key]
end

local function ended(self, code, how, detail)
  self.done = true
  if how == "exit" then self.code, self.why = code, nil
  elseif how == "signal" then self.code, self.why = nil, "signal " .. tostring(detail)
  elseif how == "timeout" then self.code, self.why = nil, "timeout"
  else self.code, self.why = nil, tostring(detail) end
end

--- The next output, as it came: `data, stream` ("stdout" or "stderr"); nil once the program ended and
--- everything it wrote was read. Blocks until there is some.
function PROC:read()
  if getmetatable(self) ~= PROC then error("bad self to 'read' (use proc:read())", 2) end
  while true do
    local pending = self.pending
    if pending and self.next <= #pending then
      local chunk = pending[self.next]
      self.next = self.next + 1
      return chunk.data, chunk.stream
    end
    if self.done then return nil end
    local chunks, finished, code, how, detail = host.proc_read(self.handle)
    self.pending, self.next = chunks, 1
    if finished then ended(self, code, how, detail) end
  end
end

--- Waits for the program to end, dropping output not read yet. Returns its exit code, or nil and why
--- ("timeout", "signal 9", "cannot run ...").
function PROC:wait()
  if getmetatable(self) ~= PROC then error("bad self to 'wait' (use proc:wait())", 2) end
  while self:read() do end
  return self.code, self.why
end

--- Kills the program and everything it started (its process group). True when it was still running.
function PROC:kill()
  if getmetatable(self) ~= PROC then error("bad self to 'kill' (use proc:kill())", 2) end
  if self.done then return false end
  return host.proc_kill(self.handle)
end

local OPTIONS = { cwd = "string", timeout = "number", env = "table" }

--- `awl.spawn{ "prog", "arg", ..., cwd = dir, env = { K = "v" }, timeout = seconds }`: a process. A program that
--- cannot start ends at once: `proc:wait()` returns nil and "cannot run ...".
local function spawn(spec)
  if type(spec) ~= "table" then error("bad argument #1 to 'awl.spawn' (table expected, got " .. type(spec) .. ")", 2) end
  local argv = json.array()
  for i = 1, #spec do
    local a = spec[i]
    if type(a) ~= "string" and type(a) ~= "number" then
      error(format("bad argument to 'awl.spawn' (argument %d is a %s, not a string)", i, type(a)), 2)
    end
    argv[i] = tostring(a)
  end
  if #argv == 0 then error("awl.spawn needs the program and its arguments, e.g. awl.spawn{ 'make', 'test' }", 2) end
  for key, value in next, spec do
    if type(key) ~= "number" then
      local want = OPTIONS[key]
      if not want then error(format("bad argument to 'awl.spawn' (unknown option `%s`; the options are cwd, env, timeout)", tostring(key)), 2) end
      if type(value) ~= want then error(format("bad argument to 'awl.spawn' (%s must be a %s, got %s)", key, want, type(value)), 2) end
    end
  end
  if spec.timeout ~= nil and not (spec.timeout > 0) then error("bad argument to 'awl.spawn' (timeout must be a positive number of seconds)", 2) end
  local handle = host.spawn(json.encode({ argv = argv, cwd = spec.cwd, env = spec.env,
    timeout_ms = spec.timeout and math.floor(spec.timeout * 1000) }))
  return setmetatable({ handle = handle, done = false }, PROC)
end

return spawn
