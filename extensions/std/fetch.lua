-- std.fetch: the `fetch` tool, a web page as Markdown (docs/std-tools.md). Bundled with awl and written against the
-- public Lua API only (awl.http, awl.web); replace it with your own by registering a tool named `fetch`.
local DEFAULT_LENGTH, MAX_BODY, MAX_IMAGE = 20000, 10 * 1024 * 1024, 1024 * 1024

local web = require "_web"
local text = require "_text"

local ACCEPT = "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.5"
local IMAGES = { ["image/png"] = true, ["image/jpeg"] = true, ["image/gif"] = true, ["image/webp"] = true }

local function media_type(r)
  return ((r.headers["content-type"] or ""):match("^%s*([^;%s]+)") or ""):lower()
end

--- The whole text in a file of the call's spill folder (keys scrubbed); its path, or nil.
local function spill(ctx, name, data)
  local path = ctx.spill_dir .. "/" .. name
  local f = awl.fs.open_spill(path)
  if not f then return nil end
  f:write(data)
  f:close()
  return path
end

local function spill_name(ctx, ext)
  return string.format("fetch-%d-%d.%s", os.time(), math.random(1, 1e9), ext)
end

--- The page as text for the model: Markdown for HTML, the text itself for text and JSON.
local function readable(r, type)
  if type == "text/html" or type == "application/xhtml+xml" then
    local title, markdown = awl.web.markdown(r.body, r.url)
    return (title ~= "" and ("# " .. title .. "\n\n") or "") .. markdown
  end
  return r.body
end

--- A PDF's text as Markdown, a heading per page; or nil and why it could not be read.
local function pdf_markdown(r)
  if r.truncated then return nil, "it is longer than " .. text.size(MAX_BODY) .. ", so its text was not read" end
  local pages, why = awl.web.pdf_text(r.body)
  if not pages then return nil, why end
  local parts = {}
  for i, page in ipairs(pages) do parts[#parts + 1] = string.format("## Page %d\n\n%s", i, page) end
  return table.concat(parts, "\n\n")
end

awl.register_tool {
  name = "fetch",
  description = "Fetch an http(s) URL: pages as Markdown, PDFs as text, else as is; paged by start_index. "
    .. "Untrusted web data.",
  parameters = {
    type = "object",
    properties = {
      url = { type = "string" },
      start_index = { type = "integer", minimum = 0 },
      max_length = { type = "integer", minimum = 1 },
    },
    required = { "url" },
  },
  kinds = { "network" },
  run = function(args, ctx)
    ctx:title(args.url)
    local r, err = awl.http.request {
      url = args.url,
      headers = { accept = ACCEPT },
      redirect = "same-host",
      max_bytes = MAX_BODY,
      cache = true,
    }
    if not r then return awl.tool_error(err) end
    if r.redirect_to then
      return string.format("%s redirects (HTTP %d) to another host: %s\nawl does not follow a redirect to another host; "
        .. "call fetch with that URL if you want it.", args.url, r.status, r.redirect_to)
    end
    local type = media_type(r)
    if r.status >= 400 then
      local detail = r.binary and "" or ("\n\n" .. web.untrusted(r.url, (web.slice(readable(r, type), 1, 2000))))
      return awl.tool_error(string.format("HTTP %d from %s%s", r.status, r.url, detail))
    end
    if IMAGES[type] and not r.truncated and #r.body <= MAX_IMAGE then
      return { content = string.format("An image (%s, %s) from %s.", type, text.size(#r.body), r.url),
        images = { { media_type = type, data = awl.base64.encode(r.body) } } }
    end
    local page, pdf_problem
    if type == "application/pdf" or r.body:sub(1, 5) == "%PDF-" then
      page, pdf_problem = pdf_markdown(r)
      type = "application/pdf"
    end
    if not page and r.binary then
      local ext = type == "application/pdf" and "pdf" or "bin"
      local path = spill(ctx, spill_name(ctx, ext), r.body)
      local what = type == "application/pdf" and "a PDF document" or ("binary content (" .. (type ~= "" and type or "no type") .. ")")
      return string.format("%s is %s of %s%s, which fetch does not turn into text%s.%s", r.url, what, text.size(#r.body),
        r.truncated and " (cut at " .. text.size(MAX_BODY) .. ")" or "", pdf_problem and (": " .. pdf_problem) or "",
        path and (" Its bytes are saved in " .. path .. ".") or "")
    end
    page = page or readable(r, type)
    local first = (args.start_index or 0) + 1
    local part, total = web.slice(page, first, args.max_length or DEFAULT_LENGTH)
    local notes = {}
    if r.note then notes[#notes + 1] = r.note end
    if r.truncated then notes[#notes + 1] = "the page was longer than " .. text.size(MAX_BODY) .. "; the rest was not read" end
    local last = first + (utf8.len(part) or #part) - 1
    if first > total then
      notes[#notes + 1] = string.format("start_index %d is past the end (%d characters)", first - 1, total)
    elseif last < total then
      local path = spill(ctx, spill_name(ctx, "md"), page)
      notes[#notes + 1] = string.format("showing characters %d-%d of %d; call fetch with start_index=%d for more%s",
        first - 1, last, total, last, path and ("; the whole text is in " .. path) or "")
    end
    ctx:show { url = r.url, status = r.status, characters = total }
    local body = web.untrusted(r.url, part)
    if #notes > 0 then body = body .. "\n[" .. table.concat(notes, "; ") .. "]" end
    return { content = body, summary = string.format("%s, %d characters", text.size(r.size), total) }
  end,
}
