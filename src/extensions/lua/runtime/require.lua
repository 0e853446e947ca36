-- `require` on the real file system. Global modules are searched on package.path (the user's Lua
-- directory, awl's extra directories, LUA_PATH, then the system's share/lua/5.x trees, computed by
-- the worker); each extension also gets its own `require` that looks beside the extension first,
-- with its own cache, so two extensions may each have a `helpers.lua`.
-- C modules cannot run in WebAssembly: finding one (or a well-known C module's name) is a clear error.
local host, config, read_chunk, names = ...

local format, gsub, concat = string.format, string.gsub, table.concat

package.path = config.path
package.cpath = config.cpath

local KNOWN_C = {}
for _, name in ipairs(config.known_c) do KNOWN_C[name] = true end

local function searchpath(name, path, sep, rep)
  if type(name) ~= "string" then error("bad argument #1 to 'searchpath' (string expected, got " .. type(name) .. ")", 2) end
  if type(path) ~= "string" then error("bad argument #2 to 'searchpath' (string expected, got " .. type(path) .. ")", 2) end
  sep = sep or "."
  rep = rep or "/"
  if sep ~= "" then name = gsub(name, gsub(sep, "%p", "%%%0"), (gsub(rep, "%%", "%%%%"))) end
  local safe = gsub(name, "%%", "%%%%")
  local tried = {}
  for template in string.gmatch(path, "[^;]+") do
    local file = gsub(template, "%?", safe)
    if host.is_file(file) then return file end
    tried[#tried + 1] = "no file '" .. file .. "'"
  end
  return nil, concat(tried, "\n\t") -- Lua 5.4's form: `require` adds the "\n\t" before each searcher's text
end
package.searchpath = searchpath

local function load_module(name, file, env)
  names.remember(file)
  -- The build's bytecode of a bundled module, else the text.
  local compiled = host.read_compiled(file)
  local chunk = compiled and load(compiled, "@" .. file, "b", env or _G)
  local src, err
  if not chunk then
    src, err = read_chunk(file)
    if src then chunk, err = load(src, "@" .. file, "t", env or _G) end
  end
  if not chunk then
    error(format("error loading module '%s' from file '%s':\n\t%s", name, file, err), 0)
  end
  return chunk
end

local function lua_searcher(name)
  local file, err = searchpath(name, package.path)
  if not file then return err end
  return load_module(name, file), file
end

local function c_searcher(name)
  local root = string.match(name, "^([^.]+)%.")
  local file = searchpath(name, package.cpath) or (root and searchpath(root, package.cpath))
  local why = "awl runs Lua in WebAssembly, which can load pure-Lua modules only; " ..
    "use a pure-Lua alternative, or run a program with awl.exec or io.popen"
  if file then
    error(format("module '%s' is a C module (%s): %s", name, file, why), 0)
  end
  if KNOWN_C[name] or (root and KNOWN_C[root]) then
    error(format("module '%s' is a C module: %s", name, why), 0)
  end
  return "no C module '" .. name .. "' (awl loads pure-Lua modules only)"
end

package.searchers = { package.searchers[1], lua_searcher, c_searcher }
package.loadlib = function() return nil, "awl cannot load C libraries (Lua runs in WebAssembly)", "absent" end

-- The global `require` of Lua 5.4 (package.loaded, then each searcher), but raising "not found" at the
-- level of the extension's code that called it, and listing `tried` (the extension's own paths) first.
local function require_global(name, tried)
  local value = package.loaded[name]
  if value ~= nil then return value end
  local misses = { tried }
  for _, searcher in ipairs(package.searchers) do
    local loader, extra = searcher(name)
    if type(loader) == "function" then
      local result = loader(name, extra)
      if result ~= nil then package.loaded[name] = result
      elseif package.loaded[name] == nil then package.loaded[name] = true end
      return package.loaded[name], extra
    end
    if type(loader) == "string" then misses[#misses + 1] = loader end
  end
  error(format("module '%s' not found:\n\t%s", name, concat(misses, "\n\t")), 3)
end

--- A `require` for one extension: its own directory first (own cache), then the global one.
local function make_require(root, env)
  local loaded = {}
  local path = root .. "/?.lua;" .. root .. "/?/init.lua"
  return function(name)
    if type(name) ~= "string" then error("bad argument #1 to 'require' (string expected, got " .. type(name) .. ")", 2) end
    local v = loaded[name]
    if v ~= nil then return v end
    local file, tried = searchpath(name, path)
    if not file then
      local value, extra = require_global(name, tried) -- not a tail call: the error level counts this frame
      return value, extra
    end
    local result = load_module(name, file, env)(name, file)
    if result == nil then result = true end
    loaded[name] = result
    return result, file
  end
end

return { make_require = make_require }
