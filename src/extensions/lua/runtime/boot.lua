-- Boots awl's Lua runtime in a fresh state: JSON codec, standard library on the real system,
-- require, and the awl API. Receives the worker's host functions, the configuration (JSON) and the
-- directory of these files; returns the entry points the worker calls.
local raw, config_json, dir = ...

local names -- chunk_names.lua: whole paths in messages

local function run(name, ...)
  local path = dir .. "/" .. name
  if names then names.remember(path) end
  -- The build's bytecode of the file (no parse: about half of a cold boot), else the text.
  local compiled = raw.read_compiled(path)
  local chunk = compiled and load(compiled, "@" .. path, "b")
  if not chunk then
    local src, err = raw.read_source(path)
    if not src then error(err, 0) end
    chunk = assert(load(src, "@" .. path, "t"))
  end
  return chunk(...)
end

names = run("chunk_names.lua")
names.remember(dir .. "/chunk_names.lua")
local json = run("json.lua", raw)
local config = json.decode(config_json)
-- Every wasm instance starts from the same bytes: seed each state from the host, or all slots share one sequence.
math.randomseed(config.seed[1], config.seed[2])

-- The host as Lua sees it: raw functions, with process specs encoded to JSON on the way out.
local host = setmetatable({
  exec = function(spec, stdin) return raw.exec(json.encode(spec), stdin) end,
}, { __index = raw })

local stdlib = run("stdlib.lua", host, names)
local req = run("require.lua", host, config, stdlib.read_chunk, names)
local extras = {
  fs = run("fs.lua", host, json), spawn = run("proc.lua", host, json), http = run("http.lua", host, json), names = names,
}
local api = run("awl.lua", host, json, req.make_require, config, extras)
stdlib.catch_whole_paths()
return api
