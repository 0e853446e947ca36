// The bundled std tools (issue 9 targets), each beside a baseline measured in the same run:
//   1. `read` of 200 lines near the end of a 10 MB file through the agent's tool path (tool_use → runToolBatch →
//      LuaToolSet → worker → std.read → result), p50, beside plain Node fs code doing the same (target ≤ 3×);
//   2. `grep` of a word on a generated 20 000-file tree: with ripgrep, beside `rg` alone (target ≤ 1.5×), and the
//      fallback (awl.fs.grep, ripgrep hidden from PATH);
//   3. `bash` of `true`: overhead over child_process.spawn of the same shell, p50 (target ≤ 5 ms);
//   4. request bytes of a text turn with the std tools and the default system prompt (target ≤ 5.5 KB);
//   5. the tool step: from the model's tool-call reply to awl's next request, first call of an `awl -p` run with a
//      warm registration cache (the run's Lua worker starts as the run does), p50 (target ≤ 40 ms), with the
//      one-reply turn beside (a reply that needs no tool must not get slower for it).
// Run: npm run bench -- std-tools
import { spawn, spawnSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync, fstatSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { awl, choice, loadText, median, now, RUNS, sse } from "./support.mjs";

const fmt = (ms) => (ms < 10 ? `${ms.toFixed(2)} ms` : `${ms.toFixed(0)} ms`);

const { LuaToolSet } = await import("../dist/extensions/lua-tool-set.js");
const { runToolBatch } = await import("../dist/agent/tool-batch.js");
const { systemPromptFor } = await import("../dist/prompt/for-cwd.js");
const { buildChatRequestBody } = await import("../dist/providers/openai/request.js");
const { resolveCompat } = await import("../dist/providers/openai/compat.js");
const { Conversation } = await import("../dist/model/conversation.js");

const root = mkdtempSync(join(tmpdir(), "awl-bench-std-"));
const signal = new AbortController().signal;
let nextId = 0;

/** One call through the agent's path; returns its time in ms and the result text. */
async function callTool(tools, name, input) {
  const use = { type: "tool_use", id: `c${nextId++}`, name, input: JSON.stringify(input) };
  const start = now();
  const [record] = await runToolBatch([use], tools, signal, {});
  return { ms: now() - start, text: record.result.content, error: record.result.is_error };
}

async function openTools(cwd, env = {}) {
  return LuaToolSet.open({ cwd, env: { HOME: join(root, "home"), PATH: process.env.PATH, ...env }, cachePath: false, maxSlots: 1 });
}

// ---- 1. read ----------------------------------------------------------------------------------------------
async function readBench() {
  const dir = join(root, "read");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "big.txt");
  const line = (i) => `line ${String(i).padStart(7, "0")} ${"lorem ipsum dolor sit amet ".repeat(2)}\n`;
  const lines = [];
  for (let i = 1; i * 70 < 10 * 1024 * 1024; i++) lines.push(line(i));
  writeFileSync(file, lines.join(""));
  const total = lines.length;
  const offset = total - 250;
  const tools = await openTools(dir);
  // Plain Node: open the file, find the lines by scanning for newlines, number them.
  const plain = () => {
    const start = now();
    const fd = openSync(file, "r");
    const size = fstatSync(fd).size;
    const buffer = Buffer.allocUnsafe(size);
    readSync(fd, buffer, 0, size, 0);
    closeSync(fd);
    let at = 0;
    for (let n = 1; n < offset; n++) at = buffer.indexOf(10, at) + 1;
    const out = [];
    for (let n = offset; n < offset + 200; n++) {
      const end = buffer.indexOf(10, at);
      out.push(`${n}\t${buffer.toString("utf8", at, end)}`);
      at = end + 1;
    }
    const text = out.join("\n");
    return { ms: now() - start, text };
  };
  const luaTimes = [];
  const plainTimes = [];
  for (let i = 0; i < 5; i++) await callTool(tools, "read", { path: "big.txt", offset, limit: 200 });
  for (let i = 0; i < 5; i++) plain();
  for (let i = 0; i < 30; i++) {
    const lua = await callTool(tools, "read", { path: "big.txt", offset, limit: 200 });
    const js = plain();
    if (!lua.text.startsWith(js.text)) throw new Error("read: std.read and plain Node disagree");
    luaTimes.push(lua.ms);
    plainTimes.push(js.ms);
  }
  await tools.close();
  const ratio = median(luaTimes) / median(plainTimes);
  console.log(`### \`read\`: 200 lines near the end of a 10 MB file (${total} lines), p50 of 30\n`);
  console.log("| path | p50 |\n| --- | --- |");
  console.log(`| plain Node fs (read the file, scan for newlines, number 200 lines) | ${fmt(median(plainTimes))} |`);
  console.log(`| \`read\` through the agent's tool path (worker, std.read, awl.fs.read_text) | ${fmt(median(luaTimes))} |`);
  console.log(`\nRatio ${ratio.toFixed(2)}× (target ≤ 3×: ${ratio <= 3 ? "met" : "**not met**"}).\n`);
}

