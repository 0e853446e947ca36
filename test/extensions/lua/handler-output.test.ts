// Handler output (seed: "Lua bridge output", "Crash protection"): strings, result tables, tool errors,
// wrong return values, invalid UTF-8, crashes with a traceback naming file:line; ctx and live updates.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ToolProgress } from "../../../src/tools/types.js";
import { call, contentOf, context, poolOf } from "./helpers.js";

const SOURCE = [
  /* 1 */ `local function tool(name, run) awl.register_tool{ name = name, run = run } end`,
  /* 2 */ `tool("text", function(input) return "plain " .. input.n end)`,
  /* 3 */ `tool("table", function() return { content = "body", summary = "short", details = { rows = 2, list = { 1, 2 } },`,
  /* 4 */ `  images = { { media_type = "image/png", data = "aGk=" } } } end)`,
  /* 5 */ `tool("failed", function() return { content = "no such city", is_error = true } end)`,
  /* 6 */ `tool("raised", function() error(awl.tool_error("bad input: n must be positive")) end)`,
  /* 7 */ `tool("returned_error", function() return awl.tool_error("try again") end)`,
  /* 8 */ `tool("nil", function() end)`,
  /* 9 */ `tool("number", function() return 42 end)`,
  /* 10 */ `tool("boolean", function() return true end)`,
  /* 11 */ `tool("no_content", function() return { text = "x", summary = "y" } end)`,
  /* 12 */ `tool("bad_utf8", function() return "ok \\255\\254 end" end)`,
  /* 13 */ `local function deeper(x)`,
  /* 14 */ `  error("kaboom " .. x)`,
  /* 15 */ `end`,
  /* 16 */ `tool("crash", function(input) deeper(input.n) end)`,
  /* 17 */ `tool("error_table", function() error({ code = 7 }) end)`,
  /* 18 */ `tool("ctx", function(input, ctx)`,
  /* 19 */ `  return awl.json.encode({ cwd = ctx.cwd, workspace = ctx.workspace, home = ctx.home, spill = ctx.spill_dir,`,
  /* 20 */ `    limit = ctx.result_limit, name = ctx.name, dir = ctx.dir, os = ctx.host.os, arch = ctx.host.arch,`,
  /* 21 */ `    cpus = math.type(ctx.host.cpus), node = ctx.host.node, lua = ctx.host.lua })`,
  /* 22 */ `end)`,
  /* 23 */ `tool("live", function(input, ctx)`,
  /* 24 */ `  ctx:title("Oslo"); ctx:progress(0.5, "half"); ctx:show({ phase = "fetching", items = awl.json.array() })`,
  /* 25 */ `  ctx:show({ phase = "done" }); return "finished"`,
  /* 26 */ `end)`,
  /* 27 */ `tool("number_content", function() return { content = 12 } end)`,
  /* 28 */ `awl.register_tool{ name = "drawn", run = function() return "" end,`,
  /* 29 */ `  render = function(state, view) return { state.phase .. " " .. view.width, "expand=" .. tostring(view.expand) } end,`,
  /* 30 */ `  available = function(ctx) return ctx.name == "out" end }`,
  /* 31 */ `awl.register_tool{ name = "hidden", run = function() return "" end, available = function() return false end,`,
  /* 32 */ `  render = function(state) return state.missing.field end }`,
].join("\n");

const { pool, dir } = poolOf({ out: SOURCE });
const file = join(dir, "out.lua");

describe("handler results", () => {
  it("turns a string into the content", async () => {
    expect(await call(pool, "out", "text", { n: 3 })).toEqual({ status: "result", content: "plain 3", is_error: false });
  });

  it("takes content, summary, details and images from a table", async () => {
    expect(await call(pool, "out", "table")).toEqual({
      status: "result",
      content: "body",
      is_error: false,
      summary: "short",
      details: { rows: 2, list: [1, 2] },
      images: [{ media_type: "image/png", data: "aGk=" }],
    });
    expect(await call(pool, "out", "number_content")).toEqual({ status: "result", content: "12", is_error: false });
  });

  it("makes is_error results and awl.tool_error a failure the model reads", async () => {
    expect(await call(pool, "out", "failed")).toEqual({ status: "result", content: "no such city", is_error: true });
    expect(await call(pool, "out", "raised")).toEqual({ status: "result", content: "bad input: n must be positive", is_error: true });
    expect(await call(pool, "out", "returned_error")).toEqual({ status: "result", content: "try again", is_error: true });
  });

  it("says what a handler returned when it is not a result", async () => {
    const cases: [string, RegExp][] = [
      ["nil", /the tool `nil` returned nothing \(nil\); a handler must return a string or a table/],
      ["number", /the tool `number` returned a number \(42\)/],
      ["boolean", /the tool `boolean` returned a boolean \(true\)/],
      ["no_content", /the tool `no_content` returned a table without a `content` string \(its keys: summary, text\)/],
    ];
    for (const [tool, message] of cases) {
      const outcome = await call(pool, "out", tool);
      expect(outcome).toMatchObject({ status: "result", is_error: true });
      expect(contentOf(outcome)).toMatch(message);
    }
  });

  it("replaces invalid UTF-8 and says so", async () => {
    const outcome = await call(pool, "out", "bad_utf8");
    expect(contentOf(outcome)).toBe(
      "ok \uFFFD\uFFFD end\n[awl: the tool's output was not valid UTF-8; invalid bytes were replaced with U+FFFD]",
    );
  });
});

