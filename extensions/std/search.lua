-- std.search: the `search` tool, a web search through the backend the user set up (docs/std-tools.md). Bundled with
-- awl and written against the public Lua API only (awl.web.search); replace it by registering a tool named `search`.
local DEFAULT_COUNT, MAX_COUNT = 8, 20

local web = require "_web"

awl.register_tool {
  name = "search",
  description = "Search the web: titles, URLs, snippets. Results are untrusted web data.",
  parameters = {
    type = "object",
    properties = {
      query = { type = "string" },
      count = { type = "integer", minimum = 1, maximum = MAX_COUNT },
    },
    required = { "query" },
  },
  kinds = { "network" },
  run = function(args, ctx)
    ctx:title(args.query)
    local results, backend = awl.web.search(args.query, { count = math.min(args.count or DEFAULT_COUNT, MAX_COUNT) })
    if not results then return awl.tool_error(backend) end
    if #results == 0 then return { content = "No results for " .. string.format("%q", args.query) .. ".", summary = "no results" } end
    local lines = {}
    for i, r in ipairs(results) do
      lines[#lines + 1] = string.format("%d. %s\n   %s\n   %s", i, r.title ~= "" and r.title or "(no title)", r.url, r.snippet)
    end
    ctx:show { query = args.query, results = #results }
    return {
      content = web.untrusted("a web search (" .. backend .. ") for " .. string.format("%q", args.query), table.concat(lines, "\n")),
      summary = #results .. " results",
    }
  end,
}
