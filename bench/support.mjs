// What the benches share: where awl is, how many runs, medians and percentiles, the load beside each table, the
// replies of a local OpenAI-compatible server, and timing a child process. Not a bench itself (bench/run.mjs runs
// the *.bench.mjs files only).
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
/** The built CLI (`npm run bench` builds first). */
export const awl = join(repo, "dist/cli/main.cjs");
/** Where the reference MCP servers are (devDependencies; never `npx -y`). */
export const bin = join(repo, "node_modules/.bin");
/** Runs of each whole-process measure: `BENCH_RUNS`, default 10. */
export const RUNS = Number(process.env.BENCH_RUNS ?? 10);

/** The folders {@link tempFolder} made: removed when the bench's process exits. */
const tempFolders = [];

/**
 * A fresh folder in the temp folder (a home, a workspace, a spill folder), removed with all that awl wrote there when
 * the bench exits, whatever way it ends but a signal: a bench leaves nothing behind, as a test does not
 * (test/support/temp-dir.ts).
 */
export function tempFolder(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (tempFolders.push(dir) === 1) process.on("exit", () => tempFolders.forEach((d) => rmSync(d, { recursive: true, force: true, maxRetries: 5 })));
  return dir;
}

/** The median (the mean of the middle two for an even count). */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The value below which `fraction` (0–1) of the values lie. */
export function percentile(values, fraction) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
}

/** The median absolute deviation: how far a typical run lies from the median (the noise of a measure). */
export function mad(values) {
  const m = median(values);
  return median(values.map((v) => Math.abs(v - m)));
}

/** Milliseconds, from a monotonic clock. */
export const now = () => Number(process.hrtime.bigint()) / 1e6;

/** "load average 1.2 / 3.4" (1 and 5 minutes): every figure inflates on a busy machine. */
export function loadText() {
  const [one, five] = loadavg();
  return `load average ${one.toFixed(1)} / ${five.toFixed(1)}`;
}

/** An OpenAI-compatible stream: each chunk as a `data:` event, then `[DONE]`. */
export const sse = (...chunks) => chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";
/** One streamed chunk with one choice. */
export const choice = (delta, finish_reason = null) => ({ id: "b", choices: [{ index: 0, delta, finish_reason }] });

/** Runs `node ARGS` to its end; resolves with its wall time in ms, rejects (with its stderr) when it fails. */
export function timeNode(args, options = {}) {
  return new Promise((resolve, reject) => {
    const start = now();
    const child = spawn(process.execPath, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
    let err = "";
    child.stdout.resume();
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(now() - start) : reject(new Error(`node ${args.join(" ")} exited ${code}: ${err}`))));
  });
}

/**
 * One `awl -p hi` run with `home` as its home and working folder against a local OpenAI-compatible server that
 * answers `answer` (an SSE body): ms from spawn to the first request's arrival, and that request's body bytes.
 */
export async function firstRequest(home, answer) {
  const { createServer } = await import("node:http");
  const { spawn } = await import("node:child_process");
  let arrived;
  let bytes = 0;
  const server = createServer((req, res) => {
    arrived ??= now();
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      bytes = Buffer.concat(chunks).length;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(answer);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const env = { PATH: process.env.PATH, HOME: home, AWL_PROVIDER: "openai", AWL_BASE_URL: `http://127.0.0.1:${server.address().port}/v1`, AWL_API_KEY: "k", AWL_MODEL: "gpt-4o" };
  const started = now();
  await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [awl, "-p", "hi"], { cwd: home, env, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`awl exited ${code}: ${err}`))));
  });
  server.close();
  return { ms: arrived - started, bytes };
}

/** A Markdown answer of `lines` lines: headings, prose with emphasis, lists, a table and code fences. */
export function markdownAnswer(lines) {
  const out = [];
  for (let i = 0; out.length < lines; i++) {
    out.push(`## Part ${i}`, "", `Some **bold** prose with \`code\` and a [link](https://example.com/${i}) that goes on for a while to wrap.`, "",
      "- first item of the list", "- second item, *emphasised*", "", "| name | value |", "|---|---|", `| row ${i} | ${i * 7} |`, "",
      "```ts", `const value${i} = compute(${i}, "text");`, `console.log(value${i});`, "```", "");
  }
  return out.slice(0, lines).join("\n");
}

/** Tokens of about four characters, as models stream them. */
export const tokens = (text) => text.match(/[\s\S]{1,4}/g);

// Python's pty: ms from the spawn until the output holds `marker` (awl's prompt), or until the child exits; a
// 100 x 30 terminal. With PTY_THEN set, those bytes are typed once the marker shows and the child is waited for
// (it ends as a person would end it, writing what it writes as it exits) instead of killed.
const PTY = `
import os, pty, sys, time, select, signal, fcntl, struct, termios
marker = sys.argv[1].encode()
then = os.environ.pop("PTY_THEN", "").encode()
argv = sys.argv[2:]
start = time.monotonic()
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    os.execvp(argv[0], argv)
seen = b""
while True:
    r, _, _ = select.select([fd], [], [], 20)
    if not r: print("timeout; seen: " + repr(seen[-300:]), file=sys.stderr); sys.exit(1)
    try: data = os.read(fd, 65536)
    except OSError: data = b""
    if not data: break
    seen += data
    if marker and marker in seen: break
elapsed = time.monotonic() - start
if marker and then:
    os.write(fd, then)
    while True:
        r, _, _ = select.select([fd], [], [], 20)
        if not r: os.kill(pid, signal.SIGKILL); break
        try: data = os.read(fd, 65536)
        except OSError: data = b""
        if not data: break
elif marker: os.kill(pid, signal.SIGKILL)
os.waitpid(pid, 0)
print(elapsed * 1000)
`;

/** The line editor's prompt as drawn (in synchronized output) after the start-up line. */
export const PROMPT = "\x1b[?2026h> ";

/**
 * Ms from spawning `argv` in a pseudo-terminal until its output holds `marker` ("" : until it exits); `then`: keys
 * typed once it shows (e.g. Ctrl-D), after which the child is left to exit by itself instead of being killed.
 */
export function ptyTime(marker, argv, options = {}, then = "") {
  const run = spawnSync("python3", ["-c", PTY, marker, ...argv], { ...options, env: { ...(options.env ?? process.env), PTY_THEN: then }, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`pty run failed: ${run.stderr}`);
  return Number(run.stdout.trim());
}
