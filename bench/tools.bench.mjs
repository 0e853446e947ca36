// Tools bench (issue 4 targets):
//   1. `awl -p` with 20 extensions and a one-line reply, against `node -e 0` (target ≤ +250 ms),
//      with and without the registration cache, and with no extensions for reference; a turn with one tool
//      call; and the same replies from a server that answers each request after 500 ms, like a hosted model
//      (the Lua workers start while a slow request is out, see PREWARM_AFTER_MS in src/agent/agent.ts);
//   2. RSS of the Lua pool with 4 slots × 20 extensions (target ≤ 120 MB);
//   3. tool-call overhead, warm, through the whole path the agent uses (tool_use → prepare/validate →
//      LuaToolSet.execute → worker → handler → result back), beside the same path with a plain JS function
//      (target p50 ≤ 0.3 ms).
// Run: npm run bench -- tools
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { awl, choice, loadText, median, percentile, RUNS, sse, timeNode } from "./support.mjs";
const ms = (n) => `${n.toFixed(0)} ms`;
const TARGET_MS = 250;
/** The server's delay before each answer in the "slow server" rows, like a model's time to first byte. */
const MODEL_DELAY_MS = 500;

/** 20 extensions, each registering two tools with a small schema, like a real set. */
function writeExtensions(dir, count = 20) {
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < count; i++) {
    writeFileSync(
      join(dir, `ext${String(i).padStart(2, "0")}.lua`),
      `local M = {}
for _, verb in ipairs({ "get", "put" }) do
  awl.register_tool {
    name = "ext${i}_" .. verb,
    description = "Tool " .. verb .. " of extension ${i}: does a small thing with a path and a count.",
    parameters = { type = "object", properties = {
      path = { type = "string", description = "A file path" },
      count = { type = "integer", description = "How many" },
      flags = { type = "array", items = { type = "string" } },
    }, required = { "path" } },
    run = function(args) return verb .. " " .. args.path end,
  }
end
return M
`,
    );
  }
}

/**
 * A local OpenAI-compatible server: a one-line reply, except to the prompt "call", which first gets one call
 * of the tool ext0_get (and the reply once the tool result comes back).
 */
async function startReplyServer(delayMs = 0) {
  const reply = sse(choice({ role: "assistant", content: "Hello." }), choice({}, "stop"));
  const call = sse(
    choice({ role: "assistant", tool_calls: [{ index: 0, id: "c1", type: "function", function: { name: "ext0_get", arguments: '{"path":"a.txt"}' } }] }),
    choice({}, "tool_calls"),
  );
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      const wantsCall = body.includes('"content":"call"') && !body.includes('"role":"tool"');
      setTimeout(() => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(wantsCall ? call : reply);
      }, delayMs);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

async function startupBench() {
  const root = mkdtempSync(join(tmpdir(), "awl-bench-tools-"));
  const server = await startReplyServer();
  const slowServer = await startReplyServer(MODEL_DELAY_MS);
  try {
    const home = join(root, "home");
    const withExt = join(root, "with");
    const without = join(root, "without");
    writeExtensions(join(withExt, ".awl/extensions"));
    mkdirSync(without, { recursive: true });
    mkdirSync(home, { recursive: true });
    const envFor = (url) => ({
      PATH: process.env.PATH,
      HOME: home,
      AWL_PROVIDER: "openai",
      AWL_BASE_URL: `${url}/v1`,
      AWL_API_KEY: "k",
      AWL_MODEL: "m",
    });
    const env = envFor(server.url);
    const slowEnv = envFor(slowServer.url);
    const cacheFile = join(home, ".cache/awl/extension-tools.json");
    const rows = { node: [], bare: [], cold: [], warm: [], toolTurn: [], slowReply: [], slowToolTurn: [] };
    // The project's extensions load only in a trusted folder, and a headless run denies a call that would ask
    // (docs/permissions.md): without these the 20 extensions' rows would time the bundled tools alone.
    const inProject = (prompt) => [awl, "--trust-project", "--allow", "ext0_get", "-p", prompt];
    // Warm-up of the OS file cache, then interleaved runs so drift hits every variant alike.
    await timeNode(["-e", "0"], { env });
    await timeNode(inProject("hi"), { cwd: withExt, env });
    for (let i = 0; i < RUNS; i++) {
      rows.node.push(await timeNode(["-e", "0"], { env }));
      rows.bare.push(await timeNode([awl, "-p", "hi"], { cwd: without, env }));
      rmSync(cacheFile, { force: true });
      rows.cold.push(await timeNode(inProject("hi"), { cwd: withExt, env }));
      rows.warm.push(await timeNode(inProject("hi"), { cwd: withExt, env }));
      rows.toolTurn.push(await timeNode(inProject("call"), { cwd: withExt, env }));
      rows.slowReply.push(await timeNode(inProject("hi"), { cwd: withExt, env: slowEnv }));
      rows.slowToolTurn.push(await timeNode(inProject("call"), { cwd: withExt, env: slowEnv }));
    }
    const base = median(rows.node);
    const versus = (values, waited = 0) => {
      const m = median(values);
      return { m, text: `+${ms(m - base - waited)} (${(m / base).toFixed(2)}×)` };
    };
    const line = (label, values, target) => {
      const { m, text } = versus(values);
      const verdict = target ? `≤ +${TARGET_MS} ms: ${m - base <= TARGET_MS ? "met" : "**not met**"}` : "";
      return `| ${label} | ${ms(m)} | ${text} | ${verdict} |`;
    };
    console.log(`### \`awl -p\` with a one-line reply (median of ${RUNS}; ${loadText()})\n`);
    console.log("| run | median | vs `node -e 0` (ratio) | target |\n| --- | --- | --- | --- |");
    console.log(`| \`node -e 0\` | ${ms(base)} | – | |`);
    console.log(line("awl, no extensions", rows.bare));
    console.log(line("awl, 20 extensions (40 tools), registration cache cold", rows.cold, true));
    console.log(line("awl, 20 extensions (40 tools), registration cache warm", rows.warm, true));
    console.log(line("awl, 20 extensions, cache warm, a turn with one tool call (2 requests)", rows.toolTurn));
    console.log(`\nThe same, the server answering each request after ${MODEL_DELAY_MS} ms (like a model), figures after that wait:\n`);
    console.log("| run | median | vs `node -e 0` + the server's waits |\n| --- | --- | --- |");
    console.log(`| 20 extensions, cache warm, one-line reply | ${ms(median(rows.slowReply))} | ${versus(rows.slowReply, MODEL_DELAY_MS).text.replace(/ \(.*/, "")} |`);
    console.log(`| 20 extensions, cache warm, a turn with one tool call (2 requests) | ${ms(median(rows.slowToolTurn))} | ${versus(rows.slowToolTurn, 2 * MODEL_DELAY_MS).text.replace(/ \(.*/, "")} |`);
    console.log("");
  } finally {
    await server.close();
    await slowServer.close();
    rmSync(root, { recursive: true, force: true });
  }
}

