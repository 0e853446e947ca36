// Hot reload through the library's tool set with real Lua workers and a real watcher: a save is picked up at
// the next refresh (the agent's, before a model call), a broken save keeps the old version, a burst of saves is
// one reload, an extension writing into its own folder never reloads itself, and reload() reruns discover_tools.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LuaToolSet } from "../../src/extensions/lua-tool-set.js";
import { reloadLines, type ReloadReport } from "../../src/extensions/reload-report.js";
import { tempDir } from "../support/temp-dir.js";

let root: string;
let cwd: string;
let dir: string;
let env: NodeJS.ProcessEnv;
const open: LuaToolSet[] = [];

beforeEach(() => {
  root = tempDir("awl-hot-");
  cwd = join(root, "project");
  dir = join(cwd, ".awl", "extensions");
  mkdirSync(dir, { recursive: true });
  env = { HOME: join(root, "home"), XDG_CONFIG_HOME: join(root, "home", ".config"), XDG_CACHE_HOME: join(root, "cache"), PATH: process.env.PATH };
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
  rmSync(root, { recursive: true, force: true });
});

const tool = (name: string, answer: string) => `awl.register_tool { name = "${name}", description = "${answer}", run = function() return "${answer}" end }\n`;

async function openWatched(): Promise<{ tools: LuaToolSet; reports: ReloadReport[]; changes: () => number }> {
  const tools = await LuaToolSet.open({ cwd, env, trustProject: true, maxSlots: 2, cachePath: join(root, "cache", "tools.json"), bundledDir: false });
  open.push(tools);
  const reports: ReloadReport[] = [];
  tools.onReload((r) => reports.push(r));
  let changes = 0;
  await tools.watch({ onChange: () => changes++ });
  return { tools, reports, changes: () => changes };
}

/** Waits (generously) until the watcher has seen a change. */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const names = (tools: LuaToolSet) => tools.definitions().map((t) => t.name);
const run = async (tools: LuaToolSet, name: string) => {
  const outcome = await tools.execute({ id: "1", name, input: "{}" }, new AbortController().signal);
  return outcome.status === "result" ? outcome.content : outcome.status;
};

