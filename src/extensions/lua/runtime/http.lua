-- awl.http (docs/extension-api.md): HTTP requests performed by awl itself (Lua in WebAssembly has no sockets).
-- Every request is a `network` action the permission engine checks per host; the call's cancel aborts it.
local host, json = ...

local type, error, format, tostring, pairs, setmetatable, floor = type, error, string.format, tostring, pairs, setmetatable, math.floor

local DEFAULT_TIMEOUT_MS = 30000
local DEFAULT_MAX_BYTES = 5 * 1024 * 1024
local REDIRECTS = { follow = true, ["same-host"] = true, manual = true }
local OPTIONS = {
  method = "string", url = "string", headers = "table", timeout_ms = "number", max_bytes = "number",
  redirect = "string", spill = "boolean", cache = "boolean",
}

local RESPONSE = {}
RESPONSE.__index = RESPONSE

--- The body decoded as JSON; nil and why when it is not JSON.
function RESPONSE:json()
  local ok, value = pcall(json.decode, self.body)
  if ok then return value end
  return nil, format("the response from %s is not JSON: %s", self.url, tostring(value))
end

local http = {}

local function check(where, spec)
  if type(spec) ~= "table" then error(format("bad argument #1 to '%s' (table expected, got %s)", where, type(spec)), 3) end
  for key, want in pairs(OPTIONS) do
    if spec[key] ~= nil and type(spec[key]) ~= want then
      error(format("bad option '%s' to '%s' (%s expected, got %s)", key, where, want, type(spec[key])), 3)
    end
  end
  if type(spec.url) ~= "string" then error(format("'%s' needs a url, e.g. { url = 'https://example.com' }", where), 3) end
  if spec.redirect ~= nil and not REDIRECTS[spec.redirect] then
    error(format("bad option 'redirect' to '%s' (\"follow\", \"same-host\" or \"manual\", got %q)", where, spec.redirect), 3)
  end
end

local function request(where, spec)
  check(where, spec)
  local headers = {}
  for name, value in pairs(spec.headers or {}) do
    if type(name) ~= "string" or (type(value) ~= "string" and type(value) ~= "number") then
      error(format("bad header to '%s' (names and values are strings, got %s = %s)", where, type(name), type(value)), 3)
    end
    headers[name:lower()] = tostring(value)
  end
  local body = spec.body
  if type(body) == "table" then
    body = json.encode(body)
    headers["content-type"] = headers["content-type"] or "application/json"
  elseif body ~= nil and type(body) ~= "string" then
    error(format("bad option 'body' to '%s' (string or table expected, got %s)", where, type(body)), 3)
  end
  local timeout = spec.timeout_ms or DEFAULT_TIMEOUT_MS
  local max = spec.max_bytes or DEFAULT_MAX_BYTES
  if timeout <= 0 or max < 0 then error(format("'%s': timeout_ms must be above 0 and max_bytes not below 0", where), 3) end
  local response, message, kind = host.http_request(json.encode({
    method = spec.method or (body and "POST" or "GET"),
    url = spec.url,
    headers = json.object(headers),
    timeout_ms = floor(timeout),
    max_bytes = floor(max),
    redirect = spec.redirect or "follow",
    spill = spec.spill == true,
    cache = spec.cache == true,
  }), body)
  if not response then return nil, message, kind end
  response.ok = response.status >= 200 and response.status < 300
  return setmetatable(response, RESPONSE)
end

--- Performs a request: `awl.http.request{ url = ..., method = "GET", headers = {}, body = "..." or {table as JSON},
--- timeout_ms = 30000, max_bytes = 5 MB, redirect = "follow" | "same-host" | "manual", spill = false, cache = false }`.
--- Returns the response table, or nil, a message and a kind ("denied", "invalid", "network", "tls", "timeout",
--- "cancelled").
function http.request(spec)
  return request("awl.http.request", spec)
end

local function merged(url, opts, extra)
  local spec = {}
  for k, v in pairs(opts or {}) do spec[k] = v end
  for k, v in pairs(extra) do spec[k] = v end
  spec.url = url
  return spec
end

--- `awl.http.get(url, opts)`: a GET request.
function http.get(url, opts)
  if opts ~= nil and type(opts) ~= "table" then error("bad argument #2 to 'awl.http.get' (table expected, got " .. type(opts) .. ")", 2) end
  return request("awl.http.get", merged(url, opts, { method = "GET" }))
end

--- `awl.http.post(url, body, opts)`: a POST request; a table body is sent as JSON.
function http.post(url, body, opts)
  if opts ~= nil and type(opts) ~= "table" then error("bad argument #3 to 'awl.http.post' (table expected, got " .. type(opts) .. ")", 2) end
  return request("awl.http.post", merged(url, opts, { method = "POST", body = body }))
end

--- `awl.http.get_json(url, opts)`: GET, then the body decoded as JSON; nil, a message and a kind when the request
--- failed, the status was not 2xx, or the body is not JSON.
function http.get_json(url, opts)
  if opts ~= nil and type(opts) ~= "table" then error("bad argument #2 to 'awl.http.get_json' (table expected, got " .. type(opts) .. ")", 2) end
  local spec = merged(url, opts, { method = "GET" })
  spec.headers = spec.headers or { accept = "application/json" }
  local response, message, kind = request("awl.http.get_json", spec)
  if not response then return nil, message, kind end
  if not response.ok then return nil, format("%s answered HTTP %d", response.url, response.status), "status" end
  local value, problem = response:json()
  if problem then return nil, problem, "json" end
  return value, response
end

--- awl.web: what web tools need besides requests.
local web = {}

--- A page's main content as Markdown: `local title, markdown, is_article = awl.web.markdown(html, url)`.
function web.markdown(html, url)
  if type(html) ~= "string" then error("bad argument #1 to 'awl.web.markdown' (string expected, got " .. type(html) .. ")", 2) end
  if type(url) ~= "string" then error("bad argument #2 to 'awl.web.markdown' (string expected, got " .. type(url) .. ")", 2) end
  return host.web_markdown(html, url)
end

--- A PDF's text, page by page: `local pages = awl.web.pdf_text(bytes)` (a list of strings); nil and why when the
--- bytes are no PDF it can read (encrypted, damaged).
function web.pdf_text(data)
  if type(data) ~= "string" then error("bad argument #1 to 'awl.web.pdf_text' (string expected, got " .. type(data) .. ")", 2) end
  return host.web_pdf_text(data)
end

--- Searches the web with the backend the user set up: `local results, backend = awl.web.search(query, { count = 8 })`,
--- each result `{ title, url, snippet }`; nil and why when there is no backend, or it failed.
function web.search(query, opts)
  if type(query) ~= "string" or query == "" then error("bad argument #1 to 'awl.web.search' (a non-empty string expected)", 2) end
  if opts ~= nil and type(opts) ~= "table" then error("bad argument #2 to 'awl.web.search' (table expected, got " .. type(opts) .. ")", 2) end
  local count = opts and opts.count or 8
  if type(count) ~= "number" or count < 1 then error("bad option 'count' to 'awl.web.search' (a number of at least 1 expected)", 2) end
  return host.web_search(query, floor(count))
end

return { http = http, web = web }
