/**
 * Gives V8's young generation back once a long session has grown it (issue 30, "No growth"). V8 doubles the young
 * generation, up to 32 MB on Node 20, each time as many bytes have survived its collections since the last doubling
 * as it holds, which any long session reaches (its requests grow with the conversation; an ACP session's start or a
 * tool result of megabytes survives a collection whole), and never gives that memory back by itself: most of a long
 * run's RSS growth (docs/benchmarks.md, "No growth"). Only a collection that reduces memory shrinks it, and Node
 * starts one only through its inspector (`HeapProfiler.collectGarbage`: V8's low-memory notification, full
 * collections that also compact the old generation, ≈ 30 ms of CPU; about once per 100 turns of a stream-json run).
 * A V8 flag that stops the growth would change V8's flag hash, which every code cache is checked against (the
 * CLI's, the Lua worker's, Node's own for a new thread's built-ins).
 */
import { lazyBuiltin } from "./lazy-builtin.js";

/** What the young generation may grow to (what start-up and a turn need: V8 starts it at 1 MB and doubles it). */
const LIMIT = 8 * 2 ** 20;
let turnsEnded = 0;
let collecting = false;

/**
 * Called at each turn's end: once the young generation has grown past LIMIT, garbage is collected right after (the
 * turn's result goes out first) so that V8 shrinks it; V8 then grows it again only as far as the next turns need.
 * Not after the process's first turn: a print-mode run, which has only that one, ends anyway.
 */
export function shrinkYoungGeneration(): void {
  if (++turnsEnded === 1 || collecting || youngGenerationSize() <= LIMIT) return;
  collecting = true;
  setImmediate(() => void collect().finally(() => (collecting = false))).unref();
}

/** A full collection that reduces memory (the inspector's, in this thread). */
async function collect(): Promise<void> {
  try {
    const { Session } = await import("node:inspector");
    const session = new Session();
    session.connect();
    try {
      await new Promise<void>((resolve) => session.post("HeapProfiler.collectGarbage", () => resolve()));
    } finally {
      session.disconnect();
    }
  } catch {
    // a Node built without its inspector: the young generation stays as large as it grew
  }
}

/** node:v8, loaded at the second turn's end: a one-turn run never loads it. */
const v8 = lazyBuiltin<typeof import("node:v8")>("node:v8");

/** The bytes V8's young generation (its "new space") holds now. */
function youngGenerationSize(): number {
  return v8().getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0;
}
