-- std.write: the `write` tool. Creates or overwrites a file atomically (old content or new, never a mix),
-- parent folders created, an existing file's mode kept. Bundled with awl (docs/std-tools.md).
local HEAD_LINES, HEAD_WIDTH = 50, 300
local text = require "_text"
local paths = require "_paths"

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
    -- `path` as the model wrote it (in messages), `file` the bytes it names (paths.arg).
    local path, content = args.path, args.content
    ctx:title(path)
    local file, bad = paths.file_arg(path)
    if not file then return bad end
    local info = awl.fs.stat(file)
    if info and info.type == "directory" then return awl.tool_error(path .. " is a directory; give a file path") end
    if info and info.type ~= "file" then
      return awl.tool_error(path .. " is a " .. info.type:gsub("_", " ") .. ", not a regular file; write only writes files")
    end
    local ok, created_or_err = awl.fs.write_text(file, content)
    if not ok then return awl.tool_error("cannot write " .. path .. ": " .. created_or_err) end
    local n = text.line_count(content)
    local lines = n .. (n == 1 and " line" or " lines")
    local what = created_or_err and "Created" or "Overwrote"
    local summary = string.format("%s, %s (%s)", created_or_err and "created" or "overwritten", lines, text.size(#content))
    local landing = paths.landing(path, file, ctx, info and info.link)
    -- The block shows the summary, then the start of what was written (HEAD_LINES at most, each cut).
    local head, at = {}, 1
    while at <= #content and #head < HEAD_LINES do
      local nl = content:find("\n", at, true) or #content + 1
      head[#head + 1] = text.cut((text.utf8_clean(content:sub(at, nl - 1)):gsub("\r$", "")), HEAD_WIDTH, " …")
      at = nl + 1
    end
    ctx:show { path = path, summary = summary, head = head, lines = n }
    return { content = string.format("%s %s%s: %s (%s)", what, path, landing and (" (" .. landing .. ")") or "", lines,
      text.size(#content)), summary = summary }
  end,
  -- The summary, then the start of the content as far as the block's height allows (expanded: what was kept).
  render = function(state, view)
    local out = { state.summary }
    local room = view.expand and HEAD_LINES or view.height - 1
    local shown = math.max(0, math.min(state.lines <= room and state.lines or room - 1, #state.head))
    for i = 1, shown do out[#out + 1] = state.head[i] end
    local left = state.lines - shown
    if left > 0 then out[#out + 1] = string.format("… %d more line%s", left, left == 1 and "" or "s") end
    return out
  end,
}
