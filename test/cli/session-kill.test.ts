/**
 * SIGKILL at 50 random moments of a streamed turn with tool calls: the session always loads, is always a
 * prefix of the uninterrupted conversation, and loses at most the message in flight.
 */
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { beforeAll, describe, expect, it } from "vitest";
import { answerUnansweredToolUses } from "../../src/agent/invariant.js";
import type { Message } from "../../src/model/index.js";
import { SessionStore } from "../../src/session/index.js";
import { AWL, tempDir, writeScript } from "./run-awl.js";

const KILLS = 50;
const PARALLEL = 2;

const words = (n: number, w: string) => Array.from({ length: n }, (_, i) => `${w}${i}`).join(" ");
/** A real Lua tool that draws progress with ctx:show and returns details and a summary. */
const COUNT_EXTENSION = `
awl.register_tool {
  name = "count",
  description = "Count to n.",
  parameters = { type = "object", properties = { n = { type = "integer" } }, required = { "n" } },
  run = function(args, ctx)
    for i = 1, args.n do ctx:show({ counted = i }) end
    return { content = "counted to " .. args.n, summary = "counted " .. args.n, details = { n = args.n } }
  end,
}
`;

// Three model calls: thinking + text + a tool call; two parallel tool calls; the answer. Streamed 4 characters per delta, 2 ms apart.
const script = [
  { awl_replay: 1, chunk: 4, delay_ms: 2 },
  {
    role: "assistant",
    content: [
      { type: "thinking", thinking: words(30, "think") },
      { type: "text", text: words(20, "look") },
      { type: "tool_use", id: "call_1", name: "count", input: { n: 3, note: words(10, "dir") } },
    ],
  },
  {
    role: "assistant",
    content: [
      { type: "tool_use", id: "call_2", name: "count", input: { n: 5, note: words(10, "a") } },
      { type: "tool_use", id: "call_3", name: "missing", input: { path: words(10, "b") } },
    ],
  },
  { role: "assistant", content: [{ type: "text", text: words(60, "answer") }] },
];

/** Runs `awl -p` in stream-json mode, SIGKILLs it after `killAfterMs` (never, if undefined); counts completed assistant messages seen. */
function run(home: string, scriptPath: string, killAfterMs?: number): Promise<{ completeSeen: number }> {
  return new Promise((resolve, reject) => {
    const args = ["-p", "--output-format", "stream-json", "--provider", "replay", "--replay", scriptPath, "--extensions-dir", extensionsDir, "--allow", "*"];
    const child = spawn(process.execPath, [AWL, ...args, "count please"], {
      env: { PATH: process.env.PATH ?? "", TMPDIR: tmpdir(), HOME: home, XDG_CONFIG_HOME: join(home, ".config") },
      cwd: home,
      stdio: ["ignore", "pipe", "ignore"],
    });
    let completeSeen = 0;
    let buffered = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      buffered += d;
      const lines = buffered.split("\n");
      buffered = lines.pop()!;
      for (const line of lines) if (line.includes('"type":"message_complete"')) completeSeen++;
    });
    const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), killAfterMs);
    child.on("error", reject);
    child.on("close", () => {
      clearTimeout(timer);
      resolve({ completeSeen });
    });
  });
}

/** A tiny deterministic generator, so a failing moment can be found again. */
function moments(count: number, fromMs: number, toMs: number): number[] {
  let seed = 20250314;
  return Array.from({ length: count }, () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return fromMs + (seed % (toMs - fromMs));
  });
}

let full: Message[];
let fullSnapshots: Map<string, unknown>;
let fullMs: number;
let scriptPath: string;
let extensionsDir: string;
beforeAll(async () => {
  const home = tempDir("awl-kill-");
  scriptPath = writeScript(home, script);
  extensionsDir = join(home, "extensions");
  mkdirSync(extensionsDir);
  writeFileSync(join(extensionsDir, "count.lua"), COUNT_EXTENSION);
  const started = Date.now();
  await run(home, scriptPath);
  fullMs = Date.now() - started;
  const store = new SessionStore(join(home, ".local", "share", "awl", "sessions"));
  const ids = store.ids();
  const loaded = store.load(ids.ok ? ids.value[0]! : "");
  if (!loaded.ok) throw new Error(loaded.error.message);
  full = loaded.value.conversation.messages;
  fullSnapshots = loaded.value.snapshots;
}, 120_000);

describe("a session killed at random moments", () => {
  it("the uninterrupted run saves the whole turn, with the tools' snapshots, details and summaries", () => {
    expect(full.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    expect(full[2]!.content).toEqual([{ type: "tool_result", tool_use_id: "call_1", content: "counted to 3" }]);
    expect(Object.fromEntries(fullSnapshots)).toEqual({
      call_1: { snapshot: { counted: 3 }, details: { n: 3 }, summary: "counted 3" },
      call_2: { snapshot: { counted: 5 }, details: { n: 5 }, summary: "counted 5" },
    });
  });

  // 25 rounds of runs, each killed by 1.8 × the uninterrupted run, whose length grows with the machine's load (a
  // second or two quiet, ten or more at a load of 30): the test's limit only has to be out of their reach.
  it(`always loads, as a prefix of the whole turn, losing at most the message in flight (${KILLS} kills)`, async () => {
    // From start-up to a little past the uninterrupted run's length (runs side by side start more slowly).
    const times = moments(KILLS, 50, Math.round(fullMs * 1.8));
    const outcomes: { at: number; saved: number; completeSeen: number }[] = [];
    for (let i = 0; i < times.length; i += PARALLEL) {
      await Promise.all(
        times.slice(i, i + PARALLEL).map(async (at) => {
          const home = tempDir("awl-kill-");
          const { completeSeen } = await run(home, scriptPath, at);
          const store = new SessionStore(join(home, ".local", "share", "awl", "sessions"));
          const ids = store.ids();
          if (!ids.ok) throw new Error(ids.error.message);
          if (ids.value.length === 0) {
            // Killed before the first turn started: nothing was saved, and nothing needed to be.
            expect(completeSeen).toBe(0);
            outcomes.push({ at, saved: 0, completeSeen });
            return;
          }
          expect(ids.value).toHaveLength(1);
          const loaded = store.load(ids.value[0]!);
          if (!loaded.ok) throw new Error(`killed at ${at} ms: ${loaded.error.message}`);
          expect(loaded.value.warnings.filter((w) => w.kind !== "torn_tail")).toEqual([]);
          const saved = loaded.value.conversation.messages;
          expect(saved, `killed at ${at} ms`).toEqual(full.slice(0, saved.length));
          // Assistant message k (1-based) is conversation index 2k-1: seeing it complete means everything
          // before it was appended, so at most it (the message in flight) may be missing.
          if (completeSeen > 0) expect(saved.length, `killed at ${at} ms`).toBeGreaterThanOrEqual(2 * completeSeen - 1);
          // Resuming gives a conversation a provider accepts: every tool call answered.
          const opened = store.open(ids.value[0]!);
          if (!opened.ok) throw new Error(opened.error.message);
          expect(answerUnansweredToolUses(opened.value.session.conversation)).toEqual([]);
          opened.value.writer.close();
          outcomes.push({ at, saved: saved.length, completeSeen });
        }),
      );
    }
    expect(outcomes).toHaveLength(KILLS);
    // The kills landed across the turn, not all before or after it.
    expect(outcomes.some((o) => o.saved > 0 && o.saved < full.length)).toBe(true);
  }, 600_000);
});
