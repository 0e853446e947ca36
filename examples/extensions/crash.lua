-- crash: a tool with a bug. awl catches the Lua error, prints
--   the "crash" extension crashed: ...crash.lua:NN: attempt to index a nil value ...
-- with the traceback, answers the call with an error result, and stops the turn. awl itself keeps running.
--
-- Compare with a failure the model can act on: `error(awl.tool_error "...")` or `return { content = ..., is_error = true }`.
local function parse_config(text)
  local settings = nil
  return settings.verbose -- the bug: indexing nil
end

awl.register_tool {
  name = "crash",
  description = "A deliberately broken tool that crashes with a Lua error (for trying out crash reports).",
  parameters = { type = "object", properties = {} },
  run = function(args)
    return parse_config("verbose = true")
  end,
}
