// Start-up: wall time of `awl --version` and `awl -p` with a one-line reply from a local server, beside
// `node -e 0` in the same run (issue 2 item 11; target: `awl -p` ≤ node -e 0 + 150 ms). Medians of RUNS runs,
// the commands interleaved so a busy moment of the machine hits them all alike. `AWL_BASELINE=<another build's
// dist/cli/main.cjs or main.js>` adds its `--version` and `-p --no-session` to the same runs (with a cache folder
// of its own), for an A/B of two builds on a busy machine.
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { summarizeProfile } from "./profile-summary.mjs";
import { awl, loadText, median, tempFolder } from "./support.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 15);

// A one-line OpenAI-compatible streamed reply, as a real server sends it.
const chunk = (delta, finish_reason = null) => `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason }] })}\n\n`;
const reply = chunk({ role: "assistant", content: "" }) + chunk({ content: "Hello!" }) + chunk({}, "stop") +
  `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 2 } })}\n\ndata: [DONE]\n\n`;
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(reply);
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const home = tempFolder("awl-bench-");
const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, ".config"),
  AWL_BASE_URL: `http://127.0.0.1:${server.address().port}/v1`, AWL_API_KEY: "bench", AWL_MODEL: "bench" };

// A user config file and a project one (docs/config.md), as a configured user has them: both are read and checked.
const configured = tempFolder("awl-bench-configured-");
mkdirSync(join(configured, ".config", "awl"), { recursive: true });
mkdirSync(join(configured, "project", ".awl"), { recursive: true });
writeFileSync(join(configured, ".config", "awl", "config.json"),
  JSON.stringify({ max_retries: 2, providers: { anthropic: { model: "claude-sonnet-4-5" } }, lua_workers: 2, stall_timeout_ms: 60000 }, null, 2));
writeFileSync(join(configured, "project", ".awl", "config.json"), JSON.stringify({ max_steps: 20, interleaved_thinking: false }, null, 2));
const configuredRun = { env: { ...env, HOME: configured, XDG_CONFIG_HOME: join(configured, ".config") }, cwd: join(configured, "project") };

function timeOnce(args, options = {}) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env: options.env ?? env, cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      code === 0 ? resolve(ms) : reject(new Error(`${args.join(" ")} exited ${code}: ${out}`));
    });
  });
}

const cases = [
  { name: "`node -e 0`", args: ["-e", "0"] },
  { name: "`awl --version`", args: [awl, "--version"] },
  { name: "`awl -p` one-line reply (local server)", args: [awl, "-p", "hi"] },
  { name: "the same, `--no-session` (no session file)", args: [awl, "-p", "hi", "--no-session"] },
  { name: "`awl -p`, a user and a project config file", args: [awl, "-p", "hi"], options: configuredRun },
];
const baseline = process.env.AWL_BASELINE;
if (baseline) {
  const options = { env: { ...env, XDG_CACHE_HOME: join(home, "baseline-cache") } };
  cases.push({ name: `baseline \`--version\` (${baseline})`, args: [baseline, "--version"], options },
    { name: "baseline `-p --no-session`", args: [baseline, "-p", "hi", "--no-session"], options });
}
const times = cases.map(() => []);
for (const c of cases) await timeOnce(c.args, c.options); // warm the file cache
for (let run = 0; run < RUNS; run++) {
  for (let i = 0; i < cases.length; i++) times[i].push(await timeOnce(cases[i].args, cases[i].options));
}
// `--profile`: one more `awl -p hi --no-session` under V8's profiler (every thread writes its own profile).
const profiles = process.argv.includes("--profile") ? mkdtempSync(join(tmpdir(), "awl-bench-profile-")) : undefined;
if (profiles) await timeOnce(["--cpu-prof", "--cpu-prof-dir", profiles, "--cpu-prof-interval", "100", awl, "-p", "hi", "--no-session"]);
server.close();

const base = median(times[0]);
console.log(`## Start-up\n\nWall time, median of ${RUNS} runs each (interleaved), node ${process.version}, ${cpus().length} CPUs, ${loadText()} at the end (a busy machine inflates every row).\n`);
console.log("| command | median | vs `node -e 0` |\n| --- | --- | --- |");
cases.forEach((c, i) => {
  const m = median(times[i]);
  console.log(`| ${c.name} | ${m.toFixed(0)} ms | ${i === 0 ? "—" : `+${(m - base).toFixed(0)} ms`} |`);
});
console.log(`\nTarget: \`awl -p\` ≤ \`node -e 0\` + 150 ms → ${median(times[2]) - base <= 150 ? "met" : "NOT met"}.\n`);

if (profiles) {
  // Node names each thread's file CPU.<date>.<time>.<pid>.<thread id>.<n>.cpuprofile: thread 0 is the main one.
  const threads = readdirSync(profiles).sort((a, b) => Number(a.split(".")[4]) - Number(b.split(".")[4]));
  for (const [i, file] of threads.entries()) {
    const { total, modules, functions } = summarizeProfile(join(profiles, file));
    console.log(`### Profile of \`awl -p hi --no-session\`, ${i === 0 ? "main thread" : `worker thread ${file.split(".")[4]}`}: ${total.toFixed(0)} ms sampled (${loadText()})\n`);
    console.log("| module | self ms |   | function | self ms |\n| --- | ---: | --- | --- | ---: |");
    for (let row = 0; row < Math.max(modules.length, functions.length); row++) {
      const [m, mMs] = modules[row] ?? ["", undefined];
      const [f, fMs] = functions[row] ?? ["", undefined];
      console.log(`| ${m} | ${mMs === undefined ? "" : mMs.toFixed(1)} | | ${f} | ${fMs === undefined ? "" : fMs.toFixed(1)} |`);
    }
    console.log("");
  }
  rmSync(profiles, { recursive: true, force: true });
}
