// The Lua runtime (issue 4, bench targets): warm tool-call overhead beside a plain JS function,
// 8 parallel calls that wait in a child process, two CPU-bound calls on 2 cores vs one after the
// other (beside two plain JS worker threads doing the same, measured in the same run), RSS with 4 slots x 20 extensions, and how fast a runaway handler with a 1 s timeout stops.
// Each figure is measured in its own fresh pool; medians of several runs where it makes sense.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { Worker } from "node:worker_threads";
import { fileURLToPath } from "node:url";
import { LuaPool } from "../dist/extensions/lua/pool.js";
import { median, percentile } from "./support.mjs";

const dir = mkdtempSync(join(tmpdir(), "awl-lua-bench-"));
process.on("exit", () => rmSync(dir, { recursive: true, force: true }));

const SOURCE = `
awl.register_tool("echo", { type = "object", properties = { message = { type = "string" } }, required = { "message" } },
  function(input) return input.message end)
awl.register_tool("sleep", {}, function() os.execute("sleep 0.2") return "slept" end)
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
awl.register_tool("fib", { type = "object" }, function(input) return tostring(fib(input.n)) end)
awl.register_tool("spin", {}, function() while true do end end)
`;

function extensions(count) {
  const list = [];
  for (let i = 0; i < count; i++) {
    const file = join(dir, `ext${i}.lua`);
    writeFileSync(file, SOURCE.replaceAll('register_tool("', `register_tool("t${i}_`));
    list.push({ name: `ext${i}`, file, root: dir });
  }
  return list;
}

const ctx = { cwd: dir, workspace: dir, home: dir, spill_dir: dir, result_limit: 50000 };
const opts = (timeoutMs = 60_000) => ({ signal: new AbortController().signal, timeoutMs });
const ms = (n) => `${n.toFixed(n < 1 ? 3 : 1)} ms`;
const rows = [];

/** Medians over 5 rounds of two runs of `work` one after the other and two at once; `single` is one run alone. */
async function parallelVsSequence(work) {
  const seq = [];
  const par = [];
  const single = [];
  for (let r = 0; r < 5; r++) {
    let t = performance.now();
    await work();
    single.push(performance.now() - t);
    await work();
    seq.push(performance.now() - t);
    t = performance.now();
    await Promise.all([work(), work()]);
    par.push(performance.now() - t);
  }
  return { seq: median(seq), par: median(par), single: median(single), speedup: median(seq) / median(par) };
}

const JS_FIB = `
const { parentPort } = require("node:worker_threads");
const fib = (n) => (n < 2 ? n : fib(n - 1) + fib(n - 2));
parentPort.on("message", (n) => parentPort.postMessage(fib(n)));
`;
const row = (what, figure, target, ok) => rows.push(`| ${what} | ${figure} | ${target} | ${ok ? "yes" : "**no**"} |`);

if (process.argv.includes("--rss-only")) {
  const base = process.memoryUsage().rss;
  const pool = new LuaPool({ extensions: extensions(20), maxSlots: 4 });
  await pool.load();
  // four calls at once that each wait in a child process: the pool grows to four slots
  await Promise.all(Array.from({ length: 4 }, (_, i) => pool.call(`ext${i}`, `t${i}_sleep`, "{}", ctx, opts())));
  globalThis.gc?.();
  console.log(JSON.stringify({ rss: process.memoryUsage().rss, base }));
  await pool.close();
  process.exit(0);
}

// 1. Warm call overhead: pool.call → handler entered → result back, beside a plain JS function.
{
  const pool = new LuaPool({ extensions: extensions(1), maxSlots: 1 });
  const t0 = performance.now();
  await pool.load();
  const loadMs = performance.now() - t0;
  const input = JSON.stringify({ message: "hello, world" });
  for (let i = 0; i < 300; i++) await pool.call("ext0", "t0_echo", input, ctx, opts());
  const lua = [];
  for (let i = 0; i < 2000; i++) {
    const t = performance.now();
    await pool.call("ext0", "t0_echo", input, ctx, opts());
    lua.push(performance.now() - t);
  }
  const js = [];
  const plain = async (text) => JSON.parse(text).message;
  for (let i = 0; i < 2000; i++) {
    const t = performance.now();
    await plain(input);
    js.push(performance.now() - t);
  }
  const p50 = median(lua);
  row("first slot: start worker + load 1 extension", ms(loadMs), "–", true);
  row("warm tool call p50 (p90)", `${ms(p50)} (${ms(percentile(lua, 0.9))})`, "≤ 0.3 ms", p50 <= 0.3);
  row("plain JS function, same input, p50", ms(median(js)), "baseline", true);
  await pool.close();
}

