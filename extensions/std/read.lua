-- std.read: the `read` tool. A text file with line numbers, paged by offset/limit, long lines cut; images
-- returned as images. Bundled with awl, written against the public Lua API only (docs/std-tools.md).
local MAX_LINES, MAX_BYTES, MAX_LINE = 2000, 40 * 1024, 2000
local MAX_IMAGE_BYTES = 5 * 1024 * 1024
local text_util = require "_text"
local paths = require "_paths"

local IMAGE_TYPES = {
  { magic = "\137PNG\r\n\26\n", type = "image/png" },
  { magic = "\255\216\255", type = "image/jpeg" },
  { magic = "GIF87a", type = "image/gif" },
  { magic = "GIF89a", type = "image/gif" },
}

local function image_type(head)
  for _, t in ipairs(IMAGE_TYPES) do
    if head:sub(1, #t.magic) == t.magic then return t.type end
  end
  if head:sub(1, 4) == "RIFF" and head:sub(9, 12) == "WEBP" then return "image/webp" end
end

local CUT_MARK = " … [line cut at " .. MAX_LINE .. " characters]"

-- `line` cut after MAX_LINE characters (UTF-8 sequences, or single bytes where it is not UTF-8), with CUT_MARK.
local function cut_line(line)
  if #line <= MAX_LINE then return line end
  local after = MAX_LINE + 1
  if utf8.len(line) then after = utf8.offset(line, MAX_LINE + 1) end
  if not after or after > #line then return line end
  return line:sub(1, after - 1) .. CUT_MARK
end

local function read_image(file, path, info, media_type)
  if info.size > MAX_IMAGE_BYTES then
    return awl.tool_error(string.format("%s is an image of %s, over the %s read returns; read a smaller copy (scale it down with bash first)",
      path, text_util.size(info.size), text_util.size(MAX_IMAGE_BYTES)))
  end
  local f, err = io.open(file, "rb")
  if not f then return awl.tool_error("cannot read " .. path .. ": " .. err) end
  local bytes = f:read("a")
  f:close()
  return {
    content = string.format("%s: %s, %s", path, media_type, text_util.size(#bytes)),
    images = { { media_type = media_type, data = awl.base64.encode(bytes) } },
    summary = media_type .. ", " .. text_util.size(#bytes),
  }
end

awl.register_tool {
  name = "read",
  description = "Read a file. Text comes with line numbers, at most " .. MAX_LINES .. " lines or 40 KB per call "
    .. "(longer lines cut); page with offset and limit. Images (png, jpeg, gif, webp) come back as images.",
  parameters = {
    type = "object",
    properties = {
      path = { type = "string", description = "File to read" },
      offset = { type = "integer", minimum = 1, description = "First line, 1-based" },
      limit = { type = "integer", minimum = 1, description = "Most lines" },
    },
    required = { "path" },
  },
  kinds = { "read" },
  run = function(args, ctx)
    local budget = text_util.budget(ctx, MAX_BYTES)
    -- `path` as the model wrote it (in messages), `file` the bytes it names (paths.arg).
    local path = args.path
    ctx:title(path)
    local file, bad = paths.file_arg(path)
    if not file then return bad end
    local info, err = paths.stat(file, "no such file", "cannot read")
    if not info then return err end
    if info.type == "directory" then return awl.tool_error(path .. " is a directory; use ls to list it") end
    if info.type ~= "file" then
      return awl.tool_error(path .. " is a " .. info.type:gsub("_", " ") .. ", not a regular file; read only reads files")
    end
    local f = io.open(file, "rb")
    local head = f and f:read(16) or ""
    if f then f:close() end
    local media_type = image_type(head)
    if media_type then return read_image(file, path, info, media_type) end

    local offset = args.offset or 1
    local limit = math.min(args.limit or MAX_LINES, MAX_LINES)
    -- Lines come cut past MAX_LINE characters of 4 bytes (so the cut below still shows): a file that is one 2 GB
    -- line costs no more.
    local text, meta = awl.fs.read_text(file, { offset = offset, limit = limit, max_line = MAX_LINE * 4 + 4 })
    if not text then return awl.tool_error("cannot read " .. path .. ": " .. meta) end
    if meta.binary then
      return awl.tool_error(string.format("%s is a binary file (%s); read shows text files and images (png, jpeg, gif, webp)", path, text_util.size(info.size)))
    end
    if meta.total_lines == 0 then return { content = "(empty file)", summary = "empty" } end
    if text == "" then
      return awl.tool_error(string.format("offset %d is past the end of %s (%d lines)", offset, path, meta.total_lines or 0))
    end
    local out, bytes, n, pos = {}, 0, offset - 1, 1
    local cut_at
    while pos <= #text do
      local nl = text:find("\n", pos, true)
      local line = text:sub(pos, (nl or #text + 1) - 1)
      pos = (nl or #text) + 1
      if line:sub(-1) == "\r" then line = line:sub(1, -2) end
      local numbered = (n + 1) .. "\t" .. cut_line(line)
      bytes = bytes + #numbered + 1
      if bytes > budget and #out > 0 then cut_at = true; break end
      n = n + 1
      out[#out + 1] = numbered
    end
    local total = meta.total_lines
    local notice
    if cut_at or (total and n < total) or meta.more then
      local why = cut_at and " (40 KB limit)" or ""
      local of = total and (" of " .. total) or ""
      notice = string.format("[lines %d-%d%s%s; read on with offset=%d]", offset, n, of, why, n + 1)
      out[#out + 1] = notice
    end
    ctx:show { path = path, first = offset, last = n, total = total }
    return { content = table.concat(out, "\n"), summary = string.format("lines %d-%d%s", offset, n, total and (" of " .. total) or "") }
  end,
  render = function(state)
    return string.format("lines %d-%d%s", state.first, state.last, state.total and (" of " .. state.total) or "")
  end,
}
