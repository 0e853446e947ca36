-- The `awl` API extensions see (register_tool, register_command, on, json, exec, log, tool_error, on_unload), the wallah
-- form `agent.on('discover_tools', ...)`, and the two entry points the worker calls:
-- `load_extension` and `call`. Only strings cross to JavaScript: tool input arrives as JSON text,
-- results leave as (status, content, extra JSON); the host writes that JSON for json.lua (see json.encode_ex).
local host, json, make_require, config, extras = ...

local format, concat, find, sub, match = string.format, table.concat, string.find, string.sub, string.match
local type, tostring, select, error, pcall, xpcall, setmetatable, getmetatable, next =
  type, tostring, select, error, pcall, xpcall, setmetatable, getmetatable, next
local traceback, getinfo = debug.traceback, debug.getinfo
local names = extras.names -- whole file paths in messages (chunk_names.lua)

local awl = { version = config.api_version }
_G.awl = awl

awl.json = {
  encode = json.encode,
  decode = json.decode,
  null = json.null,
  array = json.array,
  object = json.object,
}

awl.fs = extras.fs
awl.spawn = extras.spawn
awl.http = extras.http.http
awl.web = extras.http.web
awl.base64 = {
  --- Base64 text of a string's bytes (e.g. an image for a result's `images`).
  encode = function(bytes)
    if type(bytes) ~= "string" then error("bad argument #1 to 'awl.base64.encode' (string expected, got " .. type(bytes) .. ")", 2) end
    return host.base64_encode(bytes)
  end,
  --- The bytes of base64 text.
  decode = function(text)
    if type(text) ~= "string" then error("bad argument #1 to 'awl.base64.decode' (string expected, got " .. type(text) .. ")", 2) end
    return host.base64_decode(text)
  end,
}

local extensions = {} -- name -> { name, file, root, env, tools = { [name] = tool }, order = { tool... }, unload = { fn... } }
local loading = nil   -- the extension whose top-level code is running

---------------------------------------------------------------------------------------------------
-- Helpers for handlers

local TOOL_ERROR = { __name = "awl.tool_error", __tostring = function(e) return e.message end }

--- A failure the model reads and can act on: `error(awl.tool_error("no such city"))` or return it.
function awl.tool_error(message)
  if type(message) ~= "string" then message = tostring(message) end
  return setmetatable({ message = message }, TOOL_ERROR)
end

local function is_tool_error(v) return type(v) == "table" and getmetatable(v) == TOOL_ERROR end

local function joined(sep, ...)
  local parts = {}
  for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
  return concat(parts, sep)
end

--- Writes a line to awl's log (never to the model or to awl's output).
function awl.log(...)
  host.log("log", joined(" ", ...) .. "\n")
end

--- Runs a program without a shell: `local code, stdout, stderr = awl.exec{ "git", "status", cwd = dir }`.
--- Options: cwd, stdin (string), timeout (seconds), env (table of extra variables).
--- When the program could not run, was killed or timed out, `code` is nil and a 4th value says why.
function awl.exec(spec)
  if type(spec) ~= "table" then error("bad argument #1 to 'awl.exec' (table expected, got " .. type(spec) .. ")", 2) end
  local argv = {}
  for i = 1, #spec do
    local a = spec[i]
    if type(a) ~= "string" and type(a) ~= "number" then
      error(format("bad argument to 'awl.exec' (argument %d is a %s, not a string)", i, type(a)), 2)
    end
    argv[i] = tostring(a)
  end
  if #argv == 0 then error("awl.exec needs the program and its arguments, e.g. awl.exec{ 'ls', '-l' }", 2) end
  for key, want in next, { cwd = "string", stdin = "string", timeout = "number", env = "table" } do
    if spec[key] ~= nil and type(spec[key]) ~= want then
      error(format("bad argument to 'awl.exec' (%s must be a %s, got %s)", key, want, type(spec[key])), 2)
    end
  end
  local code, out, err, how, detail = host.exec({
    argv = argv, cwd = spec.cwd, env = spec.env, stdout = "capture", stderr = "capture",
    timeout_ms = spec.timeout and math.floor(spec.timeout * 1000),
  }, spec.stdin)
  if how == "exit" then return code, out, err end
  if how == "signal" then return nil, out, err, "signal " .. tostring(detail) end
  if how == "timeout" then return nil, out, err, "timeout" end
  return nil, out, err, tostring(detail)
end

