-- std.todo: the `todo` tool, the model's checklist for a task of several steps (docs/std-tools.md). Each call
-- gives the whole list; the terminal shows it as the call's block and on the status line, the session keeps it
-- (the last call's input), and ACP clients get it as the session's plan. Bundled with awl and written against
-- the public Lua API only; replace it with your own by registering a tool named `todo`.
local MAX_ITEMS, MAX_TEXT = 100, 500

local MARKS = { pending = "☐", in_progress = "▶", completed = "✔" }

local function line(item)
  return MARKS[item.status] .. " " .. item.content
end

awl.register_tool {
  name = "todo",
  description = "Your checklist for a task of 3+ steps, shown to the user: send the whole list each time, one item "
    .. "in_progress, each marked completed once done.",
  parameters = {
    type = "object",
    properties = {
      todos = {
        type = "array",
        maxItems = MAX_ITEMS,
        items = {
          type = "object",
          properties = {
            content = { type = "string", minLength = 1, maxLength = MAX_TEXT },
            status = { type = "string", enum = { "pending", "in_progress", "completed" } },
          },
          required = { "content", "status" },
        },
      },
    },
    required = { "todos" },
  },
  kinds = { "read" },
  parallel = false,
  run = function(args, ctx)
    local items, done, current = args.todos, 0, nil
    local lines = {}
    for i, item in ipairs(items) do
      if item.status == "completed" then done = done + 1 end
      if item.status == "in_progress" and not current then current = item.content end
      lines[i] = line(item)
    end
    ctx:title(#items == 0 and "cleared" or string.format("%d/%d done", done, #items))
    ctx:show { lines = lines }
    if #items == 0 then return { content = "The list is empty.", summary = "cleared" } end
    local text = table.concat(lines, "\n")
    return { content = string.format("The list (%d of %d done):\n%s", done, #items, text), summary = string.format("%d/%d done", done, #items) }
  end,
  render = function(state, view)
    local out = { table.unpack(state.lines, 1, math.min(#state.lines, view.height)) }
    if #state.lines > #out then out[#out] = "… " .. (#state.lines - #out + 1) .. " more" end
    return out
  end,
}
