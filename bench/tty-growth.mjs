// Section 7 of the budget bench (budget.bench.mjs, BUDGET_ONLY=tty-growth): issue 30's interactive long run. One
// awl in a terminal (tmux) fed `turns` prompts of 10 tool calls each, in two model steps: the std tools (ls, read,
// grep, find, bash), a project Lua extension's tool, an MCP server's tool (test/fixtures/mcp/odd-server.mjs); the
// extension's file is rewritten every 50 calls (a hot reload), every other turn runs a command that asks and is
// answered with `y` (every tenth one's output is spilled to a file), and one `/compact` halfway. RSS after turn 10
// (half the turns of a short run) and at the end (≤ +20 MB), and heap snapshots there split by heap-parts.mjs: the
// rest per 1 000 calls (≤ 1 MB) is what the UI, its permission questions, the MCP client, spill files or the
// reloads keep per call. Two passes, as in section 4: a snapshot's buffers stay in RSS.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repo } from "./support.mjs";
import { heapGrowth, memoryProbe, perThousand, rssOf } from "./long-run.mjs";
import { startTty } from "./tty-run.mjs";

/** Tool calls per turn: 5 in each of 2 model steps. */
const CALLS = 10;
/**
 * The calls of turn t (the server repeats them in each step): odd turns run a command that asks, and every tenth
 * turn's command prints 3 000 lines, so its whole output is saved to a spill file (the model reads 2 000 lines).
 */
const callsOf = (t) =>
  t % 2
    ? [["ls", {}], ["read", { path: "file1.txt" }], ["bash", { command: t % 10 === 5 ? "seq 1 3000" : "echo hi" }], ["proj", { text: "x" }], ["odd_slow", { ms: 1 }]]
    : [["grep", { pattern: "file", path: "." }], ["find", { pattern: "*.txt" }], ["read", { path: "file2.txt" }], ["proj", { text: "y" }], ["odd_slow", { ms: 1 }]];

/** The project's Lua extension, version `v` (its reply names the version, so a reload is seen in the next turn). */
const extension = (v) => `awl.register_tool { name = "proj", description = "Echoes its text (version ${v}).", kinds = { "read" },
  parameters = { type = "object", properties = { text = { type = "string" } } },
  run = function(args) return "proj v${v} " .. (args.text or "") end }\n`;

/**
 * Runs the section: `place(name)` makes a home and a working folder (budget.bench.mjs), `judge` prints a row, `root`
 * holds the probe and the snapshots.
 */
export async function ttyGrowth({ place, root, judge, turns }) {
  const probe = memoryProbe(root);
  // After the first turns (10 of a long run, half of a short one) the run is measured; the compaction is halfway on.
  const first = Math.min(10, Math.floor(turns / 2));
  const compactAt = first + Math.ceil((turns - first) / 2);
  /** One pass: the samples `at(t, pid)` takes after turn t, and what the run did. */
  const pass = async (name, at) => {
    const where = place(name);
    const project = join(where.cwd, ".awl", "extensions");
    mkdirSync(project, { recursive: true });
    let version = 1;
    writeFileSync(join(project, "proj.lua"), extension(version));
    writeFileSync(join(where.cwd, ".mcp.json"), JSON.stringify({ mcpServers: { odd: { command: process.execPath, args: [join(repo, "test/fixtures/mcp/odd-server.mjs")] } } }));
    writeFileSync(join(where.home, ".config", "awl", "config.json"), JSON.stringify({ models: { m: { context_window: 1_000_000 } }, permissions: { allow: ["odd_slow"] } }));
    const tty = await startTty(where, probe, ["--trust-project"]);
    const did = { calls: 0, asks: 0, reloads: 0, reloadsSeen: 0, spilled: 0 };
    try {
      const pid = await tty.pid();
      for (let t = 1; t <= turns; t++) {
        if (t > 1 && did.calls % 50 === 0) {
          writeFileSync(join(project, "proj.lua"), extension(++version));
          did.reloads++;
        }
        if (t === compactAt) await tty.command("/compact", /compacted the conversation/);
        const calls = callsOf(t);
        const { answered, text } = await tty.turn(`turn ${t}:`, `turn ${t}: calls=${JSON.stringify(calls)} steps=${CALLS / calls.length}`);
        did.asks += answered;
        did.calls += CALLS;
        if (text.includes(`proj v${version} `) && version > 1 && did.reloadsSeen < version - 1) did.reloadsSeen = version - 1;
        await at(t, pid);
      }
    } finally {
      await tty.stop();
    }
    const spill = join(where.home, ".local", "share", "awl", "spill");
    did.spilled = existsSync(spill) ? readdirSync(spill, { recursive: true }).filter((f) => String(f).endsWith(".txt")).length : 0;
    return did;
  };
  const samples = {};
  // RSS also at each tenth of the run, to show whether it levels off.
  const tenth = Math.max(1, Math.round(turns / 10));
  const did = await pass("tty-rss", async (t, pid) => {
    if (t === first || t === turns || (t > first && t % tenth === 0)) samples[t] = { ...(await probe.sample(pid)), rss: rssOf(pid) };
  });
  const snapshots = [join(root, "tty-early.heapsnapshot"), join(root, "tty-late.heapsnapshot")];
  await pass("tty-heap", async (t, pid) => {
    if (t === first) await probe.sample(pid, snapshots[0]);
    if (t === turns) await probe.sample(pid, snapshots[1]);
  });
  const [early, late] = [samples[first], samples[turns]];
  const measured = (turns - first) * CALLS;
  const parts = heapGrowth(...snapshots, measured);
  const mb = (v) => `${v.toFixed(2)} MB`;
  const what = `${did.calls} calls, ${did.asks} questions answered, ${did.spilled} outputs spilled, ${did.reloadsSeen} of ${did.reloads} reloads seen, one /compact`;
  judge(`interactive (terminal): main heap growth per 1 000 tool calls, net of the conversation (snapshots; ${measured} calls after turn ${first})`, parts.rest, "MB", 1,
    ` (in all ${mb(parts.live)}: conversation ${mb(parts.conversation)}, wire JSON ${mb(parts.memo)}, code ${mb(parts.code)}; after a GC the heap grew ${mb(perThousand(late.heap - early.heap, measured))})`);
  // V8's young generation grows over a long run and never shrinks (docs/benchmarks.md, "No growth"): said apart.
  const young = (sample) => sample.spaces.filter(([space]) => space === "new_space").reduce((sum, [, size]) => sum + size, 0) / 2 ** 20;
  judge(`interactive (terminal): RSS growth from turn ${first} to turn ${turns}`, (late.rss - early.rss) / 2 ** 20, "MB", 20,
    ` (${(early.rss / 2 ** 20).toFixed(0)} → ${(late.rss / 2 ** 20).toFixed(0)} MB, of it V8's young generation ${young(early).toFixed(0)} → ${young(late).toFixed(0)} MB; ${what}; RSS / young generation by turn: ${Object.entries(samples).map(([t, m]) => `${t}: ${(m.rss / 2 ** 20).toFixed(0)} / ${young(m).toFixed(0)}`).join(", ")} MB)`);
}