-- A capability's metadata: awl reads it from the file's text without running it (src/extensions/metadata.ts);
-- at run time the call only checks the table.
local CAPABILITY_FIELDS = { label = true, description = true, version = true, license = true, homepage = true }
function awl.capability(spec)
  if type(spec) ~= "table" then error("awl.capability: expected a table { label = \"...\", description = \"...\" }, got " .. type(spec), 2) end
  for key, value in next, spec do
    if not CAPABILITY_FIELDS[key] then
      error(format("awl.capability: unknown field `%s`; the fields are label, description, version, license, homepage", tostring(key)), 2)
    end
    if type(value) ~= "string" then error(format("awl.capability: `%s` must be a string, got %s", key, type(value)), 2) end
  end
end

--- Runs `fn` when awl unloads this extension's state (reload, exit).
function awl.on_unload(fn)
  if type(fn) ~= "function" then error("bad argument #1 to 'awl.on_unload' (function expected, got " .. type(fn) .. ")", 2) end
  if not loading then error("awl.on_unload can only be called while the extension loads", 2) end
  -- false: awl gave this state up as it exits (nothing was owed): it is being stopped, and runs no more code
  if not host.owe_unload() then error("awl is exiting: this Lua state is being discarded", 0) end
  loading.unload[#loading.unload + 1] = fn
end

---------------------------------------------------------------------------------------------------
-- Registration

local FIELDS = {
  name = "string", description = "string", parameters = "table", run = "function",
  render = "function", available = "function", parallel = "boolean", timeout = "number", kinds = "table",
}
-- What a tool may do, in the order awl reports them; permissions decide on these (none declared: exec).
local KINDS = { "read", "write", "exec", "network" }
local KIND_RANK = { read = 1, write = 2, exec = 3, network = 4 }
local HINTS = { handler = "run", schema = "parameters", input_schema = "parameters", execute = "run" }

-- `level` is the stack level of the extension code that called the public function.
local function register(spec, level)
  local function fail(msg) error("awl.register_tool: " .. msg, level + 2) end
  local ext = loading
  if not ext then
    fail("tools can only be registered while the extension loads (at its top level or in agent.on('discover_tools'))")
  end
  for key, value in next, spec do
    local want = FIELDS[key]
    if not want then
      local hint = HINTS[key] and format(" (did you mean `%s`?)", HINTS[key]) or ""
      fail(format("unknown field `%s`%s; the fields are name, description, parameters, run, render, available, parallel, timeout, kinds", tostring(key), hint))
    end
    if type(value) ~= want then
      if key == "kinds" then fail(format("`kinds` must be a list such as { \"read\" }, got %s", type(value))) end
      fail(format("`%s` must be a %s, got %s", key, want, type(value)))
    end
  end
  local kinds = json.array({ "exec" })
  if spec.kinds ~= nil then
    local seen, count = {}, 0
    for k in next, spec.kinds do
      if math.type(k) ~= "integer" or k < 1 or k > #spec.kinds then
        fail(format("`kinds` must be a list such as { \"read\", \"write\" }, not a table with the key %s", tostring(k)))
      end
      count = count + 1
    end
    if count == 0 then fail("`kinds` is empty; list what the tool may do: read, write, exec or network (a tool that only computes is `read`)") end
    for i = 1, #spec.kinds do
      local kind = spec.kinds[i]
      if not KIND_RANK[kind] then
        fail(format("`kinds[%d]` is %s; a kind is one of %s", i, type(kind) == "string" and format("%q", kind) or "a " .. type(kind), concat(KINDS, ", ")))
      end
      seen[kind] = true
    end
    kinds = json.array()
    for _, kind in ipairs(KINDS) do if seen[kind] then kinds[#kinds + 1] = kind end end
  end
  if spec.name == nil then fail("`name` is missing") end
  if spec.run == nil then fail(format("tool `%s` has no handler (`run` function)", spec.name)) end
  if spec.timeout ~= nil and not (spec.timeout > 0) then fail("`timeout` must be a positive number of seconds") end
  local schema = spec.parameters or json.object({ type = "object", properties = json.object() })
  -- A schema JSON cannot hold refuses this tool only (like a bad name), not the whole extension: the
  -- registry reports it with the tool's file:line.
  local ok, schema_json = pcall(json.encode_ex, schema, "parameters")
  local schema_error
  if not ok then schema_error, schema_json = "cannot be sent to the model: " .. tostring(schema_json), "{}" end
  if ext.tools[spec.name] then
    local first = ext.tools[spec.name]
    fail(format("tool `%s` is already registered by this extension at %s:%d", spec.name, first.file, first.line))
  end
  local info = getinfo(level + 1, "Sl") or {}
  local source = info.source or "?"
  local description = spec.description
  if description == nil and type(schema.description) == "string" then description = schema.description end
  local tool = {
    extension = ext.name,
    name = spec.name,
    description = description or "",
    schema = schema_json,
    schema_error = schema_error,
    parallel = spec.parallel ~= false,
    kinds = kinds,
    timeout_ms = spec.timeout and math.floor(spec.timeout * 1000 + 0.5) or nil,
    file = sub(source, 1, 1) == "@" and sub(source, 2) or source,
    line = info.currentline or 0,
    has_render = spec.render ~= nil,
    has_available = spec.available ~= nil,
    run = spec.run, render = spec.render, available = spec.available,
  }
  ext.tools[spec.name] = tool
  ext.order[#ext.order + 1] = tool
end

--- `awl.register_tool(name, schema, handler)` or `awl.register_tool{ name=, description=, parameters=, run=, ... }`.
function awl.register_tool(a, b, c)
  if type(a) == "table" and b == nil and c == nil then register(a, 2); return end
  if type(a) ~= "string" then
    error("awl.register_tool: `name` must be a string, got " .. type(a) ..
      " (use awl.register_tool(name, schema, handler) or awl.register_tool{ name = ..., run = ... })", 2)
  end
  if type(b) ~= "table" then error("awl.register_tool: the schema of `" .. a .. "` must be a table, got " .. type(b), 2) end
  if type(c) ~= "function" then error("awl.register_tool: the handler of `" .. a .. "` must be a function, got " .. type(c), 2) end
  register({ name = a, parameters = b, run = c }, 2) -- not a tail call: levels must stay put
end

-- Slash commands of the interactive mode: `awl.register_command{ name = "deploy", description = "...",
-- handler = function(args, ctx) return "text" end }`. They travel with the tool registrations, named "/" .. name
-- (no tool name holds a "/"), marked `command`; awl keeps them apart from the tools.
local COMMAND_FIELDS = { name = "string", description = "string", handler = "function" }

function awl.register_command(spec)
  local function fail(msg) error("awl.register_command: " .. msg, 3) end
  if type(spec) ~= "table" then fail("expected a table { name = ..., description = ..., handler = function(args, ctx) ... end }, got " .. type(spec)) end
  local ext = loading
  if not ext then fail("commands can only be registered while the extension loads") end
  for key, value in next, spec do
    local want = COMMAND_FIELDS[key]
    if not want then
      local hint = (key == "run" or key == "fn") and " (did you mean `handler`?)" or ""
      fail(format("unknown field `%s`%s; the fields are name, description, handler", tostring(key), hint))
    end
    if type(value) ~= want then fail(format("`%s` must be a %s, got %s", key, want, type(value))) end
  end
  if spec.name == nil then fail("`name` is missing") end
  if not match(spec.name, "^[a-z0-9][a-z0-9_:.%-]*$") then
    fail(format("%q is not a command name (lower-case letters, digits, _ : . - ; typed as /%s)", spec.name, spec.name))
  end
  if spec.handler == nil then fail(format("command `%s` has no `handler` function", spec.name)) end
  local key = "/" .. spec.name
  if ext.tools[key] then
    local first = ext.tools[key]
    fail(format("command `%s` is already registered by this extension at %s:%d", spec.name, first.file, first.line))
  end
  local info = getinfo(2, "Sl") or {}
  local source = info.source or "?"
  local handler = spec.handler
  local command = {
    extension = ext.name, name = key, description = spec.description or "", schema = "{}", parallel = false,
    kinds = json.array({ "exec" }), command = true,
    file = sub(source, 1, 1) == "@" and sub(source, 2) or source, line = info.currentline or 0,
    has_render = false, has_available = false,
    -- What the handler returns is printed: a string (or a number), nothing, or a table { content = "..." };
    -- a table with `prompt` sends that prompt to the model (with `attachments`, `images`).
    run = function(input, ctx)
      local result = handler(input.args or "", ctx)
      if result == nil then return "" end
      if type(result) == "number" then return tostring(result) end
      if type(result) == "table" and result.prompt ~= nil and result.content == nil then result.content = "" end
      return result
    end,
  }
  ext.tools[key] = command
  ext.order[#ext.order + 1] = command
end

-- Event hooks: `awl.on("tool_call", function(event, ctx) return { block = true, reason = "..." } end, { timeout_ms = 2000 })`.
-- They travel with the tool registrations, named "@" .. event .. "#" .. n (no tool name holds an "@"), marked
-- `hook`; awl dispatches them (src/hooks/) and checks what they return. A handler's return value leaves as JSON.
local HOOK_EVENTS = {
  session_start = true, user_prompt = true, tool_call = true, tool_result = true,
  before_request = true, turn_end = true, compaction = true, session_end = true,
}
local HOOK_EVENT_LIST = "session_start, user_prompt, tool_call, tool_result, before_request, turn_end, compaction, session_end"

function awl.on(event, handler, opts)
  local function fail(msg) error("awl.on: " .. msg, 3) end
  if type(event) ~= "string" then fail("the event must be a string, got " .. type(event)) end
  if not HOOK_EVENTS[event] then fail(format("unknown event %q; the events are %s", event, HOOK_EVENT_LIST)) end
  if type(handler) ~= "function" then fail("the handler must be a function, got " .. type(handler)) end
  local ext = loading
  if not ext then fail("hooks can only be registered while the extension loads") end
  local timeout_ms
  if opts ~= nil then
    if type(opts) ~= "table" then fail("the options must be a table { timeout_ms = ... }, got " .. type(opts)) end
    for key, value in next, opts do
      if key ~= "timeout_ms" then fail(format("unknown option `%s`; the only option is timeout_ms", tostring(key))) end
      if type(value) ~= "number" or not (value > 0) then fail("`timeout_ms` must be a positive number of milliseconds") end
    end
    timeout_ms = opts.timeout_ms and math.floor(opts.timeout_ms + 0.5)
  end
  ext.hooks = ext.hooks + 1
  local key = "@" .. event .. "#" .. ext.hooks
  local info = getinfo(2, "Sl") or {}
  local source = info.source or "?"
  local hook = {
    extension = ext.name, name = key, description = "", schema = "{}", parallel = true,
    kinds = json.array({ "exec" }), hook = event, timeout_ms = timeout_ms,
    file = sub(source, 1, 1) == "@" and sub(source, 2) or source, line = info.currentline or 0,
    has_render = false, has_available = false,
    run = function(input, ctx)
      local result = handler(input, ctx)
      if result == nil then return "null" end
      local ok, text = pcall(json.encode_ex, result, "the returned value")
      if not ok then return awl.tool_error("returned a value awl cannot read: " .. tostring(text)) end
      return text
    end,
  }
  ext.tools[key] = hook
  ext.order[#ext.order + 1] = hook
end

-- wallah's form: agent.on('discover_tools', function(registry) registry:add{ ... } end)
local registry = {}
function registry:add(spec)
  if type(spec) ~= "table" then error("registry:add expects a table {name=, description=, parameters=, run=}, got " .. type(spec), 2) end
  register(spec, 2)
end

_G.agent = {
  on = function(event, fn)
    if event ~= "discover_tools" then
      error(format("agent.on: unknown event %q (awl supports 'discover_tools')", tostring(event)), 2)
    end
    if type(fn) ~= "function" then error("agent.on: the handler must be a function, got " .. type(fn), 2) end
    if not loading then error("agent.on can only be called while the extension loads", 2) end
    loading.discover[#loading.discover + 1] = fn
  end,
}

---------------------------------------------------------------------------------------------------
-- Entry points for the worker

local function crash_report(e)
  if is_tool_error(e) then return e end
  local message
  if type(e) == "string" then
    message = e
  elseif type(e) == "table" and getmetatable(e) == nil and type(e.message) == "string" then
    message = e.message
  elseif type(e) == "table" and not (getmetatable(e) and getmetatable(e).__tostring) then
    -- error({ code = 1 }): its contents say more than "table: 0x…".
    local ok, text = pcall(json.encode, e)
    message = ok and text or tostring(e)
  else
    message = tostring(e)
  end
  message = names.whole(message)
  return { message = message, traceback = names.whole(traceback(message, 2)) }
end

-- Cuts the frames that belong to awl's own dispatcher off a traceback.
local function trim(tb)
  -- Lua names it "upvalue 'xpcall'": the global is the extensions' own (stdlib.lua's catch_whole_paths).
  local cut = find(tb, "\n%s*%[C%]: in %a+ 'xpcall'")
  return cut and sub(tb, 1, cut - 1) or tb
end

local function make_env(name, root)
  local env = setmetatable({}, { __index = _G })
  env._G = _G
  env.require = make_require(root, env)
  return env
end

local staged = {} -- name -> a new version loaded beside the one serving, until commit_extension swaps it in

--- Loads one extension. Returns "ok", registrations JSON or "error", message. `source`: the entry point's
--- text when the host read it already; `replace`: keep the version serving until commit_extension (a reload).
local function load_extension(name, file, root, source, replace)
  local env = make_env(name, root)
  names.remember(file)
  -- The build's bytecode of a bundled extension (no parse: most of a cold load), else the text.
  local compiled = host.read_compiled(file)
  local chunk = compiled and load(compiled, "@" .. file, "b", env)
  if not chunk then
    local src, err = source, nil
    if src == nil then src, err = host.read_source(file) end
    if not src then return "error", err end
    if sub(src, 1, 1) == "#" then src = "--" .. src end
    local syntax
    chunk, syntax = load(src, "@" .. file, "t", env)
    if not chunk then return "error", names.whole(syntax) end
  end
  local ext = { name = name, file = file, root = root, env = env, tools = {}, order = {}, unload = {}, discover = {}, hooks = 0 }
  loading = ext
  host.set_extension(name)
  local ok, report = xpcall(chunk, crash_report)
  for i = 1, #ext.discover do
    if not ok then break end
    ok, report = xpcall(ext.discover[i], crash_report, registry)
  end
  loading = nil
  if not ok then
    if is_tool_error(report) then return "error", report.message end
    return "error", report.message, trim(report.traceback)
  end
  if replace then staged[name] = ext else extensions[name] = ext end
  local list = {}
  for i, tool in ipairs(ext.order) do
    list[i] = {
      extension = tool.extension, name = tool.name, description = tool.description, schema = tool.schema,
      schema_error = tool.schema_error, parallel = tool.parallel, kinds = tool.kinds, timeout_ms = tool.timeout_ms, file = tool.file, line = tool.line,
      has_render = tool.has_render, has_available = tool.has_available, command = tool.command, hook = tool.hook,
    }
  end
  return "ok", json.encode(json.array(list))
end

local CTX = {}
CTX.__index = CTX
function CTX:progress(fraction, detail)
  if type(fraction) ~= "number" then error("ctx:progress: the fraction must be a number, got " .. type(fraction), 2) end
  host.progress("progress", fraction, detail ~= nil and tostring(detail) or nil)
end
function CTX:show(state)
  local ok, text = pcall(json.encode_ex, state, "state")
  if not ok then error("ctx:show: " .. text, 2) end
  host.progress("show", text)
end
function CTX:title(text)
  host.progress("title", tostring(text))
end

local function make_ctx(ext, ctx_json)
  local ctx = json.decode(ctx_json)
  local h = {}
  for k, v in next, config.host do h[k] = v end
  ctx.host = h
  ctx.name = ext.name
  ctx.dir = ext.root
  return setmetatable(ctx, CTX)
end

local function describe(v)
  if v == nil then return "nothing (nil)" end
  if type(v) == "table" then
    local keys = {}
    for k in next, v do keys[#keys + 1] = tostring(k) end
    table.sort(keys)
    if #keys == 0 then return "an empty table" end
    return "a table without a `content` string (its keys: " .. concat(keys, ", ") .. ")"
  end
  if type(v) == "string" then return "a string" end
  return format("a %s (%s)", type(v), tostring(v))
end

local function bad_return(tool, v)
  return "error", format("the %s `%s` returned %s; a handler must return a string or a table { content = \"...\" }",
    tool.command and "command" or "tool", tool.command and sub(tool.name, 2) or tool.name, describe(v))
end

-- The optional fields of a table result, as JSON (nil when there are none).
local function extras(tool, r)
  local x = {}
  if r.summary ~= nil then x.summary = tostring(r.summary) end
  if r.details ~= nil then x.details = r.details end
  if tool.command and r.prompt ~= nil then
    -- A command's prompt for the model, and files to attach to it (docs/extension-api.md).
    if type(r.prompt) ~= "string" then return nil, "`prompt` must be a string" end
    x.prompt = r.prompt
    if r.attachments ~= nil then
      if type(r.attachments) ~= "table" then return nil, "`attachments` must be a list of file paths" end
      local files = json.array()
      for i, path in ipairs(r.attachments) do
        if type(path) ~= "string" then return nil, format("attachments[%d] must be a file path (a string)", i) end
        files[i] = path
      end
      x.attachments = files
    end
  end
  if r.images ~= nil then
    if type(r.images) ~= "table" then return nil, "`images` must be a list of { media_type = ..., data = base64 }" end
    local images = json.array()
    for i, img in ipairs(r.images) do
      if type(img) ~= "table" or type(img.media_type) ~= "string" or type(img.data) ~= "string" then
        return nil, format("images[%d] must be a table { media_type = \"image/png\", data = base64 string }", i)
      end
      images[i] = { media_type = img.media_type, data = img.data }
    end
    x.images = images
  end
  if next(x) == nil then return nil end
  local ok, text = pcall(json.encode_ex, x, "result")
  if not ok then return nil, text end
  return text
end

local function shape(tool, r)
  local tr = type(r)
  if tr == "string" then return "ok", r end
  if tr ~= "table" then return bad_return(tool, r) end
  if is_tool_error(r) then return "error", r.message end
  local content = r.content
  if type(content) == "number" then content = tostring(content) end
  if type(content) ~= "string" then return bad_return(tool, r) end
  local extra, problem = extras(tool, r)
  if problem then
    return "error", format("the tool `%s` returned a result awl cannot use: %s", tool.name, problem)
  end
  return (r.is_error and "error" or "ok"), content, extra
end

local function find(ext_name, tool_name)
  local ext = extensions[ext_name]
  local tool = ext and ext.tools[tool_name]
  if tool then host.set_extension(ext_name) end
  return ext, tool
end

local function unknown(ext_name, tool_name)
  return "error", format("unknown tool `%s` in extension `%s`", tool_name, ext_name)
end

-- (status, content, extra) for an xpcall that failed.
local function failed(report)
  if is_tool_error(report) then return "error", report.message end
  if type(report) ~= "table" then return "crash", tostring(report), "" end -- out of memory: no message handler
  return "crash", report.message, trim(report.traceback)
end

-- The worker's entry points all take (extension, tool, input JSON, ctx JSON) and return
-- (status, content, extra) with status "ok" | "error" | "crash"; for "crash", content is the
-- message and extra the traceback.

--- Runs one handler.
local function call(ext_name, tool_name, input_json, ctx_json)
  local ext, tool = find(ext_name, tool_name)
  if not tool then return unknown(ext_name, tool_name) end
  local ok, input = pcall(json.decode, input_json)
  if not ok then return "error", "the tool input is not valid JSON: " .. tostring(input) end
  local done, result = xpcall(tool.run, crash_report, input, make_ctx(ext, ctx_json))
  if done then return shape(tool, result) end
  return failed(result)
end

--- Asks a tool's `available(ctx)`: "ok" with "true" or "false".
local function available(ext_name, tool_name, _, ctx_json)
  local ext, tool = find(ext_name, tool_name)
  if not tool then return unknown(ext_name, tool_name) end
  if not tool.available then return "ok", "true" end
  local done, result = xpcall(tool.available, crash_report, make_ctx(ext, ctx_json))
  if not done then return failed(result) end
  return "ok", result and "true" or "false"
end

--- Runs a tool's `render(state, view)` on input `{ state = ..., view = ... }`: "ok" with the text.
local function render(ext_name, tool_name, input_json)
  local _, tool = find(ext_name, tool_name)
  if not tool then return unknown(ext_name, tool_name) end
  if not tool.render then return "error", format("the tool `%s` has no render function", tool_name) end
  local args = json.decode(input_json)
  local done, result = xpcall(tool.render, crash_report, args.state, args.view)
  if not done then return failed(result) end
  if type(result) == "string" then return "ok", result end
  if type(result) == "table" then
    local lines = {}
    for i, line in ipairs(result) do lines[i] = tostring(line) end
    return "ok", concat(lines, "\n")
  end
  return "error", format("render of `%s` returned %s; it must return a string or a list of lines", tool_name, describe(result))
end

local function run_unload_hooks(name, ext)
  host.set_extension(name)
  for _, fn in ipairs(ext.unload) do
    local ok, report = xpcall(fn, crash_report)
    if not ok then host.log("warn", "on_unload failed: " .. tostring(report.message or report) .. "\n") end
  end
end

--- Runs the on_unload hooks of the version of `name` serving now (a reload, a removal, or awl exits); errors
--- are logged, never raised.
local function unload_extension(name)
  local ext = extensions[name]
  if ext then run_unload_hooks(name, ext) end
end

--- Puts the version load_extension staged in service, or, with none staged, drops the extension.
local function commit_extension(name)
  extensions[name] = staged[name]
  staged[name] = nil
end

return {
  load_extension = load_extension, call = call, available = available, render = render,
  unload_extension = unload_extension, commit_extension = commit_extension,
}
