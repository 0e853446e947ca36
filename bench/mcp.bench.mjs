// MCP bench (issue 12 targets):
//   1. per-call overhead of awl over the MCP SDK's client alone: the same server (mcp-server-everything on
//      stdio), the same call (`echo`), the SDK's Client.callTool beside awl's whole tool path (the agent's
//      runToolBatch: input checked against the schema, McpToolSet.execute, the result mapped and limited);
//      target p50 overhead ≤ 2 ms;
//   2. start-up with three stdio servers configured (everything, filesystem, memory) against none: a print-mode
//      reply that needs no MCP tool (`awl -p`, a local server answering at once), and the time until the
//      interactive prompt is drawn (in a pseudo-terminal); target: unchanged within noise.
// Run: npm run bench -- mcp
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { awl, bin, choice, loadText, mad, median, percentile, repo, RUNS, sse, tempFolder } from "./support.mjs";

const CALLS = Number(process.env.BENCH_CALLS ?? 300);

// ---- 1. per-call overhead ---------------------------------------------------------------------------------

const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
const { McpToolSet } = await import(join(repo, "dist/extensions/mcp/mcp-tool-set.js"));
const { runToolBatch } = await import(join(repo, "dist/agent/tool-batch.js"));

const everything = join(bin, "mcp-server-everything");
const { ProcessTransport } = await import(join(repo, "dist/extensions/mcp/stdio-transport.js"));
const { ResultSchema } = await import("@modelcontextprotocol/sdk/types.js");
const sdk = new Client({ name: "bench", version: "0" }, { capabilities: {} });
await sdk.connect(new StdioClientTransport({ command: everything, args: [], stderr: "ignore" }));
// The SDK's client over awl's stdio transport (the server in its own process group, as awl runs it).
const sdkOwn = new Client({ name: "bench", version: "0" }, { capabilities: {} });
await sdkOwn.connect(new ProcessTransport({ command: everything, args: [], env: process.env, cwd: repo }));
const server = { name: "everything", source: "user", file: "bench", disabled: false, fingerprint: "bench", transport: { type: "stdio", command: everything, args: [], env: {}, cwd: repo } };
const spillDir = tempFolder("awl-bench-spill-");
const tools = McpToolSet.start({ servers: [server], env: process.env, spillDir });
// Over Streamable HTTP both clients talk to the very same server process.
const httpPort = await new Promise((resolve) => {
  const probe = createServer().listen(0, "127.0.0.1", () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});
const httpServer = spawn(everything, ["streamableHttp"], { env: { ...process.env, PORT: String(httpPort) }, stdio: "ignore", detached: true });
const httpUrl = `http://127.0.0.1:${httpPort}/mcp`;
const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
let sdkHttp;
for (let tries = 0; ; tries++) {
  try {
    sdkHttp = new Client({ name: "bench", version: "0" }, { capabilities: {} });
    await sdkHttp.connect(new StreamableHTTPClientTransport(new URL(httpUrl)));
    break;
  } catch (error) {
    if (tries > 100) throw error;
    await new Promise((r) => setTimeout(r, 200));
  }
}
const toolsHttp = McpToolSet.start({ servers: [{ ...server, name: "web", transport: { type: "http", url: httpUrl, headers: {} } }], env: process.env, spillDir });
await tools.waitForStart(60_000);
await toolsHttp.waitForStart(60_000);
await tools.refresh();
await toolsHttp.refresh();

let id = 0;
const timed = (call) => async () => {
  const start = performance.now();
  const text = await call();
  if (text !== "Echo: bench") throw new Error(`unexpected result: ${text}`);
  return performance.now() - start;
};
const echo = { name: "echo", arguments: { message: "bench" } };
const awlCall = (set, name) => async () => {
  const use = { type: "tool_use", id: `call_${++id}`, name, input: '{"message":"bench"}' };
  const [record] = await runToolBatch([use], set, new AbortController().signal, {});
  return record.result.content;
};
const paths = [
  ["stdio: the SDK's Client.callTool over the SDK's StdioClientTransport", timed(async () => (await sdk.callTool(echo)).content[0].text)],
  ["stdio: the SDK's Client.callTool over awl's transport (own process group)", timed(async () => (await sdkOwn.request({ method: "tools/call", params: echo }, ResultSchema)).content[0].text)],
  ["stdio: awl, runToolBatch → McpToolSet.execute (schema check, mapping, result limit)", timed(awlCall(tools, "everything_echo"))],
  ["HTTP (one server for both): the SDK's Client.callTool", timed(async () => (await sdkHttp.callTool(echo)).content[0].text)],
  ["HTTP (one server for both): awl, runToolBatch → McpToolSet.execute", timed(awlCall(toolsHttp, "web_echo"))],
];
for (let i = 0; i < 30; i++) for (const [, run] of paths) await run(); // warm up: JIT, ajv's compiled schema
const times = paths.map(() => []);
for (let i = 0; i < CALLS; i++) {
  // Interleaved, so a busy moment of the machine hits every path alike.
  for (let p = 0; p < paths.length; p++) times[p].push(await paths[p][1]());
}
await Promise.all([sdk.close(), sdkOwn.close(), sdkHttp.close(), tools.close(), toolsHttp.close()]);
process.kill(-httpServer.pid, "SIGKILL");
const p50 = times.map((t) => median(t));
// The overhead: awl's call minus the SDK's call made right before it, per round (both met the same moment of the
// machine), then the median of those differences.
const paired = (awlPath, sdkPath) => median(times[awlPath].map((t, i) => t - times[sdkPath][i]));
const overStdio = paired(2, 1);
const overHttp = paired(4, 3);

console.log(`## MCP\n\n### Per-call overhead (${CALLS} calls of \`echo\` on each path, interleaved, mcp-server-everything; ${loadText()})\n`);
console.log("| path | p50 | p90 |\n| --- | --- | --- |");
paths.forEach(([name], i) => console.log(`| ${name} | ${p50[i].toFixed(3)} ms | ${percentile(times[i], 0.9).toFixed(3)} ms |`));
console.log(`\nawl over the SDK client alone, median of the per-round differences: stdio ${overStdio.toFixed(3)} ms (same transport), HTTP ${overHttp.toFixed(3)} ms (same server); target p50 ≤ 2 ms → ${overStdio <= 2 && overHttp <= 2 ? "met" : "**not met**"}. awl's stdio transport against the SDK's: ${(p50[1] - p50[0]).toFixed(3)} ms (the server runs in its own session, so its process tree can be killed as a whole).\n`);

// ---- 2. start-up ------------------------------------------------------------------------------------------

const reply = sse(choice({ role: "assistant", content: "" }), choice({ content: "Hello!" }), choice({}, "stop"));
const http = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(reply);
  });
});
await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));

