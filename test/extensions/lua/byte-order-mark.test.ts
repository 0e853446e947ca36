// A leading U+FEFF (EF BB BF) is a character of the text Lua hands over, not a byte-order mark to drop: a file read
// whole keeps it in the result the model gets, and a file whose name starts with it is the file a tool opens.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { call, contentOf, poolOf } from "./helpers.js";

it("a result, a result table's content and a file name keep a leading U+FEFF", async () => {
  const { pool, dir } = poolOf({
    marked: `
      awl.register_tool("text", {}, function() return "\\239\\187\\191first line" end)
      awl.register_tool("table", {}, function() return { content = "\\239\\187\\191in a table", summary = "s" } end)
      awl.register_tool("open", {}, function(input, ctx) return awl.fs.read_text(input.path) end)
      awl.register_tool("list", {}, function(input, ctx)
        local names = {}
        for _, entry in ipairs(awl.fs.list(".")) do names[#names + 1] = entry.name end
        table.sort(names)
        return table.concat(names, ",")
      end)`,
  });
  writeFileSync(join(dir, "\uFEFFmarked.txt"), "the marked file\n");
  writeFileSync(join(dir, "marked.txt"), "the plain file\n");
  expect((await pool.load()).errors).toEqual([]);
  expect(contentOf(await call(pool, "marked", "text"))).toBe("\uFEFFfirst line");
  expect(contentOf(await call(pool, "marked", "table"))).toBe("\uFEFFin a table");
  expect(contentOf(await call(pool, "marked", "open", { path: "\uFEFFmarked.txt" }, { cwd: dir }))).toContain("the marked file");
  expect(contentOf(await call(pool, "marked", "list", {}, { cwd: dir })).split(",")).toContain("\uFEFFmarked.txt");
});
