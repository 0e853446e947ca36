// What a one-line reply loads (issue 30): `awl -p --no-session hi` with the std tools offered loads only what such a
// reply runs; each part below loads the first time a run needs it. V8's coverage (NODE_V8_COVERAGE, whatever the
// bundle's module format) lists every script awl loaded with the functions each defines, so a module counts as
// loaded when one of its functions is there; a probe (NODE_OPTIONS=--import) lists the Node built-ins loaded.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { ReplayServer } from "../support/replay-server.js";
import { openaiText, providerEnv, withServerAndSandbox, type Sandbox } from "./support.js";

let server: ReplayServer;
let box: Sandbox;
withServerAndSandbox((made) => ({ server, box } = made));

/** A function of each part a text reply leaves unloaded, and when that part loads. */
const UNLOADED = {
  SessionStore: "the sessions' modules: only for a run that saves its conversation",
  readPluginMcp: "plugins' mcp.json reader: only when an installed plugin has one",
  readPluginHooks: "plugins' hooks.json reader: only when an installed plugin has one",
  checkPin: "a trusted folder's pins: only in a trusted folder",
};

/** The functions defined by awl's scripts that a run of `awl ARGS` loaded, and the Node built-ins it loaded. */
async function loadedBy(args: readonly string[]): Promise<{ functions: Set<string>; builtins: Set<string> }> {
  const coverage = join(box.root, `coverage-${Date.now()}`);
  const builtins = join(box.root, "builtins.txt");
  const probe = join(box.root, "list-builtins.mjs");
  writeFileSync(probe, `import { writeFileSync } from "node:fs";
process.on("exit", () => writeFileSync(${JSON.stringify(builtins)}, process.moduleLoadList.filter((m) => m.startsWith("NativeModule ")).map((m) => m.slice(13)).join("\\n")));
`);
  const run = await box.awl(args, { env: { ...providerEnv("openai", server.url), NODE_V8_COVERAGE: coverage, NODE_OPTIONS: `--import=${probe}` } });
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain("Hello.");
  const functions = new Set<string>();
  for (const file of readdirSync(coverage)) {
    const { result } = JSON.parse(readFileSync(join(coverage, file), "utf8")) as { result: Array<{ url: string; functions: Array<{ functionName: string }> }> };
    // The bundler may suffix a name it renamed in a chunk (`SessionStore$1`).
    for (const script of result) if (script.url.includes("/dist/")) for (const f of script.functions) functions.add(f.functionName.replace(/\$\d+$/, ""));
  }
  return { functions, builtins: new Set(readFileSync(builtins, "utf8").split("\n")) };
}

it("a text reply with --no-session loads none of the parts it does not run; a run that saves its session loads the sessions' modules", async () => {
  server.enqueue({ body: openaiText("Hello.") }, { body: openaiText("Hello.") }, { body: openaiText("Hello.") });
  // The first run in a new home writes the tools' registration cache (a Lua worker loads the extensions).
  await loadedBy(["-p", "--no-session", "hi"]);
  const text = await loadedBy(["-p", "--no-session", "hi"]);
  expect(text.functions).toContain("runPrintMode");
  const loaded = Object.keys(UNLOADED).filter((name) => text.functions.has(name));
  expect(loaded.map((name) => `${name} (${UNLOADED[name as keyof typeof UNLOADED]})`)).toEqual([]);
  // The same probe sees a part once a run needs it.
  const saved = await loadedBy(["-p", "hi"]);
  expect(saved.functions).toContain("SessionStore");
});
