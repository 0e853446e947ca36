// Budgets (issue 30; the history: the "Quiet figures" sections of docs/benchmarks.md): the figures that keep awl light, each beside its baseline
// from the same run (medians of interleaved runs) and printed against its budget with an "under" / "OVER" line.
// Report mode: it exits 0 whatever the figures say (CI runs it small inside `npm test`, test/bench/budget-report.test.ts; a busy machine inflates every
// wall-clock figure, so a verdict is worth only the load printed beside it).
//
//   1. print mode: `awl -p --no-session hi` (a one-line reply, the std tools offered) against `node -e 0`: wall
//      time (budget node + 30 ms) and peak RSS (budget 55 MB), answered at once and after a model's time to its first
//      token (THINK_MS: the wall with it taken off); `awl --version` (budget node + 10 ms);
//   2. the tool step: tool-call reply → next request, first call of an `awl -p` run (budget 40 ms), the call sent
//      at once, after a model's time to its first token, and after it with its arguments streamed as a hosted
//      model's are (from the call's last byte);
//   3. interactive: start to a prompt that accepts keys with 20 extensions, 50 skills and 5 hooks, in a
//      pseudo-terminal, against `node -e 0` in one (budget node + 60 ms);
//   4. growth: one `--input-format stream-json` process fed BUDGET_TURNS turns (default 500) that each call `ls`:
//      RSS after turn 10 and at the end (≤ +20 MB), and heap snapshots there: the heap's growth per 1 000 tool calls
//      net of the conversation's messages, their wire JSON and compiled code (budget 1 MB: no retained per-call
//      objects), the parts printed beside it;
//   5. `awl acp`: BUDGET_ACP_SESSIONS sessions (default 50) opened, prompted (a Lua and an MCP call) and closed: the
//      heap each closed session leaves (snapshots, ≤ 10 KB) and RSS after the last over after the first (≤ +20 MB);
//   6. a Lua tool's 5 results of BUDGET_BIG_MB MB (default 8), then 20 turns: RSS over before them (≤ one result);
//   7. tty-growth: the interactive UI in a terminal (tmux) fed BUDGET_TTY_TURNS prompts (default 200) of 10 calls
//      each (std tools, a project Lua extension rewritten every 50 calls, an MCP server's tool, a command that asks
//      and is answered with a key) and one `/compact`: RSS and the heap's rest per 1 000 calls as in 4.
//   8. cold-cache: `awl -p hi` with 20 extensions, the registration cache removed, then cut short (budget node + 250 ms),
//      and how many of the Lua VM's functions V8 recompiles with TurboFan in such a start (budget 0).
//   BUDGET_KEEP=1 keeps its temporary folder (homes, heap snapshots) and prints where it is; else it is removed.
//   BUDGET_ONLY=growth,acp runs only the sections named (print, step, interactive, growth, acp, lua, tty-growth,
//   cold-cache).
// Run: `npm run bench -- budget` (BENCH_RUNS runs of each whole-process measure, default 10).
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { awl, choice, loadText, median, now, PROMPT, ptyTime, repo, RUNS, sse } from "./support.mjs";
import { acpSessions, heapGrowth, memoryProbe, perThousand, rssOf, streamJsonRun } from "./long-run.mjs";
import { ttyGrowth } from "./tty-growth.mjs";
import { coldCache } from "./cold-cache.mjs";

const TURNS = Number(process.env.BUDGET_TURNS ?? 500);
/** `BUDGET_ONLY=growth,acp`: only these sections (print, step, interactive, growth, acp, lua); all by default. */
const only = process.env.BUDGET_ONLY?.split(",");
const wanted = (section) => !only || only.includes(section);
const root = mkdtempSync(join(tmpdir(), "awl-bench-budget-"));
const verdicts = [];
/** One budget line: the figure, its budget, under or over. */
function judge(name, figure, unit, budget, note = "") {
  const under = figure <= budget;
  verdicts.push({ name, under });
  const shown = unit === "MB" ? figure.toFixed(1) : figure.toFixed(0);
  console.log(`| ${name} | ${shown} ${unit}${note} | ≤ ${budget} ${unit} | ${under ? "under" : "**OVER**"} |`);
}

