// The ToolSet's own logic (discovery → pool → registry, cache head start, result shaping) over a fake pool;
// the real pool is covered by the end-to-end tests through the built CLI.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { LuaCallOptions, LuaPoolOptions, LuaToolRegistration, ToolContextData, ToolOutcome } from "../../src/extensions/lua/types.js";
import { tempDir } from "../support/temp-dir.js";

const fake = vi.hoisted(() => ({
  loads: 0,
  options: [] as LuaPoolOptions[],
  calls: [] as { extension: string; tool: string; input: string; ctx: ToolContextData; timeoutMs: number }[],
  tools: [] as LuaToolRegistration[],
  errors: [] as { extension: string; file: string; message: string }[],
  outcome: undefined as ToolOutcome | undefined,
  unavailable: {} as Record<string, string | undefined>,
  release: undefined as Promise<void> | undefined,
  closed: 0,
  quiesced: 0,
  renders: [] as { extension: string; tool: string; state: unknown; view: unknown; timeoutMs: number }[],
  renderOutcome: undefined as ToolOutcome | undefined,
}));

vi.mock("../../src/extensions/lua/pool.js", () => ({
  LuaPool: class {
    constructor(options: LuaPoolOptions) {
      fake.options.push(options);
    }
    async load() {
      fake.loads++;
      await fake.release;
      return { tools: fake.tools, errors: fake.errors };
    }
    async readyFor() {
      await fake.release; // the fake loads every extension at once: a tool is ready with the whole load
    }
    async call(extension: string, tool: string, input: string, ctx: ToolContextData, opts: LuaCallOptions): Promise<ToolOutcome> {
      fake.calls.push({ extension, tool, input, ctx, timeoutMs: opts.timeoutMs });
      return fake.outcome ?? { status: "result", content: `ran ${tool}`, is_error: false };
    }
    async render(extension: string, tool: string, state: unknown, view: unknown, _ctx: ToolContextData, opts: LuaCallOptions): Promise<ToolOutcome> {
      fake.renders.push({ extension, tool, state, view, timeoutMs: opts.timeoutMs });
      return fake.renderOutcome ?? { status: "result", content: `drawn ${tool}`, is_error: false };
    }
    async available(extension: string, tool: string) {
      const key = `${extension}/${tool}`;
      return key in fake.unavailable ? { available: false, ...(fake.unavailable[key] && { error: fake.unavailable[key] }) } : { available: true };
    }
    async close() {
      fake.closed++;
    }
    async quiesce() {
      fake.quiesced++;
    }
    abandonStart() {
      return true; // no extension code ran in the fake's workers: a prewarmed start is given up at exit
    }
    async unload() {}
  },
}));

// The threads started ahead of the pool (head-start.ts), recorded: the fake pool takes none of them.
const ahead = vi.hoisted(() => ({ started: [] as unknown[], loads: [] as LuaPoolOptions[], stops: 0, luaPath: [] as string[] }));
vi.mock("../../src/extensions/lua/head-start.js", () => ({
  startLuaThreadAhead: (options: unknown) => void ahead.started.push(options),
  bootLuaThreadAhead: () => undefined,
  loadLuaThreadAhead: (options: LuaPoolOptions) => void ahead.loads.push(options),
  stopLuaThreadsAhead: async () => void ahead.stops++,
}));
// Installed rocks' Lua folders (docs/plugins.md): what the pool's workers boot with besides awl's own.
vi.mock("../../src/plugins/parts.js", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../../src/plugins/parts.js")>()),
  pluginLuaDirs: () => ahead.luaPath,
}));

const { LuaToolSet, RENDER_TIMEOUT_MS } = await import("../../src/extensions/lua-tool-set.js");
const { SETTLED_MS } = await import("../../src/extensions/tool-cache.js");

