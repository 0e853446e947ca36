-- std.write: the `write` tool. Creates or overwrites a file atomically (old content or new, never a mix),
-- parent folders created, an existing file's mode kept. Bundled with awl (docs/std-tools.md).
local function count_lines(text)
  if text == "" then return 0 end
  local _, n = text:gsub("\n", "")
  return text:sub(-1) == "\n" and n or n + 1
end

local function size_text(n)
  if n < 1024 then return n .. " B" end
  if n < 1024 * 1024 then return string.format("%.1f KB", n / 1024) end
  return string.format("%.1f MB", n / 1024 / 1024)
end

awl.register_tool {
  name = "write",
  description = "Create or overwrite a file with the given content; missing parent folders are created. "
    .. "Read a file before overwriting it; prefer edit for changes to an existing file.",
  parameters = {
    type = "object",
    properties = {
      path = { type = "string", description = "File to write" },
      content = { type = "string", description = "The whole new content" },
    },
    required = { "path", "content" },
  },
  kinds = { "write" },
  parallel = false,
  run = function(args, ctx)
    local path, content = args.path, args.content
    ctx:title(path)
    local info = awl.fs.stat(path)
    if info and info.type == "directory" then return awl.tool_error(path .. " is a directory; give a file path") end
    if info and info.type ~= "file" then
      return awl.tool_error(path .. " is a " .. info.type:gsub("_", " ") .. ", not a regular file; write only writes files")
    end
    local ok, created_or_err = awl.fs.write_text(path, content)
    if not ok then return awl.tool_error("cannot write " .. path .. ": " .. created_or_err) end
    local n = count_lines(content)
    local lines = n .. (n == 1 and " line" or " lines")
    local what = created_or_err and "Created" or "Overwrote"
    local summary = string.format("%s, %s (%s)", created_or_err and "created" or "overwritten", lines, size_text(#content))
    ctx:show { path = path, summary = summary }
    return { content = string.format("%s %s: %s (%s)", what, path, lines, size_text(#content)), summary = summary }
  end,
  render = function(state) return state.summary end,
}