function home(servers) {
  const dir = tempFolder("awl-bench-mcp-");
  mkdirSync(join(dir, ".config", "awl"), { recursive: true });
  // Both cases have a config file (its reading and check cost the same): only the servers differ.
  writeFileSync(join(dir, ".config", "awl", "config.json"), JSON.stringify(servers ? { mcpServers: servers } : { max_retries: 3 }));
  mkdirSync(join(dir, "files"));
  return dir;
}
const none = home(undefined);
const threeHome = tempFolder("awl-bench-mcp-");
const three = home({
  everything: { command: everything },
  files: { command: join(bin, "mcp-server-filesystem"), args: [threeHome] },
  memory: { command: join(bin, "mcp-server-memory"), env: { MEMORY_FILE_PATH: join(threeHome, "memory.jsonl") } },
});
const envFor = (dir) => ({ PATH: process.env.PATH, HOME: dir, XDG_CONFIG_HOME: join(dir, ".config"), TERM: "xterm-256color",
  AWL_BASE_URL: `http://127.0.0.1:${http.address().port}/v1`, AWL_API_KEY: "bench", AWL_MODEL: "bench" });

function printTurn(dir) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, [awl, "-p", "hi", "--no-session"], { env: envFor(dir), cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("close", (code) => (code === 0 && out.includes("Hello!") ? resolve(performance.now() - start) : reject(new Error(`awl -p exited ${code}: ${out}`))));
  });
}

/** Time until the interactive prompt is drawn, in a pseudo-terminal (`script`); then awl is stopped. */
function promptTime(dir) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    // A 100 x 30 terminal (as bench/tui.bench.mjs): `script` alone gives one of 0 columns, where no prompt is drawn.
    const command = `stty cols 100 rows 30; ${process.execPath} ${awl} --no-session`;
    const child = spawn("script", ["-qfec", command, "/dev/null"], { env: envFor(dir), cwd: dir, stdio: ["pipe", "pipe", "pipe"], detached: true });
    let out = "";
    let done = false;
    const timer = setTimeout(() => finish(new Error(`no prompt after 30 s: ${out}`)), 30_000);
    const finish = (error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const ms = performance.now() - start;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
      child.once("close", () => (error ? reject(error) : resolve(ms)));
    };
    child.stdout.on("data", (d) => {
      out += d;
      if (/Ctrl-D exits[^]*> /.test(out)) finish();
    });
  });
}

await printTurn(three); // fills the MCP tool-list cache (what any later run of awl finds)
await new Promise((r) => setTimeout(r, 3000));
await printTurn(three);
const rows = { printNone: [], printThree: [], promptNone: [], promptThree: [] };
for (let run = 0; run < RUNS; run++) {
  rows.printNone.push(await printTurn(none));
  rows.printThree.push(await printTurn(three));
  rows.promptNone.push(await promptTime(none));
  rows.promptThree.push(await promptTime(three));
}
http.close();

// Noise: how far a typical run of the same case lies from its median (median absolute deviation); a difference
// within twice the larger of the two cases' noise is no difference these runs can show.
const verdict = (a, b) => {
  const difference = median(rows[b]) - median(rows[a]);
  const noise = 2 * Math.max(mad(rows[a]), mad(rows[b]));
  const sign = difference >= 0 ? "+" : "";
  return `${sign}${difference.toFixed(0)} ms | ±${noise.toFixed(0)} ms | ${Math.abs(difference) <= noise ? "unchanged within noise" : "**changed**"}`;
};
console.log(`### Start-up with three stdio MCP servers (everything, filesystem, memory) against none (medians of ${RUNS} interleaved runs, ${loadText()})\n`);
console.log("| case | no servers | three servers | difference | noise (2 × MAD) | verdict |\n| --- | --- | --- | --- | --- | --- |");
console.log(`| \`awl -p\`, a reply that needs no MCP tool (tool lists cached) | ${median(rows.printNone).toFixed(0)} ms | ${median(rows.printThree).toFixed(0)} ms | ${verdict("printNone", "printThree")} |`);
console.log(`| interactive: until the prompt is drawn | ${median(rows.promptNone).toFixed(0)} ms | ${median(rows.promptThree).toFixed(0)} ms | ${verdict("promptNone", "promptThree")} |`);
console.log("\nTarget: unchanged within noise (the servers start in the background; a print-mode reply never waits for a server whose tools are cached).\n");
process.exit(0);