let base: string;
let cwd: string;
let env: NodeJS.ProcessEnv;
/** Every tool set a test started (`open` starts one too): closed after it, before its folder goes. */
const started = new Set<InstanceType<typeof LuaToolSet>>();
const start = LuaToolSet.start.bind(LuaToolSet);
beforeEach(() => {
  // Unclosed, a set's late work (its spill folder, made at its first call) would write into the folder once removed.
  vi.spyOn(LuaToolSet, "start").mockImplementation(async (options) => {
    const toolSet = await start(options);
    started.add(toolSet);
    return toolSet;
  });
  base = tempDir("awl-toolset-");
  cwd = join(base, "proj");
  env = { HOME: join(base, "home") };
  Object.assign(fake, { loads: 0, options: [], calls: [], tools: [], errors: [], outcome: undefined, unavailable: {}, release: undefined, closed: 0, quiesced: 0, renders: [], renderOutcome: undefined });
  Object.assign(ahead, { started: [], loads: [], stops: 0, luaPath: [] });
});
afterEach(async () => {
  await Promise.all([...started].map((toolSet) => toolSet.close()));
  started.clear();
  vi.restoreAllMocks();
  rmSync(base, { recursive: true, force: true });
});

function extension(relative: string): string {
  const file = join(cwd, ".awl/extensions", relative);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `-- ${relative}\n`);
  return file;
}

function tool(extensionName: string, name: string, extra: Partial<LuaToolRegistration> = {}): LuaToolRegistration {
  return {
    extension: extensionName,
    name,
    description: `${name}!`,
    schema: '{"type":"object"}',
    parallel: true,
    file: join(cwd, `.awl/extensions/${extensionName}.lua`),
    line: 1,
    has_render: false,
    has_available: false,
    ...extra,
  };
}

const signal = new AbortController().signal;

/** Holds every pool load until the returned function is called. */
function holdLoads(): () => void {
  let release!: () => void;
  fake.release = new Promise((resolve) => (release = resolve));
  return release;
}

/** Whether `promise` settles within a short wait: false means it is still waiting for something. */
async function settlesSoon(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  await new Promise((resolve) => setTimeout(resolve, 20));
  return settled;
}

/** One extension ("echo", registering "say") whose registrations are cached: each `open()` after this starts warm. */
async function warmCache() {
  extension("echo.lua");
  const cachePath = join(base, "cache.json");
  fake.tools = [tool("echo", "say")];
  const open = () => LuaToolSet.open({ cwd, env, trustProject: true, cachePath, bundledDir: join(base, "none") });
  await open();
  return open;
}

