-- std.find: the `find` tool. File names by glob, respecting .gitignore, newest first or by path, capped.
-- Bundled with awl, written against the public Lua API only (docs/std-tools.md).
local DEFAULT_LIMIT, MAX_LIMIT, MAX_BYTES = 1000, 5000, 40 * 1024
local text = require "_text"
local paths = require "_paths"

awl.register_tool {
  name = "find",
  description = "Find files by glob (e.g. '*.ts', 'src/**/*.py'); respects .gitignore, skips hidden files unless the "
    .. "pattern names them ('.github/**'). "
    .. "Newest first unless sort is path; at most " .. DEFAULT_LIMIT .. " (raise with limit).",
  parameters = {
    type = "object",
    properties = {
      pattern = { type = "string", description = "Glob; without '/' it matches names at any depth" },
      path = { type = "string", description = "Folder to search (default: the working directory)" },
      sort = { type = "string", enum = { "mtime", "path" } },
      limit = { type = "integer", minimum = 1, description = "Most results" },
    },
    required = { "pattern" },
  },
  kinds = { "read" },
  run = function(args, ctx)
    local budget = text.budget(ctx, MAX_BYTES)
    local dir = paths.folder_arg(args.path)
    ctx:title(args.pattern .. (dir ~= "." and (" in " .. dir) or ""))
    local info, err = paths.stat(dir, "no such folder", "cannot search")
    if not info then return err end
    if info.type ~= "directory" then return awl.tool_error(dir .. " is not a folder; find searches folders") end
    if args.pattern == "" then return awl.tool_error("pattern is empty: give a glob such as '*.ts' or 'src/**/*.py'") end
    local limit = math.min(args.limit or DEFAULT_LIMIT, MAX_LIMIT)
    -- Hidden files are skipped unless the pattern names one ('.env', '.github/**/*.yml').
    local hidden = (args.pattern:gsub("^%./", "")):find("^%.[^./]") or args.pattern:find("/%.[^./]")
    local entries, total, stopped = awl.fs.walk(dir, { glob = args.pattern, sort = args.sort or "mtime", limit = limit,
      hidden = hidden ~= nil })
    if not entries then return awl.tool_error("cannot search " .. dir .. ": " .. total) end
    if total == 0 then
      ctx:show { summary = "no files" }
      -- A pattern that repeats the folder (`src/**/*.ts` in src) is matched from inside it: say what was meant.
      local plain = args.pattern:gsub("^%./", "")
      local hint = ""
      if dir ~= "." and plain:sub(1, #dir + 1) == dir .. "/" then
        hint = string.format(" (the pattern is matched from inside %s: try %s)", dir, plain:sub(#dir + 2))
      end
      return { content = "No files match " .. args.pattern .. (dir ~= "." and (" in " .. dir) or "") .. "." .. hint, summary = "no files" }
    end
    local out, bytes, cut = {}, 0, false
    for _, e in ipairs(entries) do
      local path = text.printable(dir == "." and e.path or dir .. "/" .. e.path)
      bytes = bytes + #path + 1
      if bytes > budget then cut = true; break end
      out[#out + 1] = path
    end
    if #out < total then
      -- A higher limit helps only when the limit cut the list, not the 40 KB a result may fill.
      local why = stopped and " (the search stopped early)" or cut and " (the 40 KB limit)" or ""
      out[#out + 1] = string.format("[%d of %d files shown%s; narrow the pattern or path%s]", #out, total, why,
        (not cut and limit < MAX_LIMIT) and ", or raise limit" or "")
    end
    local summary = total .. (total == 1 and " file" or " files")
    ctx:show { summary = summary }
    return { content = table.concat(out, "\n"), summary = summary }
  end,
  render = function(state) return state.summary end,
}
