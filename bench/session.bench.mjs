// Sessions: resume (load to a usable Conversation) of a 10 000-message session (~50 MB), and the cost of
// appending one message at message 10 and at message 10 000 (they should be equal: appends never read back).
// Baseline in the same run: JSON.parse of every line of the same file (the floor any loader pays).
// Listing: wall time of `awl sessions` with three 10 000-message sessions, cold (no summary cache) and warm,
// beside `awl --version` (the process's own start-up) in the same run.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionStore } from "../dist/index.js";
import { awl as AWL, median } from "./support.mjs";


const MESSAGES = 10_000;
const APPENDS = 300;
const LOAD_RUNS = 7;
const LIST_RUNS = 5;
/** The listing's summary cache (src/session/summary-cache.ts): removed before each cold run. */
const SUMMARY_CACHE = "summaries.cache.json";

const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const filler = (n, seed) => {
  let s = "";
  while (s.length < n) s += `${seed} the quick brown fox jumps over the lazy dog ${s.length}\n`;
  return s.slice(0, n);
};

/** A realistic turn of four messages, about 20 KB: prompt, thinking + tool call, tool output, answer. */
function turn(i) {
  return [
    { role: "user", content: [{ type: "text", text: filler(500, `prompt ${i}`) }] },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: filler(1500, "think"), signature: "sig".repeat(40) },
        { type: "tool_use", id: `toolu_${i}`, name: "read", input: JSON.stringify({ path: `src/file${i}.ts`, limit: 400 }) },
      ],
      stop_reason: "tool_use",
      stop_reason_raw: "tool_use",
      usage: { input_tokens: 1000 + i, output_tokens: 300, cache_read_input_tokens: 900 },
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${i}`, content: filler(14_500, "line") }] },
    {
      role: "assistant",
      content: [{ type: "text", text: filler(3500, "answer") }],
      stop_reason: "end_turn",
      stop_reason_raw: "end_turn",
      usage: { input_tokens: 2000 + i, output_tokens: 800 },
    },
  ];
}

function makeSession(store, count) {
  const w = store.create({ cwd: "/bench", provider: "anthropic", model: "m" });
  if (!w.ok) throw new Error(w.error.message);
  for (let i = 0; i < count / 4; i++) for (const m of turn(i)) w.value.appendMessage(m);
  w.value.close();
  return w.value.id;
}

/** Median time of one appendMessage (over APPENDS appends), and of one endTurn (fsync), on a session that already holds its messages. */
function appendCost(store, id) {
  const opened = store.open(id);
  if (!opened.ok) throw new Error(opened.error.message);
  const { writer } = opened.value;
  const message = turn(0)[3];
  const appends = [];
  const syncs = [];
  for (let i = 0; i < APPENDS; i++) {
    let t0 = process.hrtime.bigint();
    writer.appendMessage(message);
    appends.push(ms(t0));
    if (i % 10 === 0) {
      t0 = process.hrtime.bigint();
      writer.endTurn();
      syncs.push(ms(t0));
    }
  }
  writer.close();
  return { append: median(appends), sync: median(syncs) };
}

/** Wall time of one `awl ...args` with its data folder in `data`. */
function timeAwl(data, args) {
  const t0 = process.hrtime.bigint();
  const run = spawnSync(process.execPath, [AWL, ...args], { env: { PATH: process.env.PATH, HOME: data, XDG_DATA_HOME: data }, encoding: "utf8" });
  const elapsed = ms(t0);
  if (run.status !== 0) throw new Error(`awl ${args.join(" ")} exited ${run.status}: ${run.stderr}`);
  return { elapsed, stdout: run.stdout };
}

/** Medians of `awl sessions` cold (cache removed first) and warm, and of `awl --version`, interleaved. */
function listCost(data, dir) {
  const cold = [];
  const warm = [];
  const version = [];
  let rows = 0;
  for (let i = 0; i < LIST_RUNS; i++) {
    rmSync(join(dir, SUMMARY_CACHE), { force: true });
    cold.push(timeAwl(data, ["sessions"]).elapsed);
    const listed = timeAwl(data, ["sessions"]);
    warm.push(listed.elapsed);
    rows = listed.stdout.trim().split("\n").length - 1;
    version.push(timeAwl(data, ["--version"]).elapsed);
  }
  return { cold: median(cold), warm: median(warm), version: median(version), rows };
}

const data = mkdtempSync(join(tmpdir(), "awl-bench-sessions-"));
const dir = join(data, "awl", "sessions");
try {
  const store = new SessionStore(dir);
  const small = makeSession(store, 12);
  const big = makeSession(store, MESSAGES);
  const path = store.path(big);
  const mb = statSync(path).size / 1e6;

  const loads = [];
  let messages = 0;
  for (let i = 0; i < LOAD_RUNS; i++) {
    globalThis.gc?.();
    const t0 = process.hrtime.bigint();
    const loaded = store.load(big);
    loads.push(ms(t0));
    if (!loaded.ok) throw new Error(loaded.error.message);
    messages = loaded.value.conversation.length;
  }
  const parses = [];
  for (let i = 0; i < LOAD_RUNS; i++) {
    globalThis.gc?.();
    const t0 = process.hrtime.bigint();
    for (const line of readFileSync(path, "utf8").split("\n")) if (line) JSON.parse(line);
    parses.push(ms(t0));
  }
  const at10 = appendCost(store, small);
  const at10k = appendCost(store, big);
  rmSync(store.path(small));
  makeSession(store, MESSAGES);
  makeSession(store, MESSAGES);
  // A file changed in the last 2 s is not cached yet (store.ts SETTLE_MS): list them as a user would, later.
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  const list = listCost(data, dir);

  const load = median(loads);
  const parse = median(parses);
  console.log("## Sessions\n");
  console.log(`| measure | median | target |`);
  console.log(`| --- | --- | --- |`);
  console.log(`| resume: load ${messages} messages (${mb.toFixed(1)} MB) to a Conversation | ${load.toFixed(0)} ms | ≤ 500 ms |`);
  console.log(`| baseline: read + JSON.parse of every line of the same file | ${parse.toFixed(0)} ms | (load is ${(load / parse).toFixed(2)}×) |`);
  console.log(`| append one message (~3.5 KB) to a 12-message session | ${(at10.append * 1000).toFixed(0)} µs | |`);
  console.log(`| append one message (~3.5 KB) to a 10 000-message session | ${(at10k.append * 1000).toFixed(0)} µs | ratio ${(at10k.append / at10.append).toFixed(2)} (≈ 1) |`);
  console.log(`| endTurn (fsync), 12 / 10 000 messages | ${at10.sync.toFixed(2)} / ${at10k.sync.toFixed(2)} ms | |`);
  console.log(`| \`awl sessions\`, ${list.rows} sessions of 10 000 messages, cold (no summary cache) | ${list.cold.toFixed(0)} ms | |`);
  console.log(`| \`awl sessions\`, the same, warm (cache up to date) | ${list.warm.toFixed(0)} ms | |`);
  console.log(`| baseline: \`awl --version\` (start-up alone) | ${list.version.toFixed(0)} ms | (warm listing: +${(list.warm - list.version).toFixed(0)} ms) |`);
  console.log("");
  if (load > 500) console.log(`**resume over target: ${load.toFixed(0)} ms > 500 ms**\n`);
} finally {
  rmSync(data, { recursive: true, force: true });
}
