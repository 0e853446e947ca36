// Checkpoints (issue 26, docs/checkpoints.md) on a tree of 20 000 files / 200 MB: the first checkpoint, an unchanged
// one, one with 10 changed files, a restore of 10 files (each as the checkpoint worker takes them: with the watch of
// the workspace's folders, settled first), a full scan (the first of a process, the periodic one, a fallback); the
// store's size after 50 turns that each change one 1 MB file; and a text-only turn of the built awl (answer on stdout
// and process exit, checkpoints on vs off, runs interleaved).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CheckpointStore } from "../dist/checkpoints/store.js";
import { rewindCode } from "../dist/checkpoints/rewind.js";
import { awl, choice, loadText, median, now, sse } from "./support.mjs";

const FILES = 20_000;
const FILE_SIZE = 10 * 1024; // 20 000 × 10 KB = 200 MB
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const SESSION = "20260101-000000-000-bench0";

const base = mkdtempSync(join(tmpdir(), "awl-ck-bench-"));
const root = join(base, "work");
for (let d = 0; d < 200; d++) {
  mkdirSync(join(root, `dir${d}`), { recursive: true });
  for (let f = 0; f < FILES / 200; f++) writeFileSync(join(root, `dir${d}`, `file${f}.txt`), randomBytes(FILE_SIZE));
}
const storeDir = join(base, "store");
// As the checkpoint worker holds it: watching the workspace's folders (Linux).
const store = new CheckpointStore(storeDir, [storeDir], process.platform === "linux");
// Wall time, and the CPU time of this process (user + system), which a busy shared machine inflates less.
const timed = async (fn) => {
  const t = now();
  const cpu = process.cpuUsage();
  const value = await fn();
  const used = process.cpuUsage(cpu);
  return { ms: now() - t, cpu: (used.user + used.system) / 1000, value };
};
const both = (list) => `${median(list.map((t) => t.ms)).toFixed(1)} ms (CPU ${median(list.map((t) => t.cpu)).toFixed(1)} ms)`;
// As the worker takes one: the watch settled (every event of a change made before is in), then the scan.
const take = async (when = "turn", prompt = 1, extra = {}) => {
  await store.settle(root);
  const record = store.take({ session: SESSION, root, prompt, when, ...extra });
  if (!record.complete) throw new Error(record.error);
  return record;
};
const fullScans = [];
const watchedScan = () => {
  const why = store.lastScanFull(root);
  if (why !== undefined) fullScans.push(why);
};
const storeBytes = () => [...store.objects.list()].reduce((sum, o) => sum + o.size, 0);

const rows = [];
const first = await timed(() => take());
rows.push(["first checkpoint (reads and stores all 200 MB)", `${first.ms.toFixed(0)} ms`, "reported"]);

// The floor of a scan that checks every file's metadata: one lstat per file, nothing else (interleaved).
const paths = [];
for (let d = 0; d < 200; d++) for (let f = 0; f < FILES / 200; f++) paths.push(join(root, `dir${d}`, `file${f}.txt`));
const unchanged = [];
const floor = [];
const full = [];
for (let i = 0; i < RUNS; i++) {
  unchanged.push(await timed(() => take("tools")));
  watchedScan();
  floor.push(await timed(() => paths.forEach((p) => lstatSync(p))));
  full.push(await timed(() => take("tools", 1, { full: true })));
}
rows.push(["unchanged tree, p50", both(unchanged), "≤ 50 ms"]);
rows.push(["a full scan (the first of a process, the periodic one, a fallback), unchanged tree, p50", both(full), "—"]);
rows.push(["for scale: 20 000 `lstatSync` calls alone, p50", both(floor), "—"]);

const changed = [];
for (let i = 0; i < RUNS; i++) {
  for (let f = 0; f < 10; f++) writeFileSync(join(root, `dir${f * 7}`, `file${i}.txt`), randomBytes(FILE_SIZE));
  changed.push(await timed(() => take("tools")));
  watchedScan();
}
rows.push(["10 files changed, p50", both(changed), "≤ 80 ms"]);