// 2. Eight parallel calls that each wait 200 ms in a child process, pool of 8 (warm).
{
  const pool = new LuaPool({ extensions: extensions(1), maxSlots: 8 });
  await pool.load();
  await Promise.all(Array.from({ length: 8 }, () => pool.call("ext0", "t0_echo", '{"message":"warm"}', ctx, opts())));
  const runs = [];
  for (let r = 0; r < 5; r++) {
    const t = performance.now();
    await Promise.all(Array.from({ length: 8 }, () => pool.call("ext0", "t0_sleep", "{}", ctx, opts())));
    runs.push(performance.now() - t);
  }
  const batch = median(runs);
  row("8 parallel calls waiting 200 ms in a child (pool of 8)", ms(batch), "≤ 300 ms", batch <= 300);
  await pool.close();
}

// 3. Two CPU-bound calls on 2 cores vs one after the other, beside the same-run baseline: two plain JS
// worker threads doing the same kind of work (sized to take as long), i.e. what the machine gives right now.
{
  const pool = new LuaPool({ extensions: extensions(1), maxSlots: 2 });
  await pool.load();
  const fib = () => pool.call("ext0", "t0_fib", '{"n":27}', ctx, opts());
  await Promise.all([fib(), fib()]);
  const lua = await parallelVsSequence(fib);

  const workers = [0, 1].map(() => new Worker(JS_FIB, { eval: true }));
  const jsFib = (worker, n) =>
    new Promise((resolve) => {
      worker.once("message", resolve);
      worker.postMessage(n);
    });
  await Promise.all(workers.map((w) => jsFib(w, 1))); // both threads started
  // The smallest JS size whose single run takes at least as long as one Lua call.
  let n = 20;
  while (n < 45) {
    const t = performance.now();
    await jsFib(workers[0], n);
    if (performance.now() - t >= lua.single) break;
    n++;
  }
  let turn = 0;
  const js = await parallelVsSequence(() => jsFib(workers[turn++ % 2], n));
  await Promise.all(workers.map((w) => w.terminate()));

  const cores = availableParallelism();
  row(
    `2 × fib(27) in Lua, in parallel vs in sequence (${cores} cores)`,
    `${ms(lua.par)} vs ${ms(lua.seq)}: ${lua.speedup.toFixed(2)}×`,
    "≥ 1.7×",
    lua.speedup >= 1.7,
  );
  row(
    `baseline, same run: 2 plain JS worker threads × fib(${n}), in parallel vs in sequence`,
    `${ms(js.par)} vs ${ms(js.seq)}: ${js.speedup.toFixed(2)}× (Lua reaches ${((lua.speedup / js.speedup) * 100).toFixed(0)}% of it)`,
    "(what the machine gives now)",
    true,
  );
  await pool.close();
}

// 4. RSS with 4 slots × 20 extensions, in a fresh process (this one has run the pools above).
{
  const child = spawnSync(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url), "--rss-only"], { encoding: "utf8" });
  const { rss, base } = JSON.parse(child.stdout);
  row(
    "RSS of a fresh process with 4 slots × 20 extensions",
    `${(rss / 1048576).toFixed(0)} MB (node alone: ${(base / 1048576).toFixed(0)} MB)`,
    "≤ 120 MB",
    rss / 1048576 <= 120,
  );
}

// 5. A runaway handler with a 1 s timeout.
{
  const pool = new LuaPool({ extensions: extensions(1), maxSlots: 1 });
  await pool.load();
  const runs = [];
  for (let r = 0; r < 3; r++) {
    const t = performance.now();
    const outcome = await pool.call("ext0", "t0_spin", "{}", ctx, opts(1000));
    if (outcome.status !== "timeout") throw new Error(`expected a timeout, got ${JSON.stringify(outcome)}`);
    runs.push(performance.now() - t);
  }
  const stop = median(runs);
  row("`while true do end` with a 1 s timeout: stopped after", ms(stop), "≤ 1100 ms", stop <= 1100);
  await pool.close();
}

console.log("## Lua runtime\n");
console.log("| measure | figure | target | met |");
console.log("| --- | --- | --- | --- |");
console.log(rows.join("\n"));
console.log();
