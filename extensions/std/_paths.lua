-- Path helpers shared by the bundled std tools (`require "_paths"`): a module, not an extension (its name starts
-- with `_`; docs/extension-api.md "Names").
local text = require "_text"
local M = {}

--- A path the model gave, as the bytes of the file it means, read exactly as awl's permission check reads it
--- (docs/permissions.md, "Paths"): `~` and `~/...` are in the home folder, and \xNN with NN from 80 to FF is that
--- byte (the tools write names that are not UTF-8 so, text.printable); no other escape means anything (`\x2e` is
--- four characters). Nothing here depends on what exists, so the check and the open cannot differ.
function M.arg(path)
  if path == "~" or path:sub(1, 2) == "~/" then
    local home = os.getenv("HOME")
    if home and home ~= "" then path = home .. path:sub(2) end
  end
  return (path:gsub("\\x([89A-Fa-f]%x)", function(h) return string.char(tonumber(h, 16)) end))
end

--- The file argument of read, write and edit as M.arg gives it; or nil and a tool error for a path no file can
--- have (empty, or holding a NUL byte).
function M.file_arg(path)
  if path == "" then return nil, awl.tool_error("path is empty: give the path of a file") end
  if path:find("\0", 1, true) then
    return nil, awl.tool_error("path " .. text.printable((path:gsub("\0", "\\0"))) .. " holds a NUL byte (\\0), which no file name can")
  end
  return M.arg(path)
end

--- The folder argument of a search or a listing: "." when absent or empty, without trailing slashes.
function M.folder_arg(path)
  if not path or path == "" then return "." end
  return M.arg((path:gsub("(.)/+$", "%1")))
end

--- `path`'s metadata, or nil and a tool error: `missing` names what is missing ("no such file: x"), `verb` what
--- could not be done ("cannot read x: ...").
function M.stat(path, missing, verb)
  if path:find("\0", 1, true) then
    return nil, awl.tool_error(verb .. " " .. text.printable((path:gsub("\0", "\\0"))) .. ": the path holds a NUL byte (\\0), which no file name can")
  end
  local info, err = awl.fs.stat(path)
  if info then return info end
  if err:find("No such file", 1, true) then return nil, awl.tool_error(missing .. ": " .. text.printable(path)) end
  return nil, awl.tool_error(verb .. " " .. text.printable(path) .. ": " .. err)
end

--- Where a write to `file` (the bytes `path` names, M.arg) really lands, when that is not what `path` says
--- plainly: behind a symlink, or outside the workspace (`..`, an absolute path). nil otherwise. The permission
--- rules decide whether such a write may happen; this only makes the result say what happened.
function M.landing(path, file, ctx, was_link)
  local real = awl.fs.real_path(file)
  if not real then return nil end
  local root = awl.fs.real_path(ctx.workspace) or ctx.workspace
  local inside = real == root or real:sub(1, #root + 1) == root .. "/"
  if was_link then return "a symlink to " .. text.printable(real) .. (inside and "" or ", outside the workspace") end
  if not inside then return (real == path and "" or text.printable(real) .. ", ") .. "outside the workspace" end
end

return M
