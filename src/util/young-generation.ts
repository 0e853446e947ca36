/**
 * At the end of each turn, V8's young generation stops growing (issue 30, "No growth"). V8 doubles it, up to 32 MB on
 * Node 20, each time enough objects have survived since the last doubling, which any long session reaches (its
 * requests grow with the conversation, a tool returns megabytes), and it never gives that memory back: most of a long
 * run's RSS growth (docs/benchmarks.md, "Budgets"). Start-up and the first turn grow it as far as they need, and a
 * turn's garbage dies young. The flag is the process's, but V8 sets it back whenever an isolate starts (a Lua
 * worker), hence once per turn.
 */
let v8: Promise<typeof import("node:v8")> | undefined;

/** Stops the young generation from growing from now on (until the next worker thread starts). */
export async function holdYoungGeneration(): Promise<void> {
  v8 ??= import("node:v8");
  (await v8).setFlagsFromString("--semi-space-growth-factor=1");
}