// A local OpenAI-compatible server: "call" and "list" prompts get an `ls` call (or the calls a prompt names after
// `calls=`, a JSON list of [name, arguments], repeated in `steps=N` steps), a tool result gets "done" once the steps
// are over, other prompts "Hello.", and a compaction's summary request a summary.
let sentCallAt = 0;
let steps = [];
let lastBody = 0;
const usage = { id: "b", choices: [], usage: { prompt_tokens: 50, completion_tokens: 2 } };
const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString();
    lastBody = body.length;
    const arrived = now();
    const messages = JSON.parse(body).messages ?? [];
    const last = messages.at(-1);
    if (last?.role === "tool" && sentCallAt) steps.push(arrived - sentCallAt);
    const asked = messages.findLast((m) => m.role === "user");
    const prompt = typeof asked?.content === "string" ? asked.content : JSON.stringify(asked?.content ?? "");
    const named = prompt.match(/calls=(\[.*\]) steps=(\d+)/);
    const stepsDone = messages.slice(messages.lastIndexOf(asked)).filter((m) => m.tool_calls).length;
    const wantsCall = named ? stepsDone < Number(named[2]) : last?.role === "user" && /call|list/.test(prompt);
    // "think" prompts: the first answer comes after a model's time to first token (THINK_MS), as a real model's
    // does; "stream" prompts get their call streamed as a hosted model does (streamedCall).
    const thinks = last?.role === "user" && prompt.includes("think");
    res.writeHead(200, { "content-type": "text/event-stream" });
    if (body.includes(SUMMARY)) return res.end(textReply("## Goal\nList files.\n## Done\nListed them."));
    if (!wantsCall) {
      const text = textReply(last?.role === "tool" ? "done" : "Hello.");
      return thinks ? setTimeout(() => res.end(text), THINK_MS) : res.end(text);
    }
    const sent = () => (sentCallAt = now());
    if (thinks && prompt.includes("stream")) return setTimeout(() => streamedCall(res, sent), THINK_MS);
    const reply = callReply(named ? JSON.parse(named[1]) : [["ls", {}]]);
    if (thinks) return setTimeout(() => res.end(reply, sent), THINK_MS);
    res.end(reply, sent);
  });
});
/** What a compaction's summary request says (src/compaction/summary-prompt.ts). */
const SUMMARY = "You summarise a conversation";
/** A streamed text reply. */
const textReply = (text) => sse(choice({ role: "assistant", content: text }), choice({}, "stop"), usage);
let callIds = 0;
/** The calls (`[name, arguments]`) in one reply, the whole reply at once. */
const callReply = (calls) =>
  sse(choice({ role: "assistant", tool_calls: calls.map(([name, args], index) => ({ index, id: `c${callIds++}-${Date.now()}`, type: "function", function: { name, arguments: JSON.stringify(args) } })) }), choice({}, "tool_calls"), usage);
/** A fast model's time to its first token (a call's name comes after it). */
const THINK_MS = 400;
/**
 * An `ls` call's arguments as a hosted model streams them (OpenAI's wire shape, test/fixtures/openai/tool-call.sse:
 * the name first, with empty arguments, then a few characters a chunk), one token every ARGUMENT_TOKEN_MS: ≈ 67
 * tokens a second, between the 50 and 100 of today's hosted models.
 */
