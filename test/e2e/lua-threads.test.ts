// How many threads a headless run starts (issue 30): a reply needing no tool starts no Lua worker at all; one starts
// once a call is likely (a request slow to answer, a tool call streaming), and the call runs in it. A probe
// (NODE_OPTIONS=--import) counts the worker threads the main thread creates, marks the first one's start in a file,
// and writes the count when awl exits. (Until issue 30 every headless run started a worker as its tools opened, and
// before that a second one, started as awl began with awl's own environment, that the pool could never take.)
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { bodyGate, type ReplayServer } from "../support/replay-server.js";
import { waitUntil } from "../support/processes.js";
import { openaiText, openaiToolCalls, providerEnv, withServerAndSandbox, type Sandbox } from "./support.js";

let server: ReplayServer;
let box: Sandbox;
withServerAndSandbox((made) => ({ server, box } = made));

/** Where the probe marks that a first worker thread has started. */
const firstStarted = () => join(box.root, "worker-started");

/** `awl -p PROMPT` with the probe: its run and the number of worker threads it started. */
async function threadsOf(prompt: string) {
  const probe = join(box.root, "count-workers.mjs");
  const out = join(box.root, "workers.txt");
  writeFileSync(probe, `import { isMainThread } from "node:worker_threads";
import { writeFileSync } from "node:fs";
if (isMainThread) {
  let started = 0;
  process.on("worker", () => started++ === 0 && writeFileSync(${JSON.stringify(firstStarted())}, ""));
  process.on("exit", () => writeFileSync(${JSON.stringify(out)}, String(started)));
}
`);
  // --no-session: no checkpoints, so no checkpoint worker; the count is the Lua workers'.
  const run = await box.awl(["-p", "--no-session", prompt], { env: { ...providerEnv("openai", server.url), NODE_OPTIONS: `--import=${probe}` } });
  return { run, threads: Number(readFileSync(out, "utf8")) };
}

it("a reply that needs no tool starts no Lua worker (once the tools' registration cache is written)", async () => {
  server.enqueue({ body: openaiText("Hello.") }, { body: openaiText("Hello again.") });
  // The first run in a new home has no registration cache: a worker loads the extensions to learn their tools.
  const first = await threadsOf("hi");
  expect(first.run.code, first.run.stderr).toBe(0);
  expect(first.threads).toBe(1);
  const { run, threads } = await threadsOf("hi");
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain("Hello again.");
  expect(threads).toBe(0);
});

it("a request slow to answer starts the Lua worker while it waits, so a call that follows finds it started", async () => {
  // The reply is held until the worker has started: it must start while the request is still unanswered.
  const gate = bodyGate();
  server.enqueue({ body: [{ data: openaiText("Thought about it."), after: gate.until }] });
  const running = threadsOf("think first");
  await waitUntil(() => existsSync(firstStarted()), "a Lua worker to start while the request waits for its answer");
  gate.open();
  const { run, threads } = await running;
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain("Thought about it.");
  expect(threads).toBe(1);
});

it("a tool call starts one Lua worker and runs in it", async () => {
  writeFileSync(join(box.cwd, "notes.txt"), "a note\n");
  server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "read", input: { path: "notes.txt" } }]) }, { body: openaiText("Read it.") });
  const { run, threads } = await threadsOf("read the notes");
  expect(run.code, run.stderr).toBe(0);
  expect(JSON.stringify(server.requests.at(-1)!.json().messages)).toContain("a note");
  expect(threads).toBe(1);
});

it("a long call of a tool that can render starts no second worker for renders where no block is drawn", async () => {
  // A call past 50 ms of a tool with a render starts the renders' worker ahead in the interactive UI; print mode and
  // stream-json never draw a block, and that worker stayed until exit (+13 MB for a whole session).
  const extensions = join(box.home, ".config/awl/extensions");
  mkdirSync(extensions, { recursive: true });
  writeFileSync(join(extensions, "drawn.lua"), `awl.register_tool { name = "drawn", description = "A tool that draws its block.", kinds = { "read" }, parameters = { type = "object" },
  run = function() local t = os.clock(); while os.clock() - t < 0.4 do end; return "ran" end,
  render = function() return "drawn" end }`);
  server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "drawn", input: {} }]) }, { body: openaiText("Done.") });
  const { run, threads } = await threadsOf("draw");
  expect(run.code, run.stderr).toBe(0);
  expect(JSON.stringify(server.requests.at(-1)!.json().messages)).toContain("ran");
  expect(threads).toBe(1);
});

it("a Lua result of megabytes replaces its worker, so the memory it took goes back; a small one keeps it", async () => {
  // WebAssembly memory never shrinks: a worker that built a 3 MB result kept that heap for the rest of the session.
  const extensions = join(box.home, ".config/awl/extensions");
  mkdirSync(extensions, { recursive: true });
  writeFileSync(join(extensions, "sized.lua"), `awl.register_tool { name = "sized", description = "Returns kb kilobytes.", kinds = { "read" },
  parameters = { type = "object", properties = { kb = { type = "number" } } },
  run = function(args) return string.rep("x", args.kb * 1024) end }`);
  // The model's window is known: the big result's 40 000 characters shown to it need no window look-up.
  writeFileSync(join(box.home, ".config/awl/config.json"), JSON.stringify({ models: { "test-model": { context_window: 1_000_000 } } }));
  const calls = (kbs: number[]) => kbs.map((kb, i) => ({ body: openaiToolCalls([{ id: `c${i}`, name: "sized", input: { kb } }]) }));
  server.enqueue(...calls([3 * 1024, 1]), { body: openaiText("Done.") });
  const big = await threadsOf("big, then small");
  expect(big.run.code, big.run.stderr).toBe(0);
  expect(big.threads).toBe(2);
  server.enqueue(...calls([1, 1]), { body: openaiText("Done.") });
  const small = await threadsOf("small, then small");
  expect(small.run.code, small.run.stderr).toBe(0);
  expect(small.threads).toBe(1);
});
