// docs/lua/awl.lua (the LuaCATS stub editors read) must declare exactly what the bridge provides.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { call, contentOf, poolOf } from "./helpers.js";

const stub = readFileSync(new URL("../../../docs/lua/awl.lua", import.meta.url), "utf8");

function declared(prefix: string): string[] {
  const names = new Set<string>();
  const escaped = prefix.replace(/[.:]/g, "\\$&");
  for (const m of stub.matchAll(new RegExp(`^function ${escaped}([a-z_]+)\\(`, "gm"))) names.add(m[1]!);
  return [...names].sort();
}

function fieldsOf(cls: string): string[] {
  const block = stub.split(`---@class ${cls}\n`)[1]!.split(/\n(?!---@field)/)[0]!;
  return [...block.matchAll(/^---@field (\w+)/gm)].map((m) => m[1]!).sort();
}

const { pool } = poolOf({
  meta: `awl.register_tool("keys", {}, function(_, ctx)
    local function keys(t) local out = {} for k in pairs(t) do out[#out + 1] = k end table.sort(out) return out end
    return awl.json.encode({ awl = keys(awl), json = keys(awl.json), fs = keys(awl.fs), base64 = keys(awl.base64), http = keys(awl.http), web = keys(awl.web), agent = keys(agent),
      ctx = keys(ctx), methods = keys(getmetatable(ctx).__index) })
  end)`,
});

const runtimeSource = readFileSync(new URL("../../../src/extensions/lua/runtime/awl.lua", import.meta.url), "utf8");

/** The keys of a `local NAME = { key = ..., ... }` table in runtime/awl.lua (what the runtime accepts). */
function runtimeTableKeys(name: string): string[] {
  const body = new RegExp(`local ${name} = \\{([^}]*)\\}`).exec(runtimeSource)![1]!;
  return [...body.matchAll(/(\w+) = /g)].map((m) => m[1]!).sort();
}

/** The fields of a result table runtime/awl.lua reads (`r.content`, `r.summary`, ... in `extras` and `shape`). */
function resultFieldsRead(): string[] {
  const body = runtimeSource.slice(runtimeSource.indexOf("local function extras("), runtimeSource.indexOf("local function find("));
  return [...new Set([...body.matchAll(/\br\.(\w+)/g)].map((m) => m[1]!))].sort();
}

describe("the LuaCATS stub", () => {
  it("declares every field register_tool, register_command, awl.capability and a result table take, and render's view", () => {
    expect(fieldsOf("awl.ToolSpec")).toEqual(runtimeTableKeys("FIELDS"));
    expect(fieldsOf("awl.Capability")).toEqual(runtimeTableKeys("CAPABILITY_FIELDS"));
    expect(fieldsOf("awl.CommandSpec")).toEqual(runtimeTableKeys("COMMAND_FIELDS"));
    // A returned awl.tool_error is read there too (its `message`, declared on awl.ToolError).
    expect(fieldsOf("awl.Result")).toEqual(resultFieldsRead().filter((f) => !fieldsOf("awl.ToolError").includes(f)));
    const view: Record<keyof import("../../../src/tools/types.js").ToolRenderView, true> = { width: true, height: true, expand: true };
    expect(fieldsOf("awl.RenderView")).toEqual(Object.keys(view).sort());
  });

  it("declares every event awl.on takes and every field a hook may return", async () => {
    const { LUA_EVENTS, RESULT_FIELDS } = await import("../../../src/hooks/events.js");
    const events = [...stub.matchAll(/^---\| "(\w+)"/gm)].map((m) => m[1]!);
    expect(events.sort()).toEqual([...LUA_EVENTS].sort());
    expect(fieldsOf("awl.HookResult")).toEqual([...new Set(Object.values(RESULT_FIELDS).flat())].sort());
  });

  it("declares every function and field of awl, awl.json, awl.fs, agent and ctx, and nothing else", async () => {
    const live = JSON.parse(contentOf(await call(pool, "meta", "keys"))) as Record<string, string[]>;
    const awlFunctions = live.awl!.filter((k) => !["version", "json", "fs", "base64", "http", "web"].includes(k));
    expect(declared("awl.")).toEqual(awlFunctions);
    expect(fieldsOf("awl")).toEqual(["base64", "fs", "http", "json", "version", "web"]);
    expect(declared("awl.http.")).toEqual(live.http);
    expect(declared("awl.web.")).toEqual(live.web);
    expect(declared("awl.fs.")).toEqual(live.fs);
    expect(declared("awl.base64.")).toEqual(live.base64);
    expect(declared("awl.json.")).toEqual(live.json!.filter((k) => k !== "null"));
    expect(fieldsOf("awl.json")).toEqual(["null"]);
    expect(declared("agent.")).toEqual(live.agent);
    expect(declared("Context:")).toEqual(live.methods!.filter((k) => k !== "__index"));
    expect(fieldsOf("awl.Context")).toEqual(live.ctx);
  });
});