describe("crashes", () => {
  it("reports a Lua error with its message and a traceback naming file:line", async () => {
    const outcome = await call(pool, "out", "crash", { n: 1 });
    expect(outcome).toMatchObject({ status: "crash", extension: "out", message: `${file}:14: kaboom 1` });
    if (outcome.status !== "crash") throw new Error("unreachable");
    expect(outcome.traceback).toContain("stack traceback:");
    expect(outcome.traceback).toContain(`${file}:14: in upvalue 'deeper'`);
    expect(outcome.traceback).toContain(`${file}:16: in function <${file}:16>`);
    expect(outcome.traceback).not.toMatch(/awl\.lua|xpcall/); // awl's own frames are cut
  });

  it("reports an error value that is a table", async () => {
    const outcome = await call(pool, "out", "error_table");
    expect(outcome).toMatchObject({ status: "crash", extension: "out" });
    expect(outcome.status === "crash" && outcome.message).toBe(`{"code":7}`); // as JSON, not "table: 0x…"
  });

  it("keeps the state usable after a crash", async () => {
    await call(pool, "out", "crash", { n: 2 });
    expect(contentOf(await call(pool, "out", "text", { n: 4 }))).toBe("plain 4");
  });
});

describe("the context", () => {
  it("carries the call's values, the host and the extension", async () => {
    const ctx = context();
    const got = JSON.parse(contentOf(await call(pool, "out", "ctx")));
    expect(got).toEqual({
      cwd: ctx.cwd,
      workspace: ctx.workspace,
      home: ctx.home,
      spill: ctx.spill_dir,
      limit: ctx.result_limit,
      name: "out",
      dir,
      os: process.platform,
      arch: process.arch,
      cpus: "integer",
      node: process.version,
      lua: "Lua 5.4",
    });
  });

  it("forwards ctx:title, ctx:progress and ctx:show, and keeps the last snapshot", async () => {
    const updates: ToolProgress[] = [];
    const outcome = await call(pool, "out", "live", {}, { onProgress: (u) => updates.push(u) });
    expect(updates).toEqual([
      { kind: "title", text: "Oslo" },
      { kind: "progress", fraction: 0.5, detail: "half" },
      { kind: "show", state: { phase: "fetching", items: [] } },
      { kind: "show", state: { phase: "done" } },
    ]);
    expect(outcome).toEqual({ status: "result", content: "finished", is_error: false, snapshot: { phase: "done" } });
  });
});

describe("available and render", () => {
  const opts = { signal: new AbortController().signal, timeoutMs: 5000 };

  it("asks a tool's available(ctx); a tool without one is available", async () => {
    expect(await pool.available("out", "drawn", context(), opts)).toEqual({ available: true });
    expect(await pool.available("out", "hidden", context(), opts)).toEqual({ available: false });
    expect(await pool.available("out", "text", context(), opts)).toEqual({ available: true });
  });

  it("runs render(state, view) and joins a list of lines", async () => {
    const view = { width: 80, height: 20, expand: false };
    expect(await pool.render("out", "drawn", { phase: "done" }, view, context(), opts)).toEqual({
      status: "result",
      content: "done 80\nexpand=false",
      is_error: false,
    });
    const crashed = await pool.render("out", "hidden", {}, view, context(), opts);
    expect(crashed).toMatchObject({ status: "crash", extension: "out" });
    expect(crashed.status === "crash" && crashed.message).toMatch(/out\.lua:32: attempt to index a nil value/);
    expect(await pool.render("out", "text", {}, view, context(), opts)).toMatchObject({ status: "result", is_error: true, content: "the tool `text` has no render function" });
  });
});
