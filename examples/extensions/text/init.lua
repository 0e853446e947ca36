-- text: a directory extension. The folder is the extension (`text`), init.lua its entry point, and the other
-- files are its own modules, found by `require` beside it.
local helpers = require("helpers")

awl.register_tool("word_count", {
  type = "object",
  properties = { text = { type = "string", description = "The text to count" } },
  required = { "text" },
}, function(input)
  local c = helpers.count(input.text)
  return string.format("%d lines, %d words, %d bytes", c.lines, c.words, c.bytes)
end)