// ---- 2. grep ----------------------------------------------------------------------------------------------
async function grepBench() {
  const dir = join(root, "tree");
  for (let d = 0; d < 200; d++) {
    const sub = join(dir, `pkg${d}`, "src");
    mkdirSync(sub, { recursive: true });
    for (let f = 0; f < 100; f++) {
      const word = (d * 100 + f) % 997 === 0 ? "needleword" : "haystack";
      writeFileSync(join(sub, `file${f}.ts`), `export const a${f} = 1;\n// ${word} in file ${f}\nfunction f${f}() { return ${f}; }\n`);
    }
  }
  spawnSync("git", ["init", "-q"], { cwd: dir });
  const rg = spawnSync("rg", ["--version"]).status === 0;
  const withRg = await openTools(dir);
  const without = await openTools(dir, { PATH: "/nonexistent" });
  const rgAlone = () => {
    const start = now();
    const r = spawnSync("rg", ["--json", "--sort", "path", "-e", "needleword", "--", "."], { cwd: dir });
    if (r.status !== 0) throw new Error("rg failed");
    return now() - start;
  };
  const times = { rg: [], tool: [], fallback: [] };
  await callTool(withRg, "grep", { pattern: "needleword" });
  await callTool(without, "grep", { pattern: "needleword" });
  for (let i = 0; i < 7; i++) {
    if (rg) times.rg.push(rgAlone());
    const a = await callTool(withRg, "grep", { pattern: "needleword" });
    const b = await callTool(without, "grep", { pattern: "needleword" });
    if (a.text !== b.text) throw new Error(`grep: ripgrep and the fallback disagree:\n${a.text}\n---\n${b.text}`);
    times.tool.push(a.ms);
    times.fallback.push(b.ms);
  }
  await withRg.close();
  await without.close();
  console.log("### `grep` of a word on a 20 000-file tree (21 matches), p50 of 7\n");
  console.log("| path | p50 |\n| --- | --- |");
  if (rg) console.log(`| \`rg --json --sort path\` alone | ${fmt(median(times.rg))} |`);
  console.log(`| \`grep\` tool with ripgrep | ${fmt(median(times.tool))} |`);
  console.log(`| \`grep\` tool, fallback (awl.fs.grep, no rg on PATH) | ${fmt(median(times.fallback))} |`);
  if (rg) {
    const ratio = median(times.tool) / median(times.rg);
    console.log(`\nWith ripgrep / rg alone: ${ratio.toFixed(2)}× (target ≤ 1.5×: ${ratio <= 1.5 ? "met" : "**not met**"}).\n`);
  } else console.log("\n(ripgrep is not installed: no comparison)\n");
}

// ---- 3. bash ----------------------------------------------------------------------------------------------
async function bashBench() {
  const tools = await openTools(root);
  const plain = () =>
    new Promise((resolve) => {
      const start = now();
      const child = spawn("/bin/bash", ["-c", "exec 2>&1\ntrue"], { stdio: ["ignore", "pipe", "pipe"], detached: true });
      child.stdout.resume();
      child.stderr.resume();
      child.on("close", () => resolve(now() - start));
    });
  for (let i = 0; i < 10; i++) {
    await callTool(tools, "bash", { command: "true" });
    await plain();
  }
  const lua = [];
  const js = [];
  for (let i = 0; i < 50; i++) {
    lua.push((await callTool(tools, "bash", { command: "true" })).ms);
    js.push(await plain());
  }
  await tools.close();
  const overhead = median(lua) - median(js);
  console.log("### `bash` of `true`, p50 of 50\n");
  console.log("| path | p50 |\n| --- | --- |");
  console.log(`| child_process.spawn of /bin/bash -c (until close) | ${fmt(median(js))} |`);
  console.log(`| \`bash\` tool through the agent's path | ${fmt(median(lua))} |`);
  console.log(`\nOverhead ${fmt(overhead)} (target ≤ 5 ms: ${overhead <= 5 ? "met" : "**not met**"}).\n`);
}