const ARGUMENT_TOKENS = ['{"', "path", '":', ' "', ".", '"}'];
const ARGUMENT_TOKEN_MS = 15;
/** Streams an `ls` call: its name, its arguments token by token, then the finish; `sent` once its last byte went. */
async function streamedCall(res, sent) {
  const event = (chunk) => `data: ${JSON.stringify(chunk)}\n\n`;
  const call = (part) => choice({ tool_calls: [{ index: 0, ...part }] });
  res.write(event(choice({ role: "assistant", content: null })) + event(call({ id: `c${callIds++}-${Date.now()}`, type: "function", function: { name: "ls", arguments: "" } })));
  for (const token of ARGUMENT_TOKENS) {
    await new Promise((resolve) => setTimeout(resolve, ARGUMENT_TOKEN_MS));
    res.write(event(call({ function: { arguments: token } })));
  }
  await new Promise((resolve) => setTimeout(resolve, ARGUMENT_TOKEN_MS));
  res.end(sse(choice({}, "tool_calls"), usage), sent);
}
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${server.address().port}/v1`;

/** A home (its config says the model's window, so no window look-up) and a working folder with a few files. */
function place(name) {
  const home = join(root, name);
  const cwd = join(home, "work");
  mkdirSync(join(home, ".config", "awl"), { recursive: true });
  mkdirSync(cwd, { recursive: true });
  for (let i = 0; i < 5; i++) writeFileSync(join(cwd, `file${i}.txt`), `file ${i}\n`);
  writeFileSync(join(home, ".config", "awl", "config.json"), JSON.stringify({ models: { m: { context_window: 1_000_000 } } }));
  const env = { PATH: process.env.PATH, TMPDIR: tmpdir(), HOME: home, XDG_CONFIG_HOME: join(home, ".config"), TERM: "xterm-256color", AWL_PROVIDER: "openai", AWL_BASE_URL: base, AWL_API_KEY: "k", AWL_MODEL: "m" };
  return { home, cwd, env };
}

/** `node ARGS` under `/usr/bin/time`: wall ms (spawn to exit) and peak RSS in MB. */
function measured(args, where) {
  return new Promise((resolve, reject) => {
    const start = now();
    const child = spawn("/usr/bin/time", ["-f", "%M", process.execPath, ...args], { cwd: where.cwd, env: where.env, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (code) => {
      const ms = now() - start;
      const kb = Number(err.trim().split("\n").at(-1));
      code === 0 && kb > 0 ? resolve({ ms, mb: kb / 1024 }) : reject(new Error(`node ${args.join(" ")} exited ${code}: ${err}`));
    });
  });
}

console.log(`## Budgets (issue 30)\n\nnode ${process.version}, ${cpus().length} CPUs; medians of ${RUNS} interleaved runs; ${loadText()} at the start (a busy machine inflates every wall-clock figure).\n`);
console.log("| figure | measured | budget | verdict |\n| --- | --- | --- | --- |");

// ---- 1. print mode and --version ------------------------------------------------------------------------------
if (wanted("print")) {
  // Also the same reply after a model's time to its first token (THINK_MS): what a hosted model's reply looks like,
  // and what anything started while the request waits (a Lua worker) costs a run that needs no tool.
  const where = place("print");
  const cases = { node: ["-e", "0"], version: [awl, "--version"], print: [awl, "-p", "--no-session", "hi"], think: [awl, "-p", "--no-session", "think, then hi"] };
  const runs = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (const args of Object.values(cases)) await measured(args, where); // warm the file and registration caches
  for (let i = 0; i < RUNS; i++) for (const [name, args] of Object.entries(cases)) runs[name].push(await measured(args, where));
  const wall = (name) => median(runs[name].map((r) => r.ms));
  const rss = (name) => median(runs[name].map((r) => r.mb));
  const node = wall("node");
  judge("`awl -p --no-session hi` wall over `node -e 0`", wall("print") - node, "ms", 30, ` (node ${node.toFixed(0)} ms)`);
  judge("`awl -p --no-session hi` peak RSS", rss("print"), "MB", 55, ` (node ${rss("node").toFixed(1)} MB)`);
  judge(`the same reply after ${THINK_MS} ms (a model's time to its first token): peak RSS`, rss("think"), "MB", 55, ` (largest of the runs ${Math.max(...runs.think.map((r) => r.mb)).toFixed(1)} MB)`);
  judge(`the same: wall over \`node -e 0\`, the ${THINK_MS} ms taken off`, wall("think") - THINK_MS - node, "ms", 30);
  judge("`awl --version` wall over `node -e 0`", wall("version") - node, "ms", 10);
}

