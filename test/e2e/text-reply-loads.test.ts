// What a one-line reply loads (issue 30): `awl -p --no-session hi` with the std tools offered loads only what such a
// reply runs; each part below loads the first time a run needs it. V8's coverage (NODE_V8_COVERAGE, whatever the
// bundle's module format) lists every script awl loaded, so a module counts as loaded when a loaded script defines
// one of its functions or classes. A config file that passed the schema check unchanged is not checked again: the
// validator's code is not loaded.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
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
  runSubAgent: "a sub-agent's loop: only once the task tool runs one",
  parseCommand: "the permission engine's shell command reader: only once a command is checked",
  SessionRecorder: "the sessions' recorder: only for a run that saves its conversation or runs a sub-agent",
};

/** What awl's scripts that a run of `awl ARGS` loaded define (`defines`) and hold (`has`). */
async function loadedBy(args: readonly string[]): Promise<{ defines: (name: string) => boolean; has: (code: RegExp) => boolean; packages: string[]; nodeModules: Set<string> }> {
  const coverage = join(box.root, `coverage-${Date.now()}`);
  const run = await box.awl(args, { env: { ...providerEnv("openai", server.url), NODE_V8_COVERAGE: coverage } });
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain("Hello.");
  const scripts = new Set<string>();
  const packages = new Set<string>();
  const nodeModules = new Set<string>();
  for (const file of readdirSync(coverage)) {
    const { result } = JSON.parse(readFileSync(join(coverage, file), "utf8")) as { result: Array<{ url: string }> };
    for (const script of result) {
      if (script.url.startsWith("node:")) nodeModules.add(script.url);
      if (!script.url.startsWith("file://")) continue;
      const path = fileURLToPath(script.url);
      if (path.includes("/node_modules/")) packages.add(path.slice(path.lastIndexOf("/node_modules/") + 14));
      else if (path.includes("/dist/")) scripts.add(path);
    }
  }
  const text = [...scripts].map((path) => readFileSync(path, "utf8")).join("\n");
  // `function NAME`, `class NAME` or `NAME = class` (as a bundler writes a class), which it may have renamed `NAME$1`.
  const defines = (name: string) => new RegExp(`\\b(?:class|function) ${name}(?:\\$\\d+)?\\b|\\b${name}(?:\\$\\d+)? = class\\b`).test(text);
  return { defines, has: (code) => code.test(text), packages: [...packages], nodeModules };
}

/** The schema id in the generated config validator's code. */
const VALIDATOR = /"\$id":\s*"awl-config-v1"/;

it("a text reply with --no-session loads none of the parts it does not run; a run that saves its session loads the sessions' modules", async () => {
  server.enqueue({ body: openaiText("Hello.") }, { body: openaiText("Hello.") }, { body: openaiText("Hello.") });
  mkdirSync(join(box.home, ".config", "awl"), { recursive: true });
  writeFileSync(join(box.home, ".config", "awl", "config.json"), JSON.stringify({ models: { m: { context_window: 1_000_000 } } }));
  // The first run in a new home writes the tools' registration cache (a Lua worker loads the extensions) and
  // checks the config file against the schema; the next one has both to hand.
  const first = await loadedBy(["-p", "--no-session", "hi"]);
  expect(first.has(VALIDATOR)).toBe(true);
  const text = await loadedBy(["-p", "--no-session", "hi"]);
  expect(text.defines("runPrintMode")).toBe(true);
  expect(text.has(VALIDATOR)).toBe(false);
  // A package a reply needs is bundled into awl's chunks (scripts/bundle-cli.mjs), which the code cache covers.
  expect(text.packages).toEqual([]);
  // Nor Node's promise file API, which brings its readline and file watchers (≈ 2 ms): `fs.promises` at the call.
  expect(text.nodeModules.has("node:http")).toBe(true);
  expect(text.nodeModules.has("node:internal/fs/promises")).toBe(false);
  // Nor node:v8, which only a second turn's end asks (src/util/young-generation.ts), nor node:child_process (with
  // its dgram), which only a spawn needs (src/util/lazy-builtin.ts).
  expect(text.nodeModules.has("node:v8")).toBe(false);
  expect(text.nodeModules.has("node:child_process")).toBe(false);
  // Nor Node's argument parser, which a plain command line goes without (src/cli/plain-args.ts), nor node:tty, which
  // only a character device on stdin or an interactive start asks (src/cli/stdin.ts; stdin is a socket here).
  expect(text.nodeModules.has("node:internal/util/parse_args/parse_args")).toBe(false);
  expect(text.nodeModules.has("node:tty")).toBe(false);
  // Nor node:os: the home folder comes from HOME (src/util/lazy-builtin.ts `os`, asked only without one).
  expect(text.nodeModules.has("node:os")).toBe(false);
  const loaded = Object.keys(UNLOADED).filter((name) => text.defines(name));
  expect(loaded.map((name) => `${name} (${UNLOADED[name as keyof typeof UNLOADED]})`)).toEqual([]);
  // The same probe sees a part once a run needs it.
  const saved = await loadedBy(["-p", "hi"]);
  expect(saved.defines("SessionStore")).toBe(true);
});
