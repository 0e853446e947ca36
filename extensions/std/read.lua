-- std.read: the `read` tool. A text file with line numbers, paged by offset/limit, long lines cut; images
-- returned as images. Bundled with awl, written against the public Lua API only (docs/std-tools.md).
local MAX_LINES, MAX_BYTES, MAX_LINE = 2000, 40 * 1024, 2000
local MAX_IMAGE_BYTES = 5 * 1024 * 1024

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

local function size_text(n)
  if n < 1024 then return n .. " B" end
  if n < 1024 * 1024 then return string.format("%.1f KB", n / 1024) end
  return string.format("%.1f MB", n / 1024 / 1024)
end

-- Cuts a line to MAX_LINE bytes, never inside a UTF-8 sequence.
local function cut_line(line)
  if #line <= MAX_LINE then return line end
  local at = MAX_LINE
  while at > 0 and (line:byte(at + 1) or 0) >= 0x80 and (line:byte(at + 1) or 0) < 0xC0 do at = at - 1 end
  return line:sub(1, at) .. " … [line cut at " .. MAX_LINE .. " characters]"
end

local function read_image(path, info, media_type)
  if info.size > MAX_IMAGE_BYTES then
    return awl.tool_error(string.format("%s is an image of %s, over the %s read returns", path, size_text(info.size), size_text(MAX_IMAGE_BYTES)))
  end
  local f, err = io.open(path, "rb")
  if not f then return awl.tool_error("cannot read " .. path .. ": " .. err) end
  local bytes = f:read("a")
  f:close()
  return {
    content = string.format("%s: %s, %s", path, media_type, size_text(#bytes)),
    images = { { media_type = media_type, data = awl.base64.encode(bytes) } },
    summary = media_type .. ", " .. size_text(#bytes),
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
    local budget = math.min(MAX_BYTES, ctx.result_limit - 256) -- room for the notice within what the model reads
    local path = args.path
    ctx:title(path)
    local info, err = awl.fs.stat(path)
    if not info then
      if err:find("No such file", 1, true) then return awl.tool_error("no such file: " .. path) end
      return awl.tool_error("cannot read " .. path .. ": " .. err)
    end
    if info.type == "directory" then return awl.tool_error(path .. " is a directory; use ls to list it") end
    if info.type ~= "file" then
      return awl.tool_error(path .. " is a " .. info.type:gsub("_", " ") .. ", not a regular file; read only reads files")
    end
    local f = io.open(path, "rb")
    local head = f and f:read(16) or ""
    if f then f:close() end
    local media_type = image_type(head)
    if media_type then return read_image(path, info, media_type) end

    local offset = args.offset or 1
    local limit = math.min(args.limit or MAX_LINES, MAX_LINES)
    local text, meta = awl.fs.read_text(path, { offset = offset, limit = limit })
    if not text then return awl.tool_error("cannot read " .. path .. ": " .. meta) end
    if meta.binary then
      return awl.tool_error(string.format("%s is a binary file (%s); read shows text files and images (png, jpeg, gif, webp)", path, size_text(info.size)))
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