async function rssBench() {
  const { LuaPool } = await import("../dist/extensions/lua/pool.js");
  const root = mkdtempSync(join(tmpdir(), "awl-bench-rss-"));
  try {
    const dir = join(root, "ext");
    writeExtensions(dir);
    writeFileSync(
      join(dir, "wait.lua"),
      `awl.register_tool { name = "hold", description = "d", parameters = { type = "object", properties = {} },
  run = function() os.execute("sleep 0.5") return "ok" end }\n`,
    );
    globalThis.gc?.();
    const before = process.memoryUsage().rss;
    const { discoverExtensions } = await import("../dist/extensions/discover.js");
    const found = discoverExtensions([{ dir, source: "flag" }]).extensions;
    const pool = new LuaPool({ extensions: found.map((e) => ({ name: e.name, file: e.file, root: dirname(e.file) })), maxSlots: 4 });
    await pool.load();
    const ctx = { cwd: root, workspace: root, home: root, spill_dir: root, result_limit: 40000 };
    const signal = new AbortController().signal;
    // Four calls at once that each hold a slot, so the pool grows to 4.
    await Promise.all([0, 1, 2, 3].map(() => pool.call("wait", "hold", "{}", ctx, { signal, timeoutMs: 10_000 })));
    globalThis.gc?.();
    const after = process.memoryUsage().rss;
    await pool.close();
    console.log("### Memory: Lua pool with 4 slots × 21 extensions\n");
    console.log("| what | RSS |\n| --- | --- |");
    console.log(`| this process before the pool | ${(before / 1048576).toFixed(0)} MB |`);
    console.log(`| with 4 slots loaded | ${(after / 1048576).toFixed(0)} MB (pool: +${((after - before) / 1048576).toFixed(0)} MB; target ≤ 120 MB total) |`);
    console.log("");
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function overheadBench() {
  const { LuaToolSet } = await import("../dist/extensions/lua-tool-set.js");
  const { runToolBatch } = await import("../dist/agent/tool-batch.js");
  const root = mkdtempSync(join(tmpdir(), "awl-bench-call-"));
  try {
    const dir = join(root, "ext");
    mkdirSync(dir);
    writeFileSync(
      join(dir, "echo.lua"),
      `awl.register_tool { name = "echo", description = "d",
  parameters = { type = "object", properties = { message = { type = "string" } }, required = { "message" } },
  run = function(args) return args.message end }\n`,
    );
    const lua = await LuaToolSet.open({ cwd: root, env: { HOME: root }, extensionDirs: [dir], cachePath: false, bundledDir: join(root, "none") });
    const plain = {
      definitions: () => lua.definitions(),
      execute: async (call) => ({ status: "result", content: JSON.parse(call.input).message, is_error: false }),
    };
    const signal = new AbortController().signal;
    const measure = async (tools, n) => {
      const times = [];
      for (let i = 0; i < n; i++) {
        const use = { type: "tool_use", id: `c${i}`, name: "echo", input: `{"message":"hello ${i}"}` };
        const start = process.hrtime.bigint();
        const [record] = await runToolBatch([use], tools, signal, {});
        times.push(Number(process.hrtime.bigint() - start) / 1e6);
        if (record.result.content !== `hello ${i}`) throw new Error(`unexpected result ${record.result.content}`);
      }
      return times;
    };
    await measure(lua, 300);
    await measure(plain, 300);
    const luaTimes = await measure(lua, 3000);
    const plainTimes = await measure(plain, 3000);
    await lua.close();
    console.log("### Tool-call overhead, warm (3000 calls, one at a time)\n");
    console.log("Path: the model's tool_use → runToolBatch (prepare, schema check) → ToolSet.execute → result block.\n");
    console.log("| handler | p50 | p90 | p99 |\n| --- | --- | --- | --- |");
    const row = (label, t) => `| ${label} | ${median(t).toFixed(3)} ms | ${percentile(t, 0.9).toFixed(3)} ms | ${percentile(t, 0.99).toFixed(3)} ms |`;
    console.log(row("plain JS function", plainTimes));
    console.log(row("Lua echo in a worker (LuaToolSet)", luaTimes));
    console.log(`\nLua minus JS at p50: ${(median(luaTimes) - median(plainTimes)).toFixed(3)} ms (target p50 ≤ 0.3 ms).\n`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

console.log("## Tools\n");
await startupBench();
await rssBench();
await overheadBench();