describe("hot reload", () => {
  it("picks up a save at the next refresh; a broken save keeps the old version with file:line; a fix is picked up", { timeout: 60_000 }, async () => {
    writeFileSync(join(dir, "a.lua"), tool("a_tool", "v1"));
    writeFileSync(join(dir, "b.lua"), tool("b_tool", "b"));
    const { tools, reports, changes } = await openWatched();
    expect(names(tools)).toEqual(["a_tool", "b_tool"]);
    expect(await run(tools, "a_tool")).toBe("v1");

    writeFileSync(join(dir, "a.lua"), tool("a_tool", "v2") + tool("a_new", "new"));
    await until(() => changes() > 0, "the save was seen");
    expect(tools.hasPendingChanges).toBe(true);
    await tools.refresh();
    expect(names(tools)).toEqual(["a_new", "a_tool", "b_tool"]);
    expect(await run(tools, "a_tool")).toBe("v2");
    expect(reports.map(reloadLines)).toEqual([["reloaded a (+a_new ~a_tool)"]]);

    writeFileSync(join(dir, "a.lua"), "awl.register_tool { name = 'a_tool', run = function() return 'v3' end }\nlocal x = nil + 1\n");
    await until(() => changes() > 1, "the broken save was seen");
    await tools.refresh();
    expect(names(tools)).toEqual(["a_new", "a_tool", "b_tool"]);
    expect(await run(tools, "a_tool")).toBe("v2");
    const broken = reloadLines(reports[1]!);
    expect(broken).toHaveLength(1);
    expect(broken[0]).toContain(`extension "a" not reloaded (the previous version keeps serving): ${join(dir, "a.lua")}:2:`);
    expect(tools.problems().join("\n")).toContain(`${join(dir, "a.lua")}:2:`);
    // The same broken text is not tried again at every refresh.
    await tools.refresh();
    expect(reports).toHaveLength(2);

    writeFileSync(join(dir, "a.lua"), tool("a_tool", "v4"));
    await until(() => changes() > 2, "the fix was seen");
    await tools.refresh();
    expect(names(tools)).toEqual(["a_tool", "b_tool"]);
    expect(await run(tools, "a_tool")).toBe("v4");
    expect(tools.problems()).toEqual([]);
    expect(reloadLines(reports[2]!)).toEqual(["reloaded a (-a_new ~a_tool)"]);
  });

  it("reloads the extensions that share a `_` module when it is saved, and only those", { timeout: 60_000 }, async () => {
    const shared = (answer: string) => `return { answer = "${answer}" }\n`;
    const user = (name: string) => `local m = require "_shared"\nawl.register_tool { name = "${name}", run = function() return m.answer end }\n`;
    writeFileSync(join(dir, "_shared.lua"), shared("v1"));
    writeFileSync(join(dir, "a.lua"), user("a_tool"));
    writeFileSync(join(dir, "b.lua"), user("b_tool"));
    mkdirSync(join(dir, "other"));
    writeFileSync(join(dir, "other", "c.lua"), tool("c_tool", "c"));
    const { tools, reports, changes } = await openWatched();
    expect(names(tools)).toEqual(["a_tool", "b_tool", "c_tool"]);
    expect(await run(tools, "b_tool")).toBe("v1");
    writeFileSync(join(dir, "_shared.lua"), shared("v2"));
    await until(() => changes() > 0, "the save was seen");
    await tools.refresh();
    expect(await run(tools, "a_tool")).toBe("v2");
    expect(await run(tools, "b_tool")).toBe("v2");
    expect(reports.map(reloadLines)).toEqual([["reloaded a, b (tools unchanged)"]]);
  });

  it("sees a save made as soon as the watch is in place, while the user's folder does not exist", { timeout: 60_000 }, async () => {
    writeFileSync(join(dir, "a.lua"), tool("a_tool", "v1"));
    const { tools, changes } = await openWatched(); // no ~/.config/awl yet
    writeFileSync(join(dir, "a.lua"), tool("a_tool", "v2"));
    await until(() => changes() > 0, "the save right after the watch began was seen");
    await tools.refresh();
    expect(await run(tools, "a_tool")).toBe("v2");
  });

  it("lets a call finish when its extension's folder is deleted meanwhile; the tool is gone next time", { timeout: 60_000 }, async () => {
    const started = join(root, "started");
    const gate = join(root, "gate");
    mkdirSync(join(dir, "slow"));
    writeFileSync(
      join(dir, "slow", "init.lua"),
      `awl.register_tool { name = "slow", run = function()
  io.open(${JSON.stringify(started)}, "w"):close()
  while not io.open(${JSON.stringify(gate)}) do os.execute("sleep 0.05") end
  return "finished"
end }
${tool("other", "other")}`,
    );
    writeFileSync(join(dir, "b.lua"), tool("b_tool", "b"));
    const { tools, reports, changes } = await openWatched();
    const running = run(tools, "slow");
    await until(() => existsSync(started), "the call started");
    rmSync(join(dir, "slow"), { recursive: true });
    await until(() => changes() > 0, "the deletion was seen");
    const refreshing = tools.refresh(); // as the agent would before its next model call, here even while the call runs
    writeFileSync(gate, "");
    expect(await running).toBe("finished");
    await refreshing;
    await tools.refresh();
    expect(names(tools)).toEqual(["b_tool"]);
    expect(await run(tools, "slow")).toBe("unknown tool \"slow\": no loaded extension registers it");
    expect(reports.map(reloadLines).flat()).toEqual(["reloaded slow removed (-other -slow)"]);
  });

  it("ends with the newest version when a save comes while the previous save is still loading", { timeout: 60_000 }, async () => {
    const loading = join(root, "loading");
    const gate = join(root, "gate");
    writeFileSync(join(dir, "lazy.lua"), tool("lazy", "v1"));
    const { tools, changes } = await openWatched();
    expect(await run(tools, "lazy")).toBe("v1");
    // v2 holds its load until the gate opens; v3 is saved meanwhile.
    writeFileSync(
      join(dir, "lazy.lua"),
      `io.open(${JSON.stringify(loading)}, "w"):close()
while not io.open(${JSON.stringify(gate)}) do os.execute("sleep 0.05") end
${tool("lazy", "v2")}`,
    );
    await until(() => changes() > 0, "the first save was seen");
    const refreshing = tools.refresh();
    await until(() => existsSync(loading), "v2 is loading");
    writeFileSync(join(dir, "lazy.lua"), tool("lazy", "v3"));
    await until(() => changes() > 1, "the second save was seen");
    writeFileSync(gate, "");
    await refreshing;
    await tools.refresh(); // the agent's next model call
    expect(await run(tools, "lazy")).toBe("v3");
    expect(tools.definitions().find((t) => t.name === "lazy")?.description).toBe("v3");
  });

  it("adds and removes extensions, and a burst of 100 saves in a second gives one or two reloads", { timeout: 60_000 }, async () => {
    writeFileSync(join(dir, "a.lua"), tool("a_tool", "a"));
    const { tools, reports, changes } = await openWatched();
    for (let i = 0; i < 100; i++) {
      writeFileSync(join(dir, "storm.lua"), tool("storm", `save ${i}`));
      await new Promise((r) => setTimeout(r, 10));
    }
    await until(() => changes() > 0, "the storm was seen");
    await tools.refresh();
    await new Promise((r) => setTimeout(r, 300));
    await tools.refresh();
    expect(reports.length).toBeGreaterThanOrEqual(1);
    expect(reports.length).toBeLessThanOrEqual(2);
    expect(await run(tools, "storm")).toBe("save 99");
    rmSync(join(dir, "storm.lua"));
    await until(() => tools.hasPendingChanges, "the removal was seen");
    await tools.refresh();
    expect(names(tools)).toEqual(["a_tool"]);
    expect(reloadLines(reports.at(-1)!)).toEqual(["reloaded storm removed (-storm)"]);
  });

  it("follows an extension disabled and enabled in the config file while it runs, at the next refresh", { timeout: 60_000 }, async () => {
    writeFileSync(join(dir, "a.lua"), tool("a_tool", "a"));
    writeFileSync(join(dir, "b.lua"), tool("b_tool", "b"));
    const config = join(root, "home", ".config", "awl", "config.json");
    mkdirSync(join(config, ".."), { recursive: true });
    const { tools } = await openWatched();
    writeFileSync(config, JSON.stringify({ extensions: { b: { enabled: false } } }));
    await until(() => tools.hasPendingChanges, "the config change was seen");
    await tools.refresh();
    expect(names(tools)).toEqual(["a_tool"]);
    expect(tools.extensions().find((e) => e.name === "b")).toMatchObject({ state: "disabled", disabled_by: config });
    writeFileSync(config, JSON.stringify({ extensions: { b: { enabled: true } } }));
    await until(() => tools.hasPendingChanges, "the second config change was seen");
    await tools.refresh();
    expect(names(tools)).toEqual(["a_tool", "b_tool"]);
    expect(await run(tools, "b_tool")).toBe("b");
  });

  it("follows a config file made while it runs, when awl's config folder did not exist at the start", { timeout: 60_000 }, async () => {
    writeFileSync(join(dir, "a.lua"), tool("a_tool", "a"));
    writeFileSync(join(dir, "b.lua"), tool("b_tool", "b"));
    mkdirSync(join(root, "home", ".config"), { recursive: true }); // a new user's: ~/.config, no awl folder in it
    const { tools } = await openWatched();
    const config = join(root, "home", ".config", "awl", "config.json");
    mkdirSync(join(config, ".."));
    writeFileSync(config, JSON.stringify({ extensions: { b: { enabled: false } } }));
    await until(() => tools.hasPendingChanges, "the new config file was seen");
    await tools.refresh();
    expect(names(tools)).toEqual(["a_tool"]);
  });

  it("never reloads an extension that writes files into its own folder", { timeout: 60_000 }, async () => {
    mkdirSync(join(dir, "writer"));
    writeFileSync(
      join(dir, "writer", "init.lua"),
      `local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)")
local function write(name, text) local f = assert(io.open(here .. name, "w")); f:write(text); f:close() end
write("generated.lua", "return 1\\n")
awl.register_tool { name = "write", run = function() write("cache.txt", tostring(os.time())); write("generated.lua", "return 1\\n"); return "wrote" end }
`,
    );
    const { tools, reports } = await openWatched();
    for (let i = 0; i < 3; i++) {
      expect(await run(tools, "write")).toBe("wrote");
      await new Promise((r) => setTimeout(r, 200));
      await tools.refresh();
    }
    expect(reports).toEqual([]);
  });

  it("in an untrusted folder (the default) neither loads nor watches the folder's extensions", { timeout: 60_000 }, async () => {
    const marker = join(root, "ran");
    const marking = (name: string) => `io.open(${JSON.stringify(marker)}, "w"):close()\n${tool(name, name)}`;
    writeFileSync(join(dir, "a.lua"), marking("a_tool"));
    const user = join(env.XDG_CONFIG_HOME!, "awl", "extensions");
    mkdirSync(user, { recursive: true });
    const tools = await LuaToolSet.open({ cwd, env, maxSlots: 1, cachePath: false, bundledDir: false });
    open.push(tools);
    let changes = 0;
    await tools.watch({ onChange: () => changes++ });
    expect(names(tools)).toEqual([]);
    writeFileSync(join(dir, "b.lua"), marking("b_tool"));
    // A save the watcher does see (the user's folder) proves the watch works; the project's save is not followed.
    writeFileSync(join(user, "mine.lua"), tool("mine", "mine"));
    await until(() => changes > 0, "the user's save was seen");
    await tools.refresh();
    expect(names(tools)).toEqual(["mine"]);
    await tools.reload();
    expect(names(tools)).toEqual(["mine"]);
    expect(existsSync(marker)).toBe(false);
  });

  it("reload() runs discover_tools again and the old version's on_unload hooks", { timeout: 60_000 }, async () => {
    const mark = join(root, "marks");
    writeFileSync(mark, "");
    writeFileSync(
      join(dir, "disc.lua"),
      `awl.on_unload(function() local f = io.open(${JSON.stringify(mark)}, "a"); f:write("unload\\n"); f:close() end)
agent.on("discover_tools", function(registry)
  local f = io.open(${JSON.stringify(mark)}, "a"); f:write("discover\\n"); f:close()
  local list = io.open(${JSON.stringify(join(root, "names"))})
  for name in (list and list:read("a") or "first"):gmatch("%S+") do registry:add { name = name, run = function() return name end } end
  if list then list:close() end
end)
`,
    );
    const tools = await LuaToolSet.open({ cwd, env, trustProject: true, maxSlots: 1, cachePath: false, bundledDir: false });
    open.push(tools);
    expect(names(tools)).toEqual(["first"]);
    writeFileSync(join(root, "names"), "second third");
    const report = await tools.reload();
    expect(names(tools)).toEqual(["second", "third"]);
    expect(reloadLines(report)).toEqual(["reloaded disc (+second +third -first)"]);
    // The new version loads beside the old one first (so a broken one can be refused), then the old one's hooks run.
    expect(readFileSync(mark, "utf8")).toBe("discover\ndiscover\nunload\n");
  });
});
