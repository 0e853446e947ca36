-- std.ls: the `ls` tool, a directory listing (names, types, sizes), capped. Bundled with awl and written
-- against the public Lua API only (docs/std-tools.md); replace it with your own by registering a tool named `ls`.
local DEFAULT_LIMIT, MAX_LIMIT, MAX_BYTES = 500, 5000, 40 * 1024

local text = require "_text"
local paths = require "_paths"

local function entry_line(e)
  local name = text.printable(e.name)
  if e.type == "directory" then return name .. "/" end
  local arrow = e.link and " (symlink)" or ""
  if e.type == "file" then return name .. "  " .. text.size(e.size) .. arrow end
  if e.type == "symlink" then return name .. "  (symlink to a missing target)" end
  return name .. "  (" .. e.type:gsub("_", " ") .. ")" .. arrow
end

awl.register_tool {
  name = "ls",
  description = "List a directory: entries sorted by name, '/' after folders, file sizes, dotfiles included. "
    .. "At most " .. DEFAULT_LIMIT .. " entries (raise with limit) or 40 KB.",
  parameters = {
    type = "object",
    properties = {
      path = { type = "string", description = "Directory to list (default: the working directory)" },
      limit = { type = "integer", minimum = 1, description = "Most entries to return (default " .. DEFAULT_LIMIT .. ")" },
    },
  },
  kinds = { "read" },
  run = function(args, ctx)
    local budget = text.budget(ctx, MAX_BYTES)
    local path = paths.folder_arg(args.path)
    ctx:title(path)
    local limit = math.min(args.limit or DEFAULT_LIMIT, MAX_LIMIT)
    local info, err = paths.stat(path, "no such directory", "cannot list")
    if not info then return err end
    if info.type ~= "directory" then
      return awl.tool_error(path .. " is a " .. info.type:gsub("_", " ") .. ", not a directory; use read to see a file")
    end
    local entries, total = awl.fs.list(path, { limit = limit })
    if not entries then return awl.tool_error("cannot list " .. path .. ": " .. total) end
    if total == 0 then
      ctx:show { path = path, lines = {}, total = 0 }
      return { content = "(empty directory)", summary = "empty" }
    end
    local lines, bytes, cut = {}, 0, false
    for i, e in ipairs(entries) do
      local line = entry_line(e)
      bytes = bytes + #line + 1
      if bytes > budget then cut = true; break end
      lines[i] = line
    end
    local text = table.concat(lines, "\n")
    if #lines < total then
      -- A higher limit helps only when the limit cut the listing, not the 40 KB a result may fill.
      local room = not cut and limit < MAX_LIMIT
      text = text .. string.format("\n[%d of %d entries shown (%s); %sfind with a glob, or grep, to narrow it down]",
        #lines, total, cut and "the 40 KB limit" or ("limit=" .. limit),
        room and string.format("use limit=%d, or ", math.min(total, MAX_LIMIT)) or "use ")
    end
    ctx:show { path = path, lines = { table.unpack(lines, 1, math.min(#lines, 50)) }, total = total }
    return { content = text, summary = total .. (total == 1 and " entry" or " entries") }
  end,
  render = function(state, view)
    if #state.lines == 0 then return "(empty directory)" end
    local out = { table.unpack(state.lines, 1, math.min(#state.lines, view.height)) }
    if state.total > #out then out[#out] = "… " .. (state.total - #out + 1) .. " more entries" end
    return out
  end,
}
