-- std.bash: the `bash` tool. Runs a command in the workspace with a timeout, stdout and stderr interleaved as
-- they come and streamed to the tool's block; long output keeps its head and tail inline and is saved whole.
-- On cancel or timeout awl kills the command's whole process group. `run_in_background` is served by awl's host
-- (src/jobs/), which keeps the job past the call. Bundled with awl (docs/std-tools.md).
local DEFAULT_TIMEOUT, MAX_TIMEOUT = 120, 600
-- Within the 40 000 characters of a result the model reads by default (ctx.result_limit).
local INLINE_BYTES, INLINE_LINES = 38 * 1024, 2000
local HEAD_BYTES, HEAD_LINES = 12 * 1024, 500
local TAIL_BYTES, TAIL_LINES = 24 * 1024, 1500
local SHOWN_BYTES = 4096
-- A spill file keeps at most this much of an output (a command that prints forever must not fill the disk).
local SPILL_CAP_BYTES = 64 * 1024 * 1024
local text_util = require "_text"
local count_lines = text_util.newlines

-- The first `max_lines` lines of `s`, cut at a line end.
local function head_lines(s, max_lines)
  local at, n = 0, 0
  while n < max_lines do
    local nl = s:find("\n", at + 1, true)
    if not nl then return s end
    at, n = nl, n + 1
  end
  return s:sub(1, at)
end

-- The last `max_lines` lines of `s`.
local function tail_lines(s, max_lines)
  local at, n = #s, 0
  if s:sub(-1) == "\n" then at = at - 1 end
  while at > 0 do
    local c = s:byte(at)
    if c == 10 then
      n = n + 1
      if n == max_lines then return s:sub(at + 1) end
    end
    at = at - 1
  end
  return s
end

local function shell()
  local info = awl.fs.stat("/bin/bash")
  return info and "/bin/bash" or "/bin/sh"
end

-- `n` and the noun, singular or plural: "1 line", "3 lines".
local function count(n, noun)
  return n .. " " .. noun .. (n == 1 and "" or "s")
end