// ---- 2. the tool step -----------------------------------------------------------------------------------------
if (wanted("step")) {
  // `awl -p` starts its Lua worker only once a call streams (its name comes before its arguments): against a server
  // that answers at once, or sends a whole call after a model's time to its first token, the worker's whole start is
  // inside the first step; when the call's arguments stream as a hosted model's do, it starts while they come.
  const where = place("step");
  const firsts = { call: [], "think, then call": [], "think, then stream a call": [] };
  for (let i = 0; i <= RUNS; i++) {
    for (const prompt of Object.keys(firsts)) {
      steps = [];
      sentCallAt = 0;
      await measured([awl, "-p", "--no-session", prompt], where);
      if (i > 0) firsts[prompt].push(steps[0]); // the first run fills the registration cache
    }
  }
  judge("tool step (tool-call reply → next request), first call of a run, the call sent at once", median(firsts.call), "ms", 40);
  judge(`the same, the call sent after ${THINK_MS} ms (a model's time to its first token)`, median(firsts["think, then call"]), "ms", 40);
  const streaming = ARGUMENT_TOKENS.length * ARGUMENT_TOKEN_MS + ARGUMENT_TOKEN_MS;
  judge(`the same, its name after ${THINK_MS} ms and its arguments streamed over ${streaming} ms (${ARGUMENT_TOKENS.length} tokens), from its last byte`, median(firsts["think, then stream a call"]), "ms", 40);
}

