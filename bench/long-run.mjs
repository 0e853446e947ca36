// The long runs of issue 30's "No growth", measured by budget.bench.mjs: a memory probe loaded into awl (`--import`:
// on SIGUSR2 a full GC, then the heap and RSS, or a heap snapshot), stream-json turns, ACP sessions opened and
// closed, and the heap snapshots' growth split in parts (heap-parts.mjs). Not a bench itself.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { awl } from "./support.mjs";
import { heapParts } from "./heap-parts.mjs";

/**
 * The probe awl loads (`--import`): on SIGUSR2 it reads `ask` (a JSON line: `{"snapshot": FILE}` or `{}`), runs full
 * GCs, and writes `answer` with the heap, RSS and live worker threads (after writing the snapshot, if asked).
 */
export function memoryProbe(dir) {
  const file = join(dir, "memory-probe.mjs");
  const ask = join(dir, "probe-ask.json");
  const answer = join(dir, "probe-answer.json");
  writeFileSync(file, `import { readFileSync, renameSync, writeFileSync } from "node:fs";
import v8 from "node:v8";
let workers = 0;
process.on("worker", (w) => { workers++; w.once("exit", () => workers--); });
process.on("SIGUSR2", async () => {
  const ask = JSON.parse(readFileSync(${JSON.stringify(ask)}, "utf8"));
  // Between two GCs a task runs, so the FinalizationRegistry clean-ups of what the first freed run (e.g. the timers
  // held for AbortSignal.timeout signals): otherwise the snapshot counts them as kept.
  globalThis.gc();
  await new Promise((resolve) => setTimeout(resolve, 20));
  globalThis.gc();
  if (ask.snapshot) v8.writeHeapSnapshot(ask.snapshot);
  const m = process.memoryUsage();
  writeFileSync(${JSON.stringify(answer)} + ".tmp", JSON.stringify({ heap: m.heapUsed, heapTotal: m.heapTotal, external: m.external, rss: m.rss, workers, spaces: v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.space_size, s.space_used_size]) }));
  renameSync(${JSON.stringify(answer)} + ".tmp", ${JSON.stringify(answer)});
});
`);
  return {
    /** Node's flags that load the probe. */
    nodeArgs: ["--expose-gc", "--import", file],
    /** `{heap, rss, workers}` of the process `pid` after a full GC (with `snapshot`: also writes a heap snapshot there). */
    async sample(pid, snapshot) {
      rmSync(answer, { force: true });
      writeFileSync(ask, JSON.stringify(snapshot ? { snapshot } : {}));
      process.kill(pid, "SIGUSR2");
      while (!existsSync(answer)) await new Promise((resolve) => setTimeout(resolve, 20));
      return JSON.parse(readFileSync(answer, "utf8"));
    },
  };
}

/** RSS of the process `pid` in bytes, from /proc (no GC first: what the system sees). */
export const rssOf = (pid) => Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)[1]) * 1024;

/** Bytes per 1 000 tool calls, in MB. */
export const perThousand = (bytes, calls) => (bytes / calls) * 1000 / 2 ** 20;

/**
 * One `awl -p --input-format stream-json` process fed `turns` prompts (each `prompt(t)`), turn after turn, in
 * `where` (cwd, env). `at(t, pid)` runs after turn t (awaited). Resolves when awl has exited.
 */
export async function streamJsonRun(where, probe, turns, prompt, at) {
  const child = spawn(process.execPath, [...probe.nodeArgs, awl, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--no-session"], { cwd: where.cwd, env: where.env, stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout });
  let waiting;
  lines.on("line", (line) => {
    const event = JSON.parse(line);
    if (event.type === "result") {
      if (event.is_error) console.error(`awl: a turn ended in an error: ${line.slice(0, 300)}`);
      waiting?.();
    }
  });
  let exited = false;
  child.on("close", (code) => {
    exited = true;
    waiting?.(new Error(`awl exited (${code}) before its turns were done`));
  });
  for (let t = 1; t <= turns; t++) {
    await new Promise((resolve, reject) => {
      if (exited) reject(new Error("awl exited before its turns were done"));
      waiting = (error) => (error ? reject(error) : resolve());
      child.stdin.write(`${JSON.stringify({ type: "user", message: { role: "user", content: prompt(t) } })}\n`);
    });
    await at(t, child.pid);
  }
  waiting = undefined;
  child.stdin.end();
  if (!exited) await new Promise((resolve) => child.on("close", resolve));
}

/**
 * The parts of two heap snapshots' difference, per 1 000 tool calls (MB): the whole live heap, the conversation's
 * own messages, what is kept per message beside them (the wire JSON), compiled code, and the rest.
 */
export function heapGrowth(early, late, calls) {
  const [a, b] = [heapParts(early), heapParts(late)];
  return Object.fromEntries(Object.keys(a).map((k) => [k, perThousand(b[k] - a[k], calls)]));
}

/**
 * `awl acp` with `sessions` sessions, each opened (with `mcpServers`), prompted once (`ask` after its number), and closed; every
 * permission it asks is allowed once. Samples (heap after a GC, RSS, worker threads) after `initialize`, after the
 * first session closed, and after the last (with heap snapshots there when `snapshots` names two files).
 */
export async function acpSessions(where, probe, sessions, mcpServers, ask, snapshots = []) {
  const { client, ndJsonStream, PROTOCOL_VERSION } = await import("@agentclientprotocol/sdk");
  const { Readable, Writable } = await import("node:stream");
  const child = spawn(process.execPath, [...probe.nodeArgs, awl, "acp", "--no-session"], { cwd: where.cwd, env: where.env, stdio: ["pipe", "pipe", "inherit"] });
  const sample = async (snapshot) => ({ ...(await probe.sample(child.pid, snapshot)), rss: rssOf(child.pid) });
  const app = client({ name: "bench" }).onRequest("session/request_permission", () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }));
  const samples = {};
  await app.connectWith(ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)), async (ctx) => {
    await ctx.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    samples.start = await sample();
    for (let s = 1; s <= sessions; s++) {
      const { sessionId } = await ctx.request("session/new", { cwd: where.cwd, mcpServers });
      const { stopReason } = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: `session ${s}: ${ask}` }] });
      if (stopReason !== "end_turn") throw new Error(`session ${s} ended its prompt with ${stopReason}`);
      await ctx.request("session/close", { sessionId });
      if (s === 1) samples.first = await sample(snapshots[0]);
    }
    samples.last = await sample(snapshots[1]);
  });
  child.stdin.end();
  await new Promise((resolve) => child.on("close", resolve));
  return samples;
}
