// How many threads a headless run starts (issue 30): a reply needing no tool costs no more than the one Lua worker
// started ahead when the tools open, and a call runs in that same worker. A probe (NODE_OPTIONS=--import) counts
// the worker threads the main thread creates and writes the count when awl exits. (Until issue 30 a second thread,
// started as awl began with awl's own environment, could never be taken by the pool and was started every run.)
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { ReplayServer } from "../support/replay-server.js";
import { openaiText, openaiToolCalls, providerEnv, withServerAndSandbox, type Sandbox } from "./support.js";

let server: ReplayServer;
let box: Sandbox;
withServerAndSandbox((made) => ({ server, box } = made));

/** `awl -p PROMPT` with the probe: its run and the number of worker threads it started. */
async function threadsOf(prompt: string) {
  const probe = join(box.root, "count-workers.mjs");
  const out = join(box.root, "workers.txt");
  writeFileSync(probe, `import { isMainThread } from "node:worker_threads";
import { writeFileSync } from "node:fs";
if (isMainThread) {
  let started = 0;
  process.on("worker", () => started++);
  process.on("exit", () => writeFileSync(${JSON.stringify(out)}, String(started)));
}
`);
  // --no-session: no checkpoints, so no checkpoint worker; the count is the Lua workers'.
  const run = await box.awl(["-p", "--no-session", prompt], { env: { ...providerEnv("openai", server.url), NODE_OPTIONS: `--import=${probe}` } });
  return { run, threads: Number(readFileSync(out, "utf8")) };
}

it("a reply that needs no tool starts at most the one Lua worker started ahead", async () => {
  server.enqueue({ body: openaiText("Hello.") });
  const { run, threads } = await threadsOf("hi");
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain("Hello.");
  expect(threads).toBeLessThanOrEqual(1);
});

it("a tool call runs in the worker started ahead: still one thread", async () => {
  writeFileSync(join(box.cwd, "notes.txt"), "a note\n");
  server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "read", input: { path: "notes.txt" } }]) }, { body: openaiText("Read it.") });
  const { run, threads } = await threadsOf("read the notes");
  expect(run.code, run.stderr).toBe(0);
  expect(JSON.stringify(server.requests.at(-1)!.json().messages)).toContain("a note");
  expect(threads).toBe(1);
});
