// Registration (SPEC §4): the seed's positional form, the table form, wallah's discover_tools form;
// file and line of each registration; load errors that name the file and line; deterministic schemas.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LuaPool } from "../../../src/extensions/lua/pool.js";
import { call, contentOf, poolOf, writeTree } from "./helpers.js";

describe("registering tools", () => {
  it("accepts the positional, table and discover_tools forms with file and line", async () => {
    const { pool, dir } = poolOf({
      forms: [
        `awl.register_tool("echo", { type = "object", properties = { message = { type = "string" } }, required = { "message" } },`,
        `  function(input) return input.message end)`,
        `awl.register_tool {`,
        `  name = "weather", description = "Look up the weather.",`,
        `  parameters = { type = "object", properties = { city = { type = "string" } }, required = { "city" } },`,
        `  run = function(args, ctx) return "sunny in " .. args.city end,`,
        `  render = function(state, view) return "x" end,`,
        `  available = function(ctx) return true end,`,
        `  parallel = false, timeout = 2.5, kinds = { "network", "read", "read" },`,
        `}`,
        `agent.on('discover_tools', function(registry)`,
        `  registry:add { name = "later", description = "from discover_tools", run = function() return "late" end }`,
        `end)`,
      ].join("\n"),
    });
    const { tools, errors } = await pool.load();
    expect(errors).toEqual([]);
    const file = join(dir, "forms.lua");
    expect(tools).toEqual([
      {
        extension: "forms", name: "echo", description: "", file, line: 1, parallel: true, kinds: ["exec"],
        has_render: false, has_available: false,
        schema: `{"properties":{"message":{"type":"string"}},"required":["message"],"type":"object"}`,
      },
      {
        extension: "forms", name: "weather", description: "Look up the weather.", file, line: 3, parallel: false,
        kinds: ["read", "network"], timeout_ms: 2500, has_render: true, has_available: true,
        schema: `{"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}`,
      },
      {
        extension: "forms", name: "later", description: "from discover_tools", file, line: 12, parallel: true, kinds: ["exec"],
        has_render: false, has_available: false, schema: `{"properties":{},"type":"object"}`,
      },
    ]);
    expect(contentOf(await call(pool, "forms", "echo", { message: "hi" }))).toBe("hi");
    expect(contentOf(await call(pool, "forms", "weather", { city: "Oslo" }))).toBe("sunny in Oslo");
    expect(contentOf(await call(pool, "forms", "later"))).toBe("late");
  });

  it("gives the same schema bytes in two separate Lua states", async () => {
    const source = `awl.register_tool{ name = "t", parameters = {
      type = "object", required = {}, properties = { z = { type = "integer", minimum = 1 }, a = { type = "array",
      items = { type = "string" }, default = awl.json.array() }, m = { type = "number", default = 1.5 } },
      additionalProperties = false }, run = function() return "" end }`;
    const first = await poolOf({ s: source }).pool.load();
    const second = await poolOf({ s: source }).pool.load();
    const expected = `{"additionalProperties":false,"properties":{"a":{"default":[],"items":{"type":"string"},"type":"array"},"m":{"default":1.5,"type":"number"},"z":{"minimum":1,"type":"integer"}},"required":[],"type":"object"}`;
    expect(first.tools[0]!.schema).toBe(expected);
    expect(second.tools[0]!.schema).toBe(expected);
  });

  it("encodes a load's schemas and registration list outside Lua (few Lua instructions per extension)", async () => {
    // Counted with the extension's own count hook, which stays set to the end of its load (the registration list
    // included): the budget bench's two tools took ≈ 6 000 instructions per extension with json.lua encoding them,
    // enough for V8 to recompile the Lua VM's loop in every cold start of 20 extensions (docs/benchmarks.md).
    const { pool } = poolOf({
      counted: `local count = 0
debug.sethook(function() count = count + 1 end, "", 1)
for _, verb in ipairs({ "get", "put" }) do
  awl.register_tool { name = "c_" .. verb, description = "Tool " .. verb .. ": does a small thing with a path and a count.",
    parameters = { type = "object", properties = { path = { type = "string", description = "A file path" }, count = { type = "integer", description = "How many" },
      flags = { type = "array", items = { type = "string" } } }, required = { "path" } },
    run = function(args) return verb .. " " .. args.path end }
end
local registered = count
awl.register_tool("count", {}, function() return registered .. " " .. count end)`,
    });
    const { tools, errors } = await pool.load();
    expect(errors).toEqual([]);
    expect(tools[0]!.schema).toBe(
      `{"properties":{"count":{"description":"How many","type":"integer"},"flags":{"items":{"type":"string"},"type":"array"},"path":{"description":"A file path","type":"string"}},"required":["path"],"type":"object"}`,
    );
    const [registered, load] = contentOf(await call(pool, "counted", "count")).split(" ").map(Number) as [number, number];
    expect(registered).toBeLessThan(1000); // two register_tool calls: 405 (3 917 when json.lua encoded the schemas)
    expect(load).toBeLessThan(1500); // to the end of the load: 719 (7 922 when json.lua encoded the list too)
  });

  it("reports bad registrations with file:line and keeps the other extensions", async () => {
    const { pool, dir } = poolOf({
      a_name: `\n awl.register_tool(42, {}, function() end)`,
      b_handler: `awl.register_tool("x", {}, "not a function")`,
      c_schema: `\n\nawl.register_tool{ name = "x", parameters = { type = "object", default = print }, run = function() end }`,
      d_field: `awl.register_tool{ name = "x", handler = function() end }`,
      e_dup: `awl.register_tool("x", {}, function() end)\nawl.register_tool("x", {}, function() end)`,
      f_syntax: `local x = = 1`,
      g_runtime: `local t = nil\nlocal v = t.field`,
      h_good: `awl.register_tool("fine", {}, function() return "still works" end)`,
      i_later: `awl.register_tool("late", {}, function() awl.register_tool("x", {}, function() end) return "" end)`,
    });
    const { tools, errors } = await pool.load();
    const byExt = Object.fromEntries(errors.map((e) => [e.extension, e]));
    const at = (ext: string, line: number) => ({ extension: ext, file: join(dir, `${ext}.lua`), line });
    expect(byExt.a_name).toMatchObject(at("a_name", 2));
    expect(byExt.a_name!.message).toMatch(/a_name\.lua:2: awl\.register_tool: `name` must be a string, got number/);
    expect(byExt.b_handler).toMatchObject(at("b_handler", 1));
    expect(byExt.b_handler!.message).toMatch(/handler of `x` must be a function, got string/);
    // A schema JSON cannot hold refuses the tool (the registry reports it), not the extension.
    expect(tools.find((t) => t.extension === "c_schema")).toMatchObject({
      name: "x",
      line: 3,
      schema_error: "cannot be sent to the model: cannot encode a function as JSON (at parameters.default)",
    });
    expect(byExt.d_field!.message).toMatch(/d_field\.lua:1: .*unknown field `handler` \(did you mean `run`\?\)/);
    expect(byExt.e_dup).toMatchObject(at("e_dup", 2));
    expect(byExt.e_dup!.message).toMatch(/tool `x` is already registered by this extension at .*e_dup\.lua:1/);
    expect(byExt.f_syntax).toMatchObject(at("f_syntax", 1));
    expect(byExt.f_syntax!.message).toMatch(/f_syntax\.lua:1: unexpected symbol near '='/);
    expect(byExt.g_runtime).toMatchObject(at("g_runtime", 2));
    expect(byExt.g_runtime!.traceback).toMatch(/g_runtime\.lua:2: in main chunk/);
    expect(Object.keys(byExt).sort()).toEqual(["a_name", "b_handler", "d_field", "e_dup", "f_syntax", "g_runtime"]);
    expect(tools.map((t) => `${t.extension}.${t.name}`)).toEqual(["c_schema.x", "h_good.fine", "i_later.late"]);
    expect(contentOf(await call(pool, "h_good", "fine"))).toBe("still works");
    const late = await call(pool, "i_later", "late");
    expect(late).toMatchObject({ status: "crash", extension: "i_later" });
    expect(late.status === "crash" && late.message).toMatch(/i_later\.lua:1: .*only be registered while the extension loads/);
  });

  it("refuses kinds that are not a list of read, write, exec, network, at the line of the call", async () => {
    const { pool } = poolOf({
      a_string: `\nawl.register_tool{ name = "x", kinds = "read", run = function() end }`,
      b_unknown: `awl.register_tool{ name = "x", kinds = { "read", "delete" }, run = function() end }`,
      c_empty: `awl.register_tool{ name = "x", kinds = {}, run = function() end }`,
      d_map: `awl.register_tool{ name = "x", kinds = { read = true }, run = function() end }`,
      e_number: `awl.register_tool{ name = "x", kinds = { 3 }, run = function() end }`,
      f_good: `awl.register_tool{ name = "ok", kinds = { "exec", "write" }, run = function() return "" end }`,
    });
    const { tools, errors } = await pool.load();
    const message = (ext: string) => errors.find((e) => e.extension === ext)?.message;
    expect(message("a_string")).toMatch(/a_string\.lua:2: awl\.register_tool: `kinds` must be a list such as \{ "read" \}, got string/);
    expect(message("b_unknown")).toMatch(/b_unknown\.lua:1: .*`kinds\[2\]` is "delete"; a kind is one of read, write, exec, network/);
    expect(message("c_empty")).toMatch(/c_empty\.lua:1: .*`kinds` is empty/);
    expect(message("d_map")).toMatch(/d_map\.lua:1: .*`kinds` must be a list .*not a table with the key read/);
    expect(message("e_number")).toMatch(/`kinds\[1\]` is a number; a kind is one of/);
    expect(tools).toMatchObject([{ extension: "f_good", name: "ok", kinds: ["write", "exec"] }]);
  });

  it("registers slash commands apart from tools, and refuses bad ones at the line of the call", async () => {
    const { pool } = poolOf({
      a_field: `\nawl.register_command{ name = "x", run = function() end }`,
      b_name: `awl.register_command{ name = "Two Words", handler = function() end }`,
      c_handler: `awl.register_command{ name = "x" }`,
      d_dup: `awl.register_command{ name = "x", handler = function() end }\nawl.register_command{ name = "x", handler = function() end }`,
      e_good: `awl.register_tool("t", {}, function() return "tool" end)
awl.register_command{ name = "greet", description = "says hi", handler = function(args) return "hi " .. args end }
awl.register_command{ name = "bad", handler = function() return true end }`,
    });
    const { tools, errors } = await pool.load();
    const message = (ext: string) => errors.find((e) => e.extension === ext)?.message;
    expect(message("a_field")).toMatch(/a_field\.lua:2: awl\.register_command: unknown field `run` \(did you mean `handler`\?\)/);
    expect(message("b_name")).toMatch(/b_name\.lua:1: .*"Two Words" is not a command name/);
    expect(message("c_handler")).toMatch(/c_handler\.lua:1: .*command `x` has no `handler` function/);
    expect(message("d_dup")).toMatch(/d_dup\.lua:2: .*command `x` is already registered by this extension at .*d_dup\.lua:1/);
    expect(tools.map((t) => [t.name, t.command === true])).toEqual([["t", false], ["/greet", true], ["/bad", true]]);
    expect(tools[1]).toMatchObject({ description: "says hi", line: 2 });
    expect(contentOf(await call(pool, "e_good", "/greet", { args: "there" }))).toBe("hi there");
    expect(await call(pool, "e_good", "/bad", { args: "" })).toMatchObject({ status: "result", is_error: true, content: expect.stringContaining("the command `bad` returned a boolean") });
  });

  it("refuses a file over the size cap and an unreadable file, clearly", async () => {
    const dir = writeTree({ "ok.lua": `awl.register_tool("ok", {}, function() return "ok" end)` });
    const { writeFileSync, chmodSync } = await import("node:fs");
    const big = join(dir, "big.lua");
    writeFileSync(big, "-- " + "x".repeat(11 * 1024 * 1024));
    const locked = join(dir, "locked.lua");
    writeFileSync(locked, "return 1");
    chmodSync(locked, 0o000);
    const pool = new LuaPool({
      extensions: [
        { name: "big", file: big, root: dir },
        { name: "locked", file: locked, root: dir },
        { name: "missing", file: join(dir, "missing.lua"), root: dir },
        { name: "ok", file: join(dir, "ok.lua"), root: dir },
      ],
      maxSlots: 1,
    });
    try {
      const { tools, errors } = await pool.load();
      expect(errors.find((e) => e.extension === "big")!.message).toMatch(/big\.lua is 11\.0 MB; awl loads Lua files up to 10\.0 MB/);
      if (process.getuid?.() !== 0) {
        expect(errors.find((e) => e.extension === "locked")!.message).toMatch(/cannot read .*locked\.lua: Permission denied/);
      }
      expect(errors.find((e) => e.extension === "missing")!.message).toMatch(/cannot read .*missing\.lua: No such file or directory/);
      expect(tools.map((t) => t.name)).toEqual(["ok"]);
    } finally {
      await pool.close();
    }
  });
});