// Restore: the turn changes 10 files; rewind puts them back (a scan of the present, the plan, the journal, 10 writes, a scan after).
const restores = [];
for (let i = 0; i < RUNS; i++) {
  const prompt = 10 + i;
  await take("turn", prompt);
  for (let f = 0; f < 10; f++) writeFileSync(join(root, `dir${f * 11}`, `file${f}.txt`), randomBytes(FILE_SIZE));
  await take("end", prompt);
  const restored = await timed(async () => {
    await store.settle(root);
    return rewindCode(store, { session: SESSION, root, prompt, current: prompt });
  });
  watchedScan();
  if (restored.value.status !== "restored" || restored.value.plan.modified.length !== 10) throw new Error(JSON.stringify(restored.value).slice(0, 300));
  restores.push(restored);
}
rows.push(["restore of 10 files (rewind, scans included), p50", both(restores), "≤ 100 ms"]);

const before = storeBytes();
const big = join(root, "big.bin");
for (let turn = 0; turn < 50; turn++) {
  writeFileSync(big, randomBytes(1024 * 1024));
  await take("turn", 100 + turn);
}
const after = storeBytes();
rows.push([
  "store after 50 turns each changing one 1 MB file",
  `${(after / 1e6).toFixed(1)} MB (+${((after - before) / 1e6).toFixed(1)} MB for 50 MB of new content)`,
  "reported",
]);

// A text-only turn of the built awl in the 20 000-file folder: time to the answer on stdout.
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(sse(choice({ role: "assistant", content: "Plain answer." }), choice({}, "stop")));
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${server.address().port}/v1`;
const home = join(base, "home");
const configs = { on: join(base, "cfg-on"), off: join(base, "cfg-off") };
for (const [name, dir] of Object.entries(configs)) {
  mkdirSync(join(dir, "awl"), { recursive: true });
  writeFileSync(join(dir, "awl", "config.json"), JSON.stringify({ checkpoints: { enabled: name === "on" } }));
}
const answer = (config) =>
  new Promise((resolve, reject) => {
    const start = now();
    const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: config, AWL_PROVIDER: "openai", AWL_BASE_URL: url, AWL_API_KEY: "k", AWL_MODEL: "m", NO_COLOR: "1" };
    const child = spawn(process.execPath, [awl, "-p", "hi", "--no-std-tools"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let at;
    child.stdout.on("data", (d) => {
      out += d;
      if (at === undefined && out.includes("Plain answer.")) at = now() - start;
    });
    child.on("close", (code) => (code === 0 && at !== undefined ? resolve({ answer: at, exit: now() - start }) : reject(new Error(`awl exited ${code}`))));
  });
await answer(configs.on); // the first run of this folder records all 200 MB
const turns = { on: [], off: [] };
for (let i = 0; i < RUNS; i++) for (const name of ["off", "on"]) turns[name].push(await answer(configs[name]));
server.close();
const med = (list, key) => median(list.map((t) => t[key]));
rows.push([
  "text-only `awl -p` turn, answer on stdout: checkpoints on / off",
  `${med(turns.on, "answer").toFixed(0)} / ${med(turns.off, "answer").toFixed(0)} ms (${(med(turns.on, "answer") - med(turns.off, "answer")).toFixed(0)} ms)`,
  "unmeasurable",
]);
rows.push([
  "the same, process exit (a text-only turn needs no checkpoint)",
  `${med(turns.on, "exit").toFixed(0)} / ${med(turns.off, "exit").toFixed(0)} ms`,
  "reported",
]);

store.close();
console.log(`## Checkpoints (20 000 files, 200 MB; ${RUNS} runs each; ${loadText()})\n`);
// A timed checkpoint that read everything (the watch fell back) is named: its figure is a full scan's.
if (fullScans.length > 0) console.log(`full scans among the watched ones: ${fullScans.join("; ")}\n`);
console.log("| measure | figure | target |");
console.log("| --- | --- | --- |");
for (const [m, f, t] of rows) console.log(`| ${m} | ${f} | ${t} |`);
rmSync(base, { recursive: true, force: true });
