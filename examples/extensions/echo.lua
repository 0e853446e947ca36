-- echo: the smallest useful tool. Copy it to .awl/extensions/ (this project) or ~/.config/awl/extensions/ (you)
-- and try it without a model:  awl tool call echo '{"message": "hi"}'
awl.register_tool {
  name = "echo",
  description = "Echo a message back, unchanged. Use it to check that tools work.",
  parameters = {
    type = "object",
    properties = {
      message = { type = "string", description = "The message to echo back" },
    },
    required = { "message" },
  },
  run = function(args, ctx)
    return args.message
  end,
}