describe("LuaToolSet", () => {
  it("starts no pool when there are no extensions", async () => {
    const tools = await LuaToolSet.open({ cwd, env, trustProject: true, bundledDir: join(base, "none") });
    expect(tools.definitions()).toEqual([]);
    expect(fake.options).toEqual([]);
    expect(await tools.execute({ id: "1", name: "x", input: "{}" }, signal)).toMatchObject({ is_error: true });
    // The run's spill folder, still being made when the unknown tool was answered, is made, then goes at close as it
    // holds nothing: nothing of the set's is written after close().
    await tools.close();
    expect([existsSync(dirname(tools.spillDir)), existsSync(tools.spillDir)]).toEqual([true, false]);
  });

  it("hands the pool the discovered extensions and offers their tools sorted, with the default timeout", async () => {
    const echo = extension("echo.lua");
    const dirExt = extension("dir/thing/init.lua");
    fake.tools = [tool("echo", "zz"), tool("dir.thing", "aa", { timeout_ms: 5 })];
    const tools = await LuaToolSet.open({ cwd, env, trustProject: true, cachePath: false, defaultTimeoutMs: 777, bundledDir: join(base, "none") });
    // With each entry point's text as read: every worker runs that version, even after the file changes.
    expect(fake.options[0]!.extensions).toEqual([
      { name: "dir.thing", file: dirExt, root: dirname(dirExt), source: readFileSync(dirExt) },
      { name: "echo", file: echo, root: dirname(echo), source: readFileSync(echo) },
    ]);
    expect(tools.definitions().map((t) => [t.name, t.timeout_ms])).toEqual([
      ["aa", 5],
      ["zz", 777],
    ]);
  });

  it("runs a call with the context and the tool's timeout, and spills a long result", async () => {
    extension("echo.lua");
    fake.tools = [tool("echo", "say", { timeout_ms: 1234 })];
    fake.outcome = { status: "result", content: "x".repeat(50), is_error: false, summary: "s" };
    const tools = await LuaToolSet.open({ cwd, env, trustProject: true, cachePath: false, resultLimit: 10, bundledDir: join(base, "none") });
    const outcome = await tools.execute({ id: "c1", name: "say", input: '{"a":1}' }, signal);
    const call = fake.calls[0]!;
    expect(call).toMatchObject({ extension: "echo", tool: "say", input: '{"a":1}', timeoutMs: 1234 });
    expect(call.ctx).toMatchObject({ cwd, workspace: cwd, home: join(base, "home/.local/share/awl"), result_limit: 10 });
    expect(call.ctx.spill_dir.startsWith(join(base, "home/.local/share/awl/spill/"))).toBe(true);
    const spilled = join(call.ctx.spill_dir, "say-c1.txt");
    expect(outcome).toEqual({
      status: "result",
      is_error: false,
      summary: "s",
      content: `xxxxxxxxxx\n\n[awl: output cut to the first 10 of 50 characters; the whole output is in ${spilled}]`,
    });
    expect(readFileSync(spilled, "utf8")).toBe("x".repeat(50));
  });

  it("renders a tool's block through the pool's render (never its call), time-limited; failures reject", async () => {
    extension("ext.lua");
    fake.tools = [tool("ext", "drawn", { has_render: true }), tool("ext", "plain")];
    const tools = await LuaToolSet.open({ cwd, env, trustProject: true, cachePath: false, bundledDir: join(base, "none") });
    const view = { width: 40, height: 5, expand: false };
    expect(await tools.render("drawn", { n: 1 }, view)).toBe("drawn drawn");
    expect(fake.renders).toEqual([{ extension: "ext", tool: "drawn", state: { n: 1 }, view, timeoutMs: RENDER_TIMEOUT_MS }]);
    expect(fake.calls).toEqual([]);
    // No render, or no such tool: the caller's fallback.
    expect(await tools.render("plain", {}, view)).toBeUndefined();
    expect(await tools.render("gone", {}, view)).toBeUndefined();
    expect(fake.renders).toHaveLength(1);
    fake.renderOutcome = { status: "crash", extension: "ext", message: "ext.lua:3: boom", traceback: "" };
    await expect(tools.render("drawn", {}, view)).rejects.toThrow("ext.lua:3: boom");
    fake.renderOutcome = { status: "timeout", timeout_ms: RENDER_TIMEOUT_MS };
    await expect(tools.render("drawn", {}, view)).rejects.toThrow(`ran past ${RENDER_TIMEOUT_MS} ms`);
    fake.renderOutcome = { status: "result", content: "render of `drawn` returned nil", is_error: true };
    await expect(tools.render("drawn", {}, view)).rejects.toThrow("returned nil");
  });

  it("passes crashes and timeouts through untouched", async () => {
    extension("echo.lua");
    fake.tools = [tool("echo", "say")];
    const tools = await LuaToolSet.open({ cwd, env, trustProject: true, cachePath: false, bundledDir: join(base, "none") });
    fake.outcome = { status: "crash", extension: "echo", message: "boom", traceback: "echo.lua:3" };
    expect(await tools.execute({ id: "1", name: "say", input: "{}" }, signal)).toEqual(fake.outcome);
    // Lua's debug.traceback(message) repeats the message above the stack: the report shows it once.
    fake.outcome = { status: "crash", extension: "echo", message: "e.lua:3: boom", traceback: "e.lua:3: boom\nstack traceback:\n\te.lua:3: in f" };
    expect(await tools.execute({ id: "1b", name: "say", input: "{}" }, signal)).toEqual({ ...fake.outcome, traceback: "stack traceback:\n\te.lua:3: in f" });
    fake.outcome = { status: "timeout", timeout_ms: 9 };
    expect(await tools.execute({ id: "2", name: "say", input: "{}" }, signal)).toEqual(fake.outcome);
  });

  it("reports extension states: loaded, failed (with its error), shadowed, and refused registrations", async () => {
    const good = extension("good.lua");
    const bad = extension("bad.lua");
    extension("clash.lua");
    const userClash = join(base, "home/.config/awl/extensions/clash.lua");
    mkdirSync(dirname(userClash), { recursive: true });
    writeFileSync(userClash, "-- user\n");
    fake.tools = [tool("good", "ok"), tool("good", "bad name"), tool("clash", "c")];
    fake.errors = [{ extension: "bad", file: bad, message: `${bad}:1: syntax error near 'x'` }];
    const tools = await LuaToolSet.open({ cwd, env, trustProject: true, cachePath: false, bundledDir: join(base, "none") });
    const reports = tools.extensions();
    expect(reports.map((r) => [r.name, r.state, r.source, r.tools.map((t) => t.name)])).toEqual([
      ["bad", "failed", "project", []],
      ["clash", "loaded", "project", ["c"]],
      ["clash", "shadowed", "user", []],
      ["good", "loaded", "project", ["ok"]],
    ]);
    expect(reports[0]!.errors).toEqual([`${bad}:1: syntax error near 'x'`]);
    expect(reports[2]!.shadowed_by).toBe(join(cwd, ".awl/extensions/clash.lua"));
    expect(reports[3]!.errors[0]).toContain('tool name "bad name" is not allowed');
    expect(reports[3]!.file).toBe(good);
    expect(tools.problems()).toEqual([
      `extension "bad" failed to load: ${bad}:1: syntax error near 'x'`,
      expect.stringContaining('tool name "bad name" is not allowed'),
    ]);
  });

  it("answers from the cache before Lua loads, then takes the real registrations", async () => {
    const file = extension("echo.lua");
    const cachePath = join(base, "cache.json");
    fake.tools = [tool("echo", "first")];
    const cold = await LuaToolSet.open({ cwd, env, trustProject: true, cachePath, bundledDir: join(base, "none") });
    expect(cold.definitions().map((t) => t.name)).toEqual(["first"]);

    // Warm start: the pool is slow to load; the cached tools are offered at once.
    let release!: () => void;
    fake.release = new Promise((resolve) => (release = resolve));
    fake.tools = [tool("echo", "second")];
    const warm = await LuaToolSet.open({ cwd, env, trustProject: true, cachePath, bundledDir: join(base, "none") });
    expect(warm.definitions().map((t) => t.name)).toEqual(["first"]);
    expect(fake.loads).toBe(1); // no Lua yet: the workers start at the first call (or prewarm)
    warm.prewarm("request");
    await vi.waitFor(() => expect(fake.loads).toBe(2)); // once the pool's module is loaded
    const call = warm.execute({ id: "1", name: "first", input: "{}" }, signal);
    release();
    // The real load no longer has "first": the call waited for it and says so instead of running a stale tool.
    expect(await call).toMatchObject({ status: "result", is_error: true, content: expect.stringContaining('unknown tool "first"') });
    expect(warm.definitions().map((t) => t.name)).toEqual(["second"]);
    expect(JSON.parse(readFileSync(cachePath, "utf8")).tools[0].name).toBe("second");

    // An edit to the file invalidates the cache: the next start waits for the real load.
    writeFileSync(file, "-- edited, longer than before\n");
    fake.release = undefined;
    fake.tools = [tool("echo", "third")];
    const edited = await LuaToolSet.open({ cwd, env, trustProject: true, cachePath, bundledDir: join(base, "none") });
    expect(edited.definitions().map((t) => t.name)).toEqual(["third"]);
  });

  it("an entry point rewritten to the same size with its modification time set back (cp -p, touch -r) is loaded again", async () => {
    const file = extension("echo.lua");
    const mtime = new Date("2026-01-02T03:04:05Z"); // a time the file system keeps exactly, to set again below
    utimesSync(file, mtime, mtime);
    const cachePath = join(base, "cache.json");
    const open = () => LuaToolSet.open({ cwd, env, trustProject: true, cachePath, bundledDir: join(base, "none") });
    fake.tools = [tool("echo", "say")];
    await open();
    // As if hashed long after the file was written: only the stat can tell it changed.
    const cache = JSON.parse(readFileSync(cachePath, "utf8"));
    cache.extensions[0].hashed_at = cache.extensions[0].changed_at + SETTLED_MS + 1000;
    writeFileSync(cachePath, JSON.stringify(cache));
    expect((await open()).definitions().map((t) => t.name)).toEqual(["say"]);
    expect(fake.loads).toBe(1);
    const before = statSync(file);
    writeFileSync(file, readFileSync(file, "utf8").replace("echo", "ECHO"));
    utimesSync(file, mtime, mtime);
    expect(statSync(file)).toMatchObject({ size: before.size, mtimeMs: before.mtimeMs, ino: before.ino });
    fake.tools = [tool("echo", "shout")];
    const tools = await open();
    expect(fake.loads).toBe(2);
    expect(tools.definitions().map((t) => t.name)).toEqual(["shout"]);
  });

  it("takes a cached hash on the file's stat only when the file had settled before it was hashed (else hashes again)", async () => {
    // A rewrite of the same size in the same clock tick as the hash leaves every stat field as it was: the cache
    // below says so (its stamp is the file's, its hash another content's). Hashed within SETTLED_MS of the file's
    // last change, the stat cannot vouch for it; hashed well after, it does (and the file is not read).
    const open = await warmCache();
    const cachePath = join(base, "cache.json");
    const cache = JSON.parse(readFileSync(cachePath, "utf8"));
    const entry = cache.extensions[0];
    const stale = (hashedAfterChange: number) =>
      writeFileSync(cachePath, JSON.stringify({ ...cache, extensions: [{ ...entry, hash: "0".repeat(64), hashed_at: entry.changed_at + hashedAfterChange }], tools: [tool("echo", "stale")] }));

    stale(SETTLED_MS - 1000);
    fake.tools = [tool("echo", "say")];
    expect((await open()).definitions().map((t) => t.name)).toEqual(["say"]);
    expect(fake.loads).toBe(2);

    stale(SETTLED_MS + 1000);
    expect((await open()).definitions().map((t) => t.name)).toEqual(["stale"]);
    expect(fake.loads).toBe(2);
  });

  it("writes down a hash taken again once its file has settled, so that later starts take the stat", async () => {
    // awl's own extensions, unchanged since awl was installed (more than SETTLED_MS ago).
    const bundledDir = join(import.meta.dirname, "../../extensions");
    const cachePath = join(base, "cache.json");
    const open = () => LuaToolSet.open({ cwd, env, trustProject: true, cachePath, bundledDir });
    fake.tools = [tool("std.ls", "ls")];
    await open();
    const cache = JSON.parse(readFileSync(cachePath, "utf8"));
    expect(cache.extensions.length).toBeGreaterThan(5);
    for (const entry of cache.extensions) expect(entry.hashed_at - entry.changed_at).toBeGreaterThan(SETTLED_MS);
    // As if the cache had been written right after the install: each file hashed on every start, until written down.
    const early = cache.extensions.map((entry: { changed_at: number }) => ({ ...entry, hashed_at: entry.changed_at + 1000 }));
    writeFileSync(cachePath, JSON.stringify({ ...cache, extensions: early }));
    expect((await open()).definitions().map((t) => t.name)).toEqual(["ls"]);
    expect(fake.loads).toBe(1);
    const rewritten = JSON.parse(readFileSync(cachePath, "utf8"));
    for (const entry of rewritten.extensions) expect(entry.hashed_at - entry.changed_at).toBeGreaterThan(SETTLED_MS);
    expect(rewritten.tools).toEqual(cache.tools);
  });

  it("start() returns once the load is under way without a cache; ready() says when the tools are known", async () => {
    extension("echo.lua");
    const cachePath = join(base, "cache.json");
    const release = holdLoads();
    fake.tools = [tool("echo", "say")];
    const tools = await LuaToolSet.start({ cwd, env, trustProject: true, cachePath, bundledDir: join(base, "none") });
    expect(fake.loads).toBe(1);
    expect(tools.definitions()).toEqual([]);
    expect(await settlesSoon(tools.ready())).toBe(false);
    release();
    await tools.ready();
    expect(tools.definitions().map((t) => t.name)).toEqual(["say"]);

    // With the cache matching, start() has the tools at once and starts nothing.
    const warm = await LuaToolSet.start({ cwd, env, trustProject: true, cachePath, bundledDir: join(base, "none") });
    expect(warm.definitions().map((t) => t.name)).toEqual(["say"]);
    await warm.ready();
    expect(fake.loads).toBe(1);
  });

  it("without a cache that can match, starts the worker's thread before the pool, booted as the pool's, and rewrites the cache whole", async () => {
    extension("echo.lua");
    const cachePath = join(base, "cache.json");
    fake.tools = [tool("echo", "say")];
    ahead.luaPath = [join(base, "rocks/share/lua/5.4")];
    const open = () => LuaToolSet.open({ cwd, env, trustProject: true, cachePath, bundledDir: join(base, "none") });
    const missing = await open();
    expect(missing.definitions().map((t) => t.name)).toEqual(["say"]);
    // Its boot is the pool's (the rocks' folder too) and it is sent the pool's very load: the pool's first worker takes it.
    const pool = fake.options[0]!;
    expect(ahead.started).toEqual([{ cwd: pool.cwd, env: pool.env, luaPath: ahead.luaPath }]);
    expect(ahead.loads).toHaveLength(1);
    expect(ahead.loads[0]!.extensions).toBe(pool.extensions);
    const whole = readFileSync(cachePath, "utf8");
    expect(JSON.parse(whole).tools.map((t: { name: string }) => t.name)).toEqual(["say"]);
    // Cut short, another version's: the same start, and the same cache written again (but for when it was hashed).
    const hashTimeLeftOut = (text: string) => JSON.parse(text, (key, value) => (key === "hashed_at" ? undefined : value));
    for (const bad of [whole.slice(0, whole.length >> 1), JSON.stringify({ ...JSON.parse(whole), format: 0 })]) {
      writeFileSync(cachePath, bad);
      await open();
      expect(hashTimeLeftOut(readFileSync(cachePath, "utf8"))).toEqual(hashTimeLeftOut(whole));
    }
    expect(ahead.started).toHaveLength(3);
    expect(ahead.loads).toHaveLength(3);
    // A cache that matches starts nothing.
    await open();
    expect(ahead.started).toHaveLength(3);
    expect(fake.options).toHaveLength(3);
  });

  it("closed while a start is under way (a signal), starts no Lua thread ahead of it", async () => {
    const warm = await (await warmCache())();
    ahead.started = []; // the cold start that wrote the cache started one
    await warm.prewarm(); // headless: a worker starts once a call is likely
    const prewarming = warm.prewarm("slow"); // the thread's module is still loading...
    await warm.close(); // ...when awl is stopped
    await prewarming.catch(() => undefined);
    expect(ahead.started).toEqual([]);
  });

  it("quiesce() waits for a pool still being created, and creates none", async () => {
    const open = await warmCache();
    const idle = await open();
    await idle.quiesce();
    expect(fake.options).toHaveLength(1);
    expect(fake.quiesced).toBe(0);
    const prewarmed = await open();
    prewarmed.prewarm("request");
    await prewarmed.quiesce();
    expect(fake.options).toHaveLength(2);
    expect(fake.quiesced).toBe(1);
    expect(fake.closed).toBe(0);
  });

  it("a prewarmed start given up at exit leaves the registration cache as it was (the next run still has the tools)", async () => {
    const open = await warmCache();
    const cachePath = join(base, "cache.json");
    const warm = await open();
    const release = holdLoads();
    await warm.prewarm("request");
    await warm.unload(); // awl exits: only a prewarm started the worker, so the start is given up
    fake.tools = []; // what a given-up worker reports: it loaded nothing
    release();
    await new Promise((r) => setTimeout(r, 50));
    expect(JSON.parse(readFileSync(cachePath, "utf8")).tools.map((t: { name: string }) => t.name)).toEqual(["say"]);
    expect((await open()).definitions().map((t) => t.name)).toEqual(["say"]);
  });

  it("a prewarm whose pool is still being created when awl exits starts no worker", async () => {
    const open = await warmCache();
    const warm = await open();
    void warm.prewarm("request"); // the pool's module is loading...
    await warm.unload(); // ...when the reply, which needed no tool, has ended
    await warm.quiesce();
    expect(fake.options).toHaveLength(2); // the pool exists...
    expect(fake.loads).toBe(1); // ...but never loaded: only the warm-up run's load
  });

  it("prewarm() resolves once the load is under way, not when it ends", async () => {
    const open = await warmCache();
    const warm = await open();
    const release = holdLoads();
    await warm.prewarm("request");
    expect(fake.loads).toBe(2); // the pool exists and its load started; it is still waiting for `release`
    expect(await settlesSoon(warm.loaded())).toBe(false);
    release();
    await warm.loaded();
  });

  it("creates no pool on a warm start until a call (or prewarm) needs it", async () => {
    const open = await warmCache();
    expect(fake.options).toHaveLength(1);
    const warm = await open();
    expect(warm.definitions().map((t) => t.name)).toEqual(["say"]);
    expect(fake.options).toHaveLength(1); // the pool's module is not even loaded
    expect(await warm.execute({ id: "1", name: "say", input: "{}" }, signal)).toMatchObject({ content: "ran say" });
    expect(fake.options).toHaveLength(2);
    expect(fake.loads).toBe(2);
  });

  it("prewarm() without a reason (the tools just opened) loads no extension: it only starts a Lua worker ahead", async () => {
    const open = await warmCache();
    const warm = await open();
    await warm.prewarm();
    expect(fake.options).toHaveLength(1); // no pool: no extension's code runs before a request or a call
    expect(fake.loads).toBe(1);
    await warm.quiesce(); // stops the worker no pool took
    expect(await warm.execute({ id: "1", name: "say", input: "{}" }, signal)).toMatchObject({ content: "ran say" });
    expect(fake.loads).toBe(2);
  });

  it("has the first worker load a streamed call's extension first when the cache names it, and only then", async () => {
    const warm = await (await warmCache())();
    await warm.prewarm();
    await warm.prewarm("tool_use", "say");
    expect(fake.options.at(-1)!.loadFirst).toEqual(["echo"]);
    expect(await warm.execute({ id: "1", name: "say", input: "{}" }, signal)).toMatchObject({ content: "ran say" });
    // No cache to name it (the first run), or a tool whose available(ctx) decides: everything loads at once.
    expect(fake.options[0]!.loadFirst).toBeUndefined();
    extension("gate.lua");
    fake.tools = [tool("echo", "say"), tool("gate", "maybe", { has_available: true })];
    const cachePath = join(base, "cache2.json");
    const open = () => LuaToolSet.open({ cwd, env, trustProject: true, cachePath, bundledDir: join(base, "none") });
    await open();
    const gated = await open();
    await gated.prewarm();
    await gated.prewarm("tool_use", "maybe");
    expect(fake.options.at(-1)!.loadFirst).toBeUndefined();
    await warm.unload();
    await gated.unload();
  });

  it("a run of one turn (startForCallsOnly) starts no thread while a request is slow to answer; a streamed call starts it, and its extension loads first", async () => {
    const warm = await (await warmCache())();
    ahead.started = []; // the cold start that wrote the cache started one
    await warm.prewarm(); // headless
    warm.startForCallsOnly(); // print mode
    await warm.prewarm("request");
    await warm.prewarm("slow"); // the model thinks: a reply without a call may come
    expect(ahead.started).toEqual([]);
    expect(fake.options).toHaveLength(1); // no pool either: the warm-up run's only
    await warm.prewarm("tool_use", "say"); // its name streams before its arguments
    expect(ahead.started).toHaveLength(1);
    expect(ahead.loads.at(-1)!.loadFirst).toEqual(["echo"]);
    expect(fake.options).toHaveLength(2);
    expect(await warm.execute({ id: "1", name: "say", input: "{}" }, signal)).toMatchObject({ content: "ran say" });
    await warm.unload();
    await warm.quiesce();
  });

  it("headless without startForCallsOnly (stream-json, ACP) still starts its worker while a request is slow to answer", async () => {
    const warm = await (await warmCache())();
    ahead.started = [];
    await warm.prewarm();
    await warm.prewarm("slow");
    expect(ahead.started).toHaveLength(1);
    expect(fake.options).toHaveLength(2);
    await warm.unload();
    await warm.quiesce();
  });

  it("with a worker started ahead, a request on its way loads no extension; a tool call on its way does", async () => {
    const open = await warmCache();
    const warm = await open();
    await warm.prewarm();
    await warm.prewarm("request");
    expect(fake.options).toHaveLength(1); // no pool: a reply that needs no tool ends with nothing loaded
    await warm.prewarm("tool_use");
    expect(fake.options).toHaveLength(2);
    expect(fake.loads).toBe(2);
    await warm.unload();
    await warm.quiesce();
  });

  it("closes a pool that was still being created, and creates none after close()", async () => {
    const open = await warmCache();
    const first = await open();
    first.prewarm("request"); // the pool's creation starts...
    await first.close(); // ...and close() waits for it, then closes it
    expect(fake.options).toHaveLength(2);
    expect(fake.closed).toBe(1);

    const second = await open();
    await second.close();
    second.prewarm("request");
    const outcome = await second.execute({ id: "1", name: "say", input: "{}" }, signal);
    expect(outcome).toMatchObject({ status: "result", is_error: true });
    expect(fake.options).toHaveLength(2); // no pool after close
    expect(fake.calls).toEqual([]);
  });

  it("does not offer a tool whose available(ctx) says no, says why, and remembers it in the cache", async () => {
    extension("gated.lua");
    const cachePath = join(base, "cache.json");
    fake.tools = [tool("gated", "rg", { has_available: true }), tool("gated", "plain"), tool("gated", "broken", { has_available: true })];
    fake.unavailable = { "gated/rg": undefined, "gated/broken": "gated.lua:9: attempt to call a nil value" };
    const tools = await LuaToolSet.open({ cwd, env, trustProject: true, cachePath, bundledDir: join(base, "none") });
    expect(tools.definitions().map((t) => t.name)).toEqual(["plain"]);
    expect(tools.tool("rg")).toBeDefined();
    expect(tools.unavailableReason(tools.tool("rg")!)).toBe("its available() returned false");
    expect(tools.unavailableReason(tools.tool("broken")!)).toBe("gated.lua:9: attempt to call a nil value");
    expect(await tools.execute({ id: "1", name: "rg", input: "{}" }, signal)).toEqual({
      status: "result",
      is_error: true,
      content: 'the tool "rg" is not available here: its available() returned false',
    });
    expect(fake.calls).toEqual([]);
    // A cached start offers the same tools before any Lua runs.
    const warm = await LuaToolSet.open({ cwd, env, trustProject: true, cachePath, bundledDir: join(base, "none") });
    expect(warm.definitions().map((t) => t.name)).toEqual(["plain"]);
    expect(fake.loads).toBe(1);
  });

  it("loads the bundled extensions after the project's and the user's own, whatever their names", async () => {
    extension("zz_project.lua");
    const user = join(env.HOME!, ".config/awl/extensions/zz_user.lua");
    mkdirSync(dirname(user), { recursive: true });
    writeFileSync(user, "-- user\n");
    const bundled = join(base, "bundled");
    mkdirSync(join(bundled, "std"), { recursive: true });
    writeFileSync(join(bundled, "std/aa.lua"), "-- bundled\n");
    await LuaToolSet.open({ cwd, env, trustProject: true, cachePath: false, bundledDir: bundled });
    expect(fake.options.at(-1)!.extensions.map((e) => e.name)).toEqual(["zz_project", "zz_user", "std.aa"]);
  });

  it("reports a bundled extension replaced by another, never silently", async () => {
    const mine = extension("std/read.lua");
    const bundled = join(base, "bundled");
    mkdirSync(join(bundled, "std"), { recursive: true });
    writeFileSync(join(bundled, "std/read.lua"), "-- bundled\n");
    const tools = await LuaToolSet.open({ cwd, env, trustProject: true, cachePath: false, bundledDir: bundled });
    expect(tools.problems()).toEqual([`the bundled extension "std.read" is replaced by ${mine}`]);
  });

  it("waits for the real load when asked, even with a matching cache", async () => {
    extension("echo.lua");
    const cachePath = join(base, "cache.json");
    fake.tools = [tool("echo", "one")];
    await LuaToolSet.open({ cwd, env, trustProject: true, cachePath, bundledDir: join(base, "none") });
    fake.tools = [tool("echo", "two")];
    const tools = await LuaToolSet.open({ cwd, env, trustProject: true, cachePath, waitForLoad: true, bundledDir: join(base, "none") });
    expect(tools.definitions().map((t) => t.name)).toEqual(["two"]);
    await tools.close();
    expect(fake.closed).toBe(1);
  });
});
