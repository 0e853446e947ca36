// ACP overhead (issue 13): time from the model's first token leaving the local server to the client receiving
// it, through `awl acp` (as an `agent_message_chunk` at the SDK's client side) beside the same through
// `awl --input-format stream-json --output-format stream-json` (its `delta` line). Both awl processes hold one
// session of TURNS prompts; the server and both clients live in this process, so one clock times both ends.
// Target: ACP p50 ≤ stream-json p50 + 1 ms.
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { cpus } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { awl, loadText, percentile, tempFolder } from "./support.mjs";

const TURNS = Number(process.env.BENCH_TURNS ?? 200);

const chunk = (delta, finish_reason = null) => `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason }] })}\n\n`;
/** When the first token of the answer being served was written (ns). */
let firstTokenAt = 0n;
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(chunk({ role: "assistant", content: "" }));
    // The first token a moment later, as a model sends it after thinking: its write is the start of the clock.
    setTimeout(() => {
      firstTokenAt = process.hrtime.bigint();
      res.write(chunk({ content: "Hello" }));
      res.end(chunk({ content: " there." }) + chunk({}, "stop") + "data: [DONE]\n\n");
    }, 5);
  });
});
server.on("connection", (socket) => socket.setNoDelay(true));
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const home = tempFolder("awl-bench-acp-");
const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, ".config"),
  AWL_BASE_URL: `http://127.0.0.1:${server.address().port}/v1`, AWL_API_KEY: "bench", AWL_MODEL: "bench" };
const elapsedMs = () => Number(process.hrtime.bigint() - firstTokenAt) / 1e6;

async function streamJson() {
  const child = spawn(process.execPath, [awl, "--input-format", "stream-json", "--output-format", "stream-json", "--no-session"], { env, cwd: home });
  const samples = [];
  let buffer = "";
  let waiting;
  child.stdout.setEncoding("utf8").on("data", (data) => {
    buffer += data;
    for (let at = buffer.indexOf("\n"); at !== -1; at = buffer.indexOf("\n")) {
      const line = buffer.slice(0, at);
      buffer = buffer.slice(at + 1);
      if (!waiting) continue;
      if (waiting.first && line.includes('"type":"delta"')) {
        samples.push(elapsedMs());
        waiting.first = false;
      } else if (line.startsWith('{"type":"result"')) waiting.done();
    }
  });
  for (let turn = 0; turn < TURNS; turn++) {
    await new Promise((done) => {
      waiting = { first: true, done };
      child.stdin.write(`${JSON.stringify({ type: "user", message: { role: "user", content: `hi ${turn}` } })}\n`);
    });
  }
  child.stdin.end();
  await new Promise((resolve) => child.on("close", resolve));
  return samples;
}

async function acp() {
  const child = spawn(process.execPath, [awl, "acp", "--no-session"], { env, cwd: home });
  const samples = [];
  const raw = [];
  let first = false;
  let firstRaw = false;
  // The same chunk as its bytes arrive, before the SDK client parses and validates it.
  child.stdout.on("data", (data) => {
    if (firstRaw && data.includes("agent_message_chunk")) {
      raw.push(elapsedMs());
      firstRaw = false;
    }
  });
  const app = client({ name: "bench" }).onNotification("session/update", ({ params }) => {
    if (first && params.update.sessionUpdate === "agent_message_chunk") {
      samples.push(elapsedMs());
      first = false;
    }
  });
  const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  await app.connectWith(stream, async (ctx) => {
    await ctx.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await ctx.request("session/new", { cwd: home, mcpServers: [] });
    for (let turn = 0; turn < TURNS; turn++) {
      first = true;
      firstRaw = true;
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: `hi ${turn}` }] });
    }
  });
  child.stdin.end();
  await new Promise((resolve) => child.on("close", resolve));
  return { samples, raw };
}

const json = await streamJson();
const viaAcp = await acp();
server.close();
const row = (name, xs, base) =>
  `| ${name} | ${percentile(xs, 0.5).toFixed(2)} ms | ${percentile(xs, 0.99).toFixed(2)} ms | ${base ? `${(percentile(xs, 0.5) - percentile(base, 0.5) >= 0 ? "+" : "")}${(percentile(xs, 0.5) - percentile(base, 0.5)).toFixed(2)} ms` : "—"} |`;
console.log(`## ACP overhead\n\nFirst token written by the local server → received by the client, ${TURNS} turns in one session each, node ${process.version}, ${cpus().length} CPUs, ${loadText()} at the end.\n`);
console.log("| path | p50 | p99 | p50 vs stream-json |\n| --- | --- | --- | --- |");
console.log(row("`--input-format stream-json` → `delta` line", json));
console.log(row("`awl acp` → `agent_message_chunk` line read from its stdout", viaAcp.raw, json));
console.log(row("`awl acp` → the same chunk delivered by the SDK's client side", viaAcp.samples, json));
const extra = percentile(viaAcp.raw, 0.5) - percentile(json, 0.5);
console.log(`\nTarget: awl's part, ACP p50 ≤ stream-json p50 + 1 ms (both read as bytes from awl's stdout) → ${extra <= 1 ? "met" : "NOT met"} (${extra.toFixed(2)} ms); the SDK client's own parsing and validation is the difference between the last two rows.\n`);