-- Collects the output: all of it while small; past INLINE_BYTES the head, a bounded tail, and the whole in a file.
-- Output that is cut (past INLINE_BYTES or INLINE_LINES) is always saved whole, so the model can read the rest.
local function collector(ctx)
  -- saved: bytes in the spill file; lost: why the file does not hold all of it (the cap, a full disk).
  local self = { parts = {}, size = 0, lines = 0, head = nil, tail = {}, tail_size = 0, file = nil, path = nil, saved = 0, lost = nil }
  -- Appends to the spill file up to SPILL_CAP_BYTES; the first failure (a full disk) or the cap stops the saving.
  local function save(data)
    if self.lost or not self.path then return end
    local room = SPILL_CAP_BYTES - self.saved
    local piece = #data > room and data:sub(1, room) or data
    local ok, err = self.file:write(piece)
    if not ok then
      self.lost = "the file could not be written further: " .. tostring(err)
      return
    end
    self.saved = self.saved + #piece
    if #piece < #data then self.lost = "the file is capped at " .. text_util.size(SPILL_CAP_BYTES) end
  end
  -- Opens the spill file with what came so far (without a spill folder, writes go nowhere: head and tail only).
  -- awl.fs.open_spill keeps API keys out of it (`env`, a config file printed).
  local function spill(all)
    self.path = string.format("%s/bash-%d-%d.txt", ctx.spill_dir, os.time(), math.random(1, 1 << 30))
    self.file = awl.fs.open_spill(self.path)
    if not self.file then self.path, self.file = nil, { write = function() end, close = function() end } end
    save(all)
  end
  function self.add(data)
    self.size = self.size + #data
    self.lines = self.lines + count_lines(data)
    if #data > 0 then self.ends_line = data:sub(-1) == "\n" end
    if not self.file and self.size <= INLINE_BYTES then
      self.parts[#self.parts + 1] = data
      return
    end
    if not self.file then
      self.parts[#self.parts + 1] = data
      local all = table.concat(self.parts)
      self.parts = nil
      spill(all)
      self.head = all:sub(1, HEAD_BYTES + 3) -- room to cut it at a character
      self.tail, self.tail_size = { all }, #all
      return
    end
    save(data)
    self.tail[#self.tail + 1] = data
    self.tail_size = self.tail_size + #data
    while #self.tail > 1 and self.tail_size - #self.tail[1] >= TAIL_BYTES do
      self.tail_size = self.tail_size - #self.tail[1]
      table.remove(self.tail, 1)
    end
  end
  function self.text()
    if not self.head then
      local all = table.concat(self.parts)
      if self.lines <= INLINE_LINES then return all end
      spill(all) -- small in bytes but too many lines: cut too, so saved whole too
      self.head, self.tail = all, { all }
    end
    if self.file then
      local ok, err = self.file:close()
      if not ok and not self.lost then self.lost = "the file could not be written further: " .. tostring(err) end
      self.file = nil
    end
    -- The head: whole lines, unless its first line alone is longer than HEAD_BYTES (then cut at a character).
    local head = head_lines(text_util.cut(self.head, HEAD_BYTES, ""), HEAD_LINES)
    if head:sub(-1) ~= "\n" and head:find("\n", 1, true) then head = head:match("^(.*\n)") end
    local tail = table.concat(self.tail)
    if #tail > TAIL_BYTES then
      tail = tail:sub(-TAIL_BYTES)
      local nl = tail:find("\n", 1, true)
      if nl and nl < #tail then tail = tail:sub(nl + 1) -- whole lines only
      else tail = tail:gsub("^[\128-\191]+", "") end -- one long line: start at a character
    end
    tail = tail_lines(tail, TAIL_LINES)
    -- Never claims more than the file holds: a full disk or the cap says how much was kept.
    local where = ""
    if self.path and self.lost then
      where = "; only its first " .. text_util.size(self.saved) .. " is in " .. self.path .. " (" .. self.lost .. ")"
    elseif self.path then
      where = "; all of it is in " .. self.path
    end
    local cut_lines = math.max(self.lines - count_lines(head) - count_lines(tail), 0)
    local cut_size = text_util.size(math.max(self.size - #head - #tail, 0))
    local cut = cut_lines > 0 and (count(cut_lines, "line") .. " (" .. cut_size .. ")") or cut_size
    return string.format("%s%s[… %s cut (%s, %s in all)%s]\n%s", head, head:sub(-1) == "\n" and "" or "\n", cut,
      count(self.lines + (self.ends_line and 0 or 1), "line"), text_util.size(self.size), where, tail)
  end
  return self
end

awl.register_tool {
  name = "bash",
  -- Every request carries this: kept short (docs/std-tools.md, the request budget).
  description = "Run a bash command in the working directory; stdout and stderr interleaved, then the exit code. "
    .. "No stdin. Long output keeps head and tail (all saved to a file). Timeout "
    .. DEFAULT_TIMEOUT .. " s, max " .. MAX_TIMEOUT .. ". run_in_background: return now with a job id.",
  parameters = {
    type = "object",
    properties = {
      command = { type = "string" },
      timeout = { type = "integer", minimum = 1, maximum = MAX_TIMEOUT },
      run_in_background = { type = "boolean" },
    },
    required = { "command" },
  },
  kinds = { "exec" },
  parallel = false,
  timeout = MAX_TIMEOUT + 30, -- the command's own timeout comes first; this only bounds the handler
  run = function(args, ctx)
    -- awl's host starts background commands (src/jobs/): a call that reaches here has no host that keeps jobs.
    if args.run_in_background then
      error(awl.tool_error("background commands are kept by awl's interactive and print modes, not here: run it without run_in_background"))
    end
    local command = args.command
    local seconds = math.min(args.timeout or DEFAULT_TIMEOUT, MAX_TIMEOUT)
    ctx:title(command:match("^[^\n]*"))
    -- One stream, in the order the command wrote it: the shell sends its stderr to its stdout.
    local proc = awl.spawn { shell(), "-c", "exec 2>&1\n" .. command, timeout = seconds,
      -- Nothing waits for a person: pagers print, git asks no password and opens no editor (`git commit` without
      -- -m ends at once, "Aborting commit due to empty commit message", instead of a vi that never ends).
      env = { PAGER = "cat", GIT_PAGER = "cat", GIT_TERMINAL_PROMPT = "0", GIT_EDITOR = "true" } }
    local out, recent = collector(ctx), ""
    while true do
      local data = proc:read()
      if not data then break end
      out.add(data)
      recent = (recent .. data):sub(-SHOWN_BYTES)
      ctx:show { command = command, output = recent, running = true }
    end
    local code, why = proc:wait()
    local text = out.text()
    local status
    if code then
      status = "[exit code " .. code .. "]"
    elseif why == "timeout" then
      status = "[timed out after " .. seconds .. " s: the command and everything it started were killed]"
    else
      status = "[" .. why .. "]"
    end
    -- A failed call's block has its summary under the body already (docs/extension-api.md): no status line twice.
    ctx:show { command = command, output = recent, running = false, status = status, failed = code ~= 0 or nil }
    local content = (text == "" and "" or (text:sub(-1) == "\n" and text or text .. "\n")) .. status
    return { content = content, is_error = code ~= 0, summary = status:sub(2, -2) }
  end,
  render = function(state, view)
    local lines = {}
    for line in state.output:gmatch("[^\n]*") do lines[#lines + 1] = line end
    if lines[#lines] == "" then lines[#lines] = nil end
    local status = not state.failed and state.status or nil
    local keep = view.expand and #lines or math.max(1, view.height - (status and 1 or 0))
    local out = {}
    for i = math.max(1, #lines - keep + 1), #lines do out[#out + 1] = lines[i] end
    if status then out[#out + 1] = status end
    return out
  end,
}
