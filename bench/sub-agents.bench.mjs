// Sub-agents (issue 24): the time from a `task` call to the sub-agent's first request, through the built
// `awl -p` against a local OpenAI-compatible server: from the moment the server has sent the whole response that
// calls `task` to the moment the sub-agent's request arrives (SSE parsing, the call's checks, the permission
// decision, reading the definitions, the side session's file, the child's request). Target: ≤ 20 ms (median).
// Baseline in the same run: the same span for an `ls` call, to the request that carries its result (a Lua tool's
// round trip). Both again with `checkpoints.enabled: false` (same folder, runs interleaved): what the checkpoint of
// the turn's start still costs these spans (a call that only reads does not wait for it; docs/checkpoints.md).
// Run: `npm run bench -- sub-agents` (BENCH_RUNS runs each, default 10).
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, CompositeToolSet, SessionStore, SubAgentToolSet, loadAgentDefinitions } from "../dist/index.js";
import { awl, choice, loadText, median, now, percentile, RUNS, sse } from "./support.mjs";

const usage = { id: "b", choices: [], usage: { prompt_tokens: 10, completion_tokens: 5 } };
const toolCall = (name, args) =>
  sse(choice({ role: "assistant", content: null }), choice({ tool_calls: [{ index: 0, id: "c1", type: "function", function: { name, arguments: JSON.stringify(args) } }] }), choice({}, "tool_calls"), usage);
const text = (t) => sse(choice({ role: "assistant", content: t }), choice({}, "stop"), usage);

/** One `awl -p` run whose first reply calls `name`; resolves with the ms from that reply's end to the next request. */
async function once(name, args, dir, config = join(dir, ".config")) {
  let sentAt = 0;
  let gap;
  let count = 0;
  const server = createServer((req, res) => {
    count++;
    if (count === 2) gap = now() - sentAt; // the next request's first byte (its headers) has arrived
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const isParent = body.tools?.some((t) => t.function.name === "task");
      const answered = body.messages.some((m) => m.role === "tool");
      res.writeHead(200, { "content-type": "text/event-stream" });
      if (count === 1) res.end(toolCall(name, args), () => (sentAt = now()));
      else res.end(text(isParent && !answered ? "?" : "done"));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  const env = { PATH: process.env.PATH, HOME: dir, XDG_CONFIG_HOME: config, AWL_PROVIDER: "openai", AWL_BASE_URL: `http://127.0.0.1:${port}/v1`, AWL_API_KEY: "k", AWL_MODEL: "m" };
  await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [awl, "-p", "go"], { cwd: dir, env, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`awl exited ${code}: ${err}`))));
  });
  server.close();
  if (gap === undefined) throw new Error(`no request after the ${name} call`);
  return gap;
}

const dir = mkdtempSync(join(tmpdir(), "awl-bench-sub-"));
mkdirSync(join(dir, ".config", "awl", "agents"), { recursive: true });
// Twenty user definitions, as a user who keeps some would have.
for (let i = 0; i < 20; i++) writeFileSync(join(dir, ".config", "awl", "agents", `agent-${i}.md`), `---\nname: agent-${i}\ndescription: Agent number ${i}.\ntools: read, grep\n---\nYou are agent ${i}.\n`);
// The same definitions with checkpoints off.
const off = join(dir, "config-off");
mkdirSync(join(off, "awl"), { recursive: true });
cpSync(join(dir, ".config", "awl", "agents"), join(off, "awl", "agents"), { recursive: true });
writeFileSync(join(off, "awl", "config.json"), JSON.stringify({ checkpoints: { enabled: false } }));
const task = [];
const ls = [];
const taskOff = [];
const lsOff = [];
await once("task", { description: "warm", prompt: "warm up" }, dir);
for (let i = 0; i < RUNS; i++) {
  const args = { description: "bench", prompt: "say done", agent: "agent-3" };
  task.push(await once("task", args, dir));
  taskOff.push(await once("task", args, dir, off));
  ls.push(await once("ls", {}, dir));
  lsOff.push(await once("ls", {}, dir, off));
}

// In process (the library): from the parent's `task` call reaching the tool set to the sub-agent's model call,
// definitions read and side session created each time as in a real run; no HTTP, no other tools.
async function inProcess() {
  let started = 0;
  let gap;
  const parentTools = { definitions: () => [], execute: async () => ({ status: "result", content: "", is_error: false }) };
  const provider = {
    name: "bench",
    model: "m",
    async streamStep(conversation, _receiver, options) {
      if (options.system?.startsWith("You are agent")) gap = now() - started;
      return { ok: true, message: { role: "assistant", content: [{ type: "text", text: "done" }], stop_reason: "end_turn", usage: { input_tokens: 1, output_tokens: 1 } } };
    },
  };
  const store = new SessionStore(join(dir, "sessions"));
  let agent;
  const tasks = new SubAgentToolSet({
    definitions: () => loadAgentDefinitions({ cwd: dir, trusted: false, env: { HOME: dir } }),
    provider: () => agent.provider,
    parentTools: () => agent.tools,
    cwd: dir,
    sessions: { store, parent: () => "20250101-000000-000-abcdef" },
  });
  agent = new Agent({ provider, tools: new CompositeToolSet([parentTools, tasks]) });
  const call = { id: "t1", name: "task", input: JSON.stringify({ description: "bench", prompt: "say done", agent: "agent-3" }) };
  started = now();
  await tasks.execute(call, new AbortController().signal);
  return gap;
}
const local = [];
await inProcess();
for (let i = 0; i < Math.max(RUNS, 50); i++) local.push(await inProcess());
rmSync(dir, { recursive: true, force: true });
const row = (label, values) => `| ${label} | ${median(values).toFixed(1)} ms | ${percentile(values, 0.9).toFixed(1)} ms |`;
console.log(`## Sub-agents: from a task call to the sub-agent's first request (${RUNS} runs each, ${loadText()})\n`);
console.log("| span | median | p90 |\n| --- | --- | --- |");
console.log(row("`task` call → the sub-agent's first request (target ≤ 20 ms)", task));
console.log(row("baseline: `ls` call → the request with its result", ls));
console.log(row("the same `task` span, `checkpoints.enabled: false`", taskOff));
console.log(row("the same `ls` span, `checkpoints.enabled: false`", lsOff));
console.log(row(`in process: \`task\` execute → the sub-agent's model call (${local.length} runs)`, local));
console.log("");
