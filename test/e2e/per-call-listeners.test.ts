// No listener per tool call is left on a long-lived emitter (issue 30, "No growth"): one stream-json process runs 12
// turns that each call `ls` and `read`; a probe (NODE_OPTIONS=--import) counts, as each turn's `result` line is
// written, the listeners on `process` and on every worker thread, per event. The counts after turn 6 and after
// turn 12 are the same: a listener added per call and never removed would show as 12 more.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { ReplayServer } from "../support/replay-server.js";
import { openaiText, openaiToolCalls, providerEnv, withServerAndSandbox, type Sandbox } from "./support.js";

let server: ReplayServer;
let box: Sandbox;
withServerAndSandbox((made) => ({ server, box } = made));

it("twelve turns of tool calls leave no listener behind on process or the worker threads", async () => {
  const probe = join(box.root, "count-listeners.mjs");
  const out = join(box.root, "listeners.json");
  writeFileSync(probe, `import { isMainThread } from "node:worker_threads";
import { writeFileSync } from "node:fs";
if (isMainThread) {
  const workers = new Set();
  process.on("worker", (w) => { workers.add(w); w.once("exit", () => workers.delete(w)); });
  // "online" is a worker's one-shot start-up event, not a per-call listener.
  const count = (emitter) => Object.fromEntries(emitter.eventNames().filter((e) => e !== "online").map((e) => [String(e), emitter.listenerCount(e)]));
  const samples = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (chunk, ...rest) => {
    if (String(chunk).includes('"type":"result"')) samples.push({ process: count(process), workers: [...workers].map(count) });
    return write(chunk, ...rest);
  };
  process.on("exit", () => writeFileSync(${JSON.stringify(out)}, JSON.stringify(samples)));
}
`);
  writeFileSync(join(box.cwd, "notes.txt"), "a note\n");
  const turns = 12;
  for (let i = 0; i < turns; i++) {
    server.enqueue({ body: openaiToolCalls([{ id: `ls${i}`, name: "ls", input: {} }, { id: `read${i}`, name: "read", input: { path: "notes.txt" } }]) }, { body: openaiText(`Turn ${i} done.`) });
  }
  const input = Array.from({ length: turns }, (_, i) => JSON.stringify({ type: "user", message: { role: "user", content: `turn ${i}` } })).join("\n") + "\n";
  const run = await box.awl(["-p", "--no-session", "--input-format", "stream-json", "--output-format", "stream-json"], {
    env: { ...providerEnv("openai", server.url), NODE_OPTIONS: `--import=${probe}` },
    input,
  });
  expect(run.code, run.stderr).toBe(0);
  const samples = JSON.parse(readFileSync(out, "utf8")) as unknown[];
  expect(samples).toHaveLength(turns);
  expect(samples[turns - 1]).toEqual(samples[5]);
});
