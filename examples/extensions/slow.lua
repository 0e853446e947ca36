-- slow: tools that take time. `timeout` (seconds) is the most a call may run; past it awl stops the handler
-- and the model gets an error result "timed out". Without `timeout`, the default applies (--tool-timeout).
awl.register_tool {
  name = "wait",
  description = "Wait the given number of seconds (in a child process), then say so.",
  parameters = {
    type = "object",
    properties = { seconds = { type = "number", description = "How long to wait" } },
    required = { "seconds" },
  },
  timeout = 3,
  run = function(args)
    os.execute("sleep " .. tonumber(args.seconds))
    return "waited " .. args.seconds .. " s"
  end,
}

awl.register_tool {
  name = "spin",
  description = "Loop forever inside pcall: shows that awl stops a runaway handler at its timeout.",
  parameters = { type = "object", properties = {} },
  timeout = 1,
  run = function()
    pcall(function()
      while true do end
    end)
    return "never reached"
  end,
}
