-- A module of the "text" extension: awl never loads it as an extension; init.lua requires it.
local M = {}

function M.count(text)
  local _, newlines = text:gsub("\n", "")
  local lines = newlines + ((text ~= "" and text:sub(-1) ~= "\n") and 1 or 0)
  local words = 0
  for _ in text:gmatch("%S+") do words = words + 1 end
  return { lines = lines, words = words, bytes = #text }
end

return M