// ---- 3. interactive start-up ----------------------------------------------------------------------------------
if (wanted("interactive")) {
  const where = place("interactive");
  const config = join(where.home, ".config", "awl");
  mkdirSync(join(config, "extensions"), { recursive: true });
  for (let i = 0; i < 20; i++) {
    writeFileSync(join(config, "extensions", `ext${String(i).padStart(2, "0")}.lua`),
      `awl.register_tool { name = "ext${i}", description = "Tool of extension ${i}.", parameters = { type = "object", properties = { path = { type = "string" } } }, run = function(args) return args.path end }\n`);
  }
  for (let i = 0; i < 50; i++) {
    mkdirSync(join(config, "skills", `skill-${i}`), { recursive: true });
    writeFileSync(join(config, "skills", `skill-${i}`, "SKILL.md"), `---\nname: skill-${i}\ndescription: Does chore ${i}. Use when the user asks for chore ${i}.\n---\n# Skill ${i}\n\n${"Step by step. ".repeat(40)}\n`);
  }
  const hook = (command) => [{ hooks: [{ type: "command", command }] }];
  const settings = JSON.parse(readFileSync(join(config, "config.json"), "utf8"));
  settings.hooks = { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true" }] }], PostToolUse: [...hook("true"), { matcher: "Edit|Write", hooks: [{ type: "command", command: "true" }] }], PreCompact: hook("true"), Notification: hook("true") };
  writeFileSync(join(config, "config.json"), JSON.stringify(settings));
  const pty = (marker, argv, then) => ptyTime(marker, argv, { cwd: where.cwd, env: where.env }, then);
  const folder = ["--no-session"];
  // Warm the caches (registration, skills' front matter, and the code cache of the chunks, written as awl exits: a
  // run killed at its prompt writes none), ending awl with Ctrl-D as a person does.
  pty(PROMPT, [process.execPath, awl, ...folder], "\x04");
  const node = [];
  const prompt = [];
  for (let i = 0; i < RUNS; i++) {
    node.push(pty("", [process.execPath, "-e", "0"]));
    prompt.push(pty(PROMPT, [process.execPath, awl, ...folder]));
  }
  judge("interactive: prompt with 20 extensions, 50 skills, 5 hooks, over `node -e 0`", median(prompt) - median(node), "ms", 60, ` (node ${median(node).toFixed(0)} ms)`);
}

/** V8's young generation (new space) in MB, from a probe's sample. */
const young = (sample) => (sample.spaces.find(([name]) => name === "new_space")[1] / 2 ** 20).toFixed(0);

// ---- 4. growth over a long run (stream-json) ------------------------------------------------------------------
if (wanted("growth")) {
  // Two passes of one stream-json process fed TURNS `ls` turns: RSS and heap as the system and the GC see them, then
  // heap snapshots after turn 10 and at the end (a snapshot's own buffers stay in RSS, so it has a pass of its own),
  // split into the conversation's messages, the wire JSON kept per message, compiled code, and the rest: what the
  // issue means by "no retained per-call objects".
  const where = place("growth");
  const probe = memoryProbe(root);
  const prompt = (t) => `turn ${t}: list the files`;
  const samples = {};
  await streamJsonRun(where, probe, TURNS, prompt, async (t, pid) => {
    if (t === 10 || t === TURNS) samples[t] = { ...(await probe.sample(pid)), rss: rssOf(pid), body: lastBody };
  });
  const snapshots = [join(root, "early.heapsnapshot"), join(root, "late.heapsnapshot")];
  await streamJsonRun(where, probe, TURNS, prompt, async (t, pid) => {
    if (t === 10) await probe.sample(pid, snapshots[0]);
    if (t === TURNS) await probe.sample(pid, snapshots[1]);
  });
  const [early, late] = [samples[10], samples[TURNS]];
  const calls = TURNS - 10; // one `ls` per turn
  const parts = heapGrowth(...snapshots, calls);
  const mb = (v) => `${v.toFixed(2)} MB`;
  judge(`main heap growth per 1 000 tool calls, net of the conversation (snapshots: the rest once messages, their wire JSON and compiled code are set apart; ${calls} calls)`, parts.rest, "MB", 1,
    ` (in all ${mb(parts.live)}: conversation ${mb(parts.conversation)}, wire JSON ${mb(parts.memo)}, code ${mb(parts.code)}; after a GC the heap grew ${mb(perThousand(late.heap - early.heap, calls))}, the request body ${mb(perThousand(late.body - early.body, calls))})`);
  judge(`RSS growth from turn 10 to turn ${TURNS}`, (late.rss - early.rss) / 2 ** 20, "MB", 20, ` (${(early.rss / 2 ** 20).toFixed(0)} → ${(late.rss / 2 ** 20).toFixed(0)} MB; young generation ${young(early)} → ${young(late)} MB)`);
}

// ---- 5. ACP sessions opened and closed ----------------------------------------------------------------------
if (wanted("acp")) {
  // Each session gets an MCP server (test/fixtures/mcp/odd-server.mjs) and one prompt that calls `ls` and one of the
  // server's tools (its permission asked and allowed once), then is closed: what it held must go with it.
  const where = place("acp");
  const probe = memoryProbe(root);
  const sessions = Number(process.env.BUDGET_ACP_SESSIONS ?? 50);
  const odd = { name: "odd", command: process.execPath, args: [join(repo, "test/fixtures/mcp/odd-server.mjs")], env: [] };
  const ask = `calls=${JSON.stringify([["ls", {}], ["odd_slow", { ms: 1 }]])} steps=1`;
  const samples = await acpSessions(where, probe, sessions, [odd], ask);
  // Then heap snapshots after the first session and the last (a pass of its own: a snapshot's buffers stay in RSS).
  const snapshots = [join(root, "acp-first.heapsnapshot"), join(root, "acp-last.heapsnapshot")];
  await acpSessions(where, probe, sessions, [odd], ask, snapshots);
  const parts = heapGrowth(...snapshots, 1000 * (sessions - 1)); // MB per 1 000 sessions = KB per session
  const mb = (b) => (b / 2 ** 20).toFixed(1);
  judge(`\`awl acp\`: heap kept per session closed (snapshots: all but compiled code; ${sessions - 1} sessions after the first)`, parts.rest * 1024, "KB", 10,
    ` (after a GC the heap went ${mb(samples.start.heap)} MB after initialize, ${mb(samples.first.heap)} after the first session, ${mb(samples.last.heap)} MB after the last: compiled code ${(parts.code * 1024).toFixed(0)} KB per session; worker threads left: ${samples.last.workers})`);
  judge(`\`awl acp\`: RSS after ${sessions} sessions over the first one closed`, (samples.last.rss - samples.first.rss) / 2 ** 20, "MB", 20,
    ` (${mb(samples.start.rss)} MB after initialize, ${mb(samples.first.rss)} → ${mb(samples.last.rss)} MB; young generation ${young(samples.first)} → ${young(samples.last)} MB)`);
}

// ---- 6. a Lua tool's big results -----------------------------------------------------------------------------
if (wanted("lua")) {
  // One stream-json process: 10 `ls` turns, then BIG turns whose Lua tool returns BUDGET_BIG_MB MB of text each (the
  // result is spilled to a file, the model sees its head), then 20 `ls` turns: the Lua slot must give that memory back.
  const where = place("lua");
  const extensions = join(where.home, ".config", "awl", "extensions");
  mkdirSync(extensions, { recursive: true });
  writeFileSync(join(extensions, "big.lua"), `awl.register_tool { name = "big", description = "Returns mb megabytes of text.", kinds = { "read" },
  parameters = { type = "object", properties = { mb = { type = "number" } } },
  run = function(args) return string.rep("big result line\\n", math.floor(args.mb * 65536)) end }\n`);
  const probe = memoryProbe(root);
  const big = Number(process.env.BUDGET_BIG_MB ?? 8);
  const BIG = 5;
  const samples = {};
  const prompt = (t) => (t > 10 && t <= 10 + BIG ? `turn ${t}: calls=${JSON.stringify([["big", { mb: big }]])} steps=1` : `turn ${t}: list the files`);
  await streamJsonRun(where, probe, 30 + BIG, prompt, async (t, pid) => {
    if (t === 10 || t === 10 + BIG || t === 30 + BIG) samples[t] = { ...(await probe.sample(pid)), rss: rssOf(pid) };
  });
  const [before, during, after] = [samples[10], samples[10 + BIG], samples[30 + BIG]].map((m) => m.rss / 2 ** 20);
  judge(`RSS after ${BIG} Lua results of ${big} MB and 20 turns more, over before them`, after - before, "MB", big,
    ` (${before.toFixed(0)} → ${during.toFixed(0)} MB right after them → ${after.toFixed(0)} MB; young generation ${[10, 10 + BIG, 30 + BIG].map((t) => young(samples[t])).join(" → ")} MB)`);
}

// ---- 7. growth in the interactive UI ------------------------------------------------------------------------
if (wanted("tty-growth")) await ttyGrowth({ place, root, judge, turns: Number(process.env.BUDGET_TTY_TURNS ?? 200) });

// ---- 8. the cold start with a registration cache removed or corrupt --------------------------------------------
if (wanted("cold-cache")) await coldCache({ place, judge, measured, awl });

server.close();
// Its homes and heap snapshots (tens of MB a run): kept only when asked, to read the snapshots afterwards.
if (process.env.BUDGET_KEEP) console.log(`\nKept: ${root} (BUDGET_KEEP).`);
else rmSync(root, { recursive: true, force: true });
const over = verdicts.filter((v) => !v.under).length;
console.log(`\n${over === 0 ? "Every figure is under its budget." : `${over} of ${verdicts.length} figures are over budget.`} Report mode: this bench never fails on its figures (${loadText()} at the end; repo ${repo}).\n`);
