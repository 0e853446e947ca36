/**
 * After the first turn, V8's young generation stops growing (issue 30, "No growth"). V8 doubles it, up to 32 MB on
 * Node 20, each time enough objects have survived since the last doubling, which any long session reaches (its
 * requests grow with the conversation, a tool returns megabytes), and it never gives that memory back: most of a long
 * run's RSS growth (docs/benchmarks.md, "Budgets"). Start-up and the first turn grow it as far as they need, and a
 * turn's garbage dies young. The flag is the process's, and V8 sets it back whenever an isolate starts: it is set
 * again as each worker thread (a Lua slot, the checkpoint worker) is made and comes online, and at each turn's end.
 */
let v8: Promise<typeof import("node:v8")> | undefined;

/** Stops the young generation from growing from now on; called at the end of each turn. */
export async function holdYoungGeneration(): Promise<void> {
  if (!v8) {
    v8 = import("node:v8");
    // Whichever comes last of a worker's creation and its start wins: both set the flag again.
    process.on("worker", (worker) => {
      hold();
      worker.once("online", hold);
    });
  }
  hold();
  await v8;
}

function hold(): void {
  void v8!.then((m) => m.setFlagsFromString("--semi-space-growth-factor=1"));
}
