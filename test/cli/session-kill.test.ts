/**
 * SIGKILL at 50 random moments of a streamed turn with tool calls: the session always loads, is always a
 * prefix of the uninterrupted conversation, and loses at most the message in flight.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { answerUnansweredToolUses } from "../../src/agent/invariant.js";
import type { Message } from "../../src/model/index.js";
import { SessionStore } from "../../src/session/index.js";
import { AWL, tempDir, writeScript } from "./run-awl.js";

const KILLS = 50;
const PARALLEL = 5;

const words = (n: number, w: string) => Array.from({ length: n }, (_, i) => `${w}${i}`).join(" ");
// Three model calls: thinking + text + a tool call; two parallel tool calls; the answer. Streamed 4 characters per delta, 2 ms apart.
const script = [
  { awl_replay: 1, chunk: 4, delay_ms: 2 },
  {
    role: "assistant",
    content: [
      { type: "thinking", thinking: words(30, "think") },
      { type: "text", text: words(20, "look") },
      { type: "tool_use", id: "call_1", name: "ls", input: { path: words(10, "dir") } },
    ],
  },
  {
    role: "assistant",
    content: [
      { type: "tool_use", id: "call_2", name: "read", input: { path: words(10, "a") } },
      { type: "tool_use", id: "call_3", name: "read", input: { path: words(10, "b") } },
    ],
  },
  { role: "assistant", content: [{ type: "text", text: words(60, "answer") }] },
];

/** Runs `awl -p` in stream-json mode, SIGKILLs it after `killAfterMs` (never, if undefined); counts completed assistant messages seen. */
function run(home: string, scriptPath: string, killAfterMs?: number): Promise<{ completeSeen: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [AWL, "-p", "--output-format", "stream-json", "--provider", "replay", "--replay", scriptPath, "list and read"], {
      env: { PATH: process.env.PATH ?? "", HOME: home, XDG_CONFIG_HOME: join(home, ".config") },
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
let fullMs: number;
let scriptPath: string;
beforeAll(async () => {
  const home = tempDir("awl-kill-");
  scriptPath = writeScript(home, script);
  const started = Date.now();
  await run(home, scriptPath);
  fullMs = Date.now() - started;
  const store = new SessionStore(join(home, ".local", "share", "awl", "sessions"));
  const ids = store.ids();
  const loaded = store.load(ids.ok ? ids.value[0]! : "");
  if (!loaded.ok) throw new Error(loaded.error.message);
  full = loaded.value.conversation.messages;
}, 60_000);

describe("a session killed at random moments", () => {
  it("the uninterrupted run saves the whole turn", () => {
    expect(full.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
  });

  it(`always loads, as a prefix of the whole turn, losing at most the message in flight (${KILLS} kills)`, async () => {
    // From start-up to a little past the uninterrupted run's length (runs in parallel start more slowly).
    const times = moments(KILLS, 50, Math.round(fullMs * 1.3));
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
  }, 180_000);
});