// ---- 4. request bytes -------------------------------------------------------------------------------------
async function bytesBench() {
  const cwd = join(root, "project");
  mkdirSync(cwd, { recursive: true });
  const tools = await openTools(cwd);
  const definitions = tools.definitions();
  const system = systemPromptFor({ cwd, env: { HOME: join(root, "home") }, tools: definitions.map((t) => t.name) }).text;
  const conversation = new Conversation();
  conversation.addUserMessage("hi");
  const compat = resolveCompat("https://api.openai.com/v1", {});
  const body = buildChatRequestBody(conversation, definitions, { model: "gpt-4o-mini", system }, compat);
  await tools.close();
  const size = Buffer.byteLength(body);
  const toolBytes = definitions.reduce((n, t) => n + Buffer.byteLength(JSON.stringify({ type: "function", function: { name: t.name, description: t.description, parameters: JSON.parse(t.schema) } })), 0);
  console.log("### Request bytes of a text turn (\"hi\", OpenAI-compatible, no instruction files)\n");
  console.log("| part | bytes |\n| --- | --- |");
  console.log(`| system prompt (cwd ${cwd.length} characters long) | ${Buffer.byteLength(system)} |`);
  console.log(`| the ${definitions.length} std tools' entries | ${toolBytes} |`);
  console.log(`| whole request body | ${size} (target ≤ 5632: ${size <= 5632 ? "met" : "**not met**"}) |`);
  console.log("");
}

// ---- 5. the tool step -------------------------------------------------------------------------------------
async function toolStepBench() {
  const reply = sse(choice({ role: "assistant", content: "Hello." }), choice({}, "stop"));
  const call = sse(
    choice({ role: "assistant", tool_calls: [{ index: 0, id: "c1", type: "function", function: { name: "ls", arguments: "{}" } }] }),
    choice({}, "tool_calls"),
  );
  let sentCallAt = 0;
  const steps = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      const arrived = now();
      const wantsCall = body.includes('"content":"call"') && !body.includes('"role":"tool"');
      if (body.includes('"role":"tool"') && sentCallAt) steps.push(arrived - sentCallAt);
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(wantsCall ? call : reply, () => {
        if (wantsCall) sentCallAt = now();
      });
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const home = join(root, "home-step");
  const cwd = join(root, "step");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(home, { recursive: true });
  const env = { PATH: process.env.PATH, HOME: home, AWL_PROVIDER: "openai", AWL_BASE_URL: `http://127.0.0.1:${server.address().port}/v1`, AWL_API_KEY: "k", AWL_MODEL: "m" };
  const run = (prompt) =>
    new Promise((resolve, reject) => {
      const start = now();
      const child = spawn(process.execPath, [awl, "-p", prompt, "--no-session"], { cwd, env, stdio: ["ignore", "ignore", "pipe"] });
      let err = "";
      child.stderr.on("data", (d) => (err += d));
      child.on("close", (code) => (code === 0 ? resolve(now() - start) : reject(new Error(`awl exited ${code}: ${err}`))));
    });
  await run("hi"); // warms the registration cache
  const replies = [];
  for (let i = 0; i < RUNS; i++) {
    replies.push(await run("hi"));
    await run("call");
  }
  server.close();
  const p50 = median(steps);
  console.log(`### The tool step: tool-call reply → next request, first call of a run, warm registration cache (median of ${RUNS})\n`);
  console.log("| measure | median |\n| --- | --- |");
  console.log(`| \`awl -p hi\`, a one-reply turn with the std tools offered (whole process) | ${fmt(median(replies))} |`);
  console.log(`| tool step of \`awl -p call\` (the model calls \`ls\`) | ${fmt(p50)} (target ≤ 40 ms: ${p50 <= 40 ? "met" : "**not met**"}) |`);
  console.log("");
}

try {
  console.log(`## Std tools (${loadText()})\n`);
  await readBench();
  await grepBench();
  await bashBench();
  await bytesBench();
  await toolStepBench();
} finally {
  rmSync(root, { recursive: true, force: true });
}
