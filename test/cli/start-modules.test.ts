/**
 * What awl loads to start (issue 30): `awl --version` (≤ `node -e 0` + 10 ms) only the entry and the version's own
 * modules; `awl -p` with a text reply only the CommonJS files of awl's bundle and the packages it needs. Neither
 * runs an ES module, so neither starts Node's ES module loader (≈ 12 ms on Node 20: scripts/bundle-cli.mjs).
 */
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { startReplayServer, type ReplayServer } from "../support/replay-server.js";
import { chunkName, loadReporter } from "./load-report.js";
import { openaiAnswer } from "./openai-answer.js";
import { runAwl, tempDir } from "./run-awl.js";

let server: ReplayServer;
beforeEach(async () => {
  server = await startReplayServer();
});
afterEach(() => server.close());

it("`awl --version` and `awl -v` print the version loading only the entry, the version and the package path", async () => {
  const pkg = JSON.parse(readFileSync(join(import.meta.dirname, "../../package.json"), "utf8"));
  const reporter = loadReporter();
  for (const flag of ["--version", "-v"]) {
    const run = await runAwl([flag], { env: reporter.env });
    expect(run.stdout).toBe(`awl ${pkg.version}\n`);
    const { files, esModules } = reporter.read();
    expect(esModules).toBe(false);
    expect(files[0]).toBe("dist/cli/main.cjs");
    // The version's chunk, and at most the package path's (when the bundler puts it in a chunk of its own) and
    // rolldown's runtime (its helpers for a module's exports, in a file of its own when no chunk suits it).
    const chunks = files.slice(1).map(chunkName);
    expect(chunks).toContain("version");
    expect(chunks.filter((chunk) => !["version", "package-path", "rolldown-runtime"].includes(chunk))).toEqual([]);
  }
  // With anything else beside it, the program reads the flags as ever: an unknown one is an error.
  const mixed = await runAwl(["--version", "--nonsense"]);
  expect(mixed.code).toBe(2);
  expect(mixed.stderr).toContain("unknown option --nonsense");
});

it("`awl -p` with a text reply runs no ES module: the bundle's CommonJS files and packages' only", async () => {
  const reporter = loadReporter();
  server.enqueue(openaiAnswer("Hello."));
  const env = { ...reporter.env, AWL_BASE_URL: `${server.url}/v1`, AWL_API_KEY: "sk-test", AWL_MODEL: "gpt-test" };
  const run = await runAwl(["-p", "hi", "--no-session"], { env });
  expect(run).toMatchObject({ code: 0, stdout: "Hello.\n" });
  const { files, esModules, builtins } = reporter.read();
  expect(esModules).toBe(false);
  const own = files.filter((file) => !file.startsWith("node_modules/"));
  expect(own[0]).toBe("dist/cli/main.cjs");
  expect(own.every((file) => /^dist\/cli\/chunks\/[\w.-]+\.cjs$/.test(file) || file === "dist/cli/main.cjs"), own.join("\n")).toBe(true);
  expect(own.map(chunkName)).toEqual(expect.arrayContaining(["compile-cache", "program", "open", "turn"]));
  // The interactive mode's screen and its own modules stay out of a print-mode reply.
  for (const interactiveOnly of ["screen", "interactive"]) expect(own.map(chunkName)).not.toContain(interactiveOnly);
  // Nor Node's argument parser (the plain command line is read without it: src/cli/plain-args.ts), nor node:tty
  // (stdin here is /dev/null, told from a terminal by its device number: src/cli/stdin.ts).
  expect(builtins).not.toContain("internal/util/parse_args/parse_args");
  expect(builtins).not.toContain("tty");
});

it("`awl -p` in a trusted project folder checks its pinned content without loading the interactive mode or the sessions", async () => {
  const reporter = loadReporter();
  const project = realpathSync(tempDir("awl-project-"));
  mkdirSync(join(project, ".awl"), { recursive: true });
  writeFileSync(join(project, ".awl", "config.json"), JSON.stringify({ max_steps: 7 }));
  server.enqueue(openaiAnswer("Hello."));
  const env = { ...reporter.env, AWL_BASE_URL: `${server.url}/v1`, AWL_API_KEY: "sk-test", AWL_MODEL: "gpt-test" };
  const run = await runAwl(["-p", "hi", "--no-session"], { env, cwd: project, configFile: JSON.stringify({ trusted_folders: [project] }) });
  expect(run).toMatchObject({ code: 0, stdout: "Hello.\n" });
  const chunks = reporter.read().files.map(chunkName);
  // The trust's own chunk (its content pinned at this first start: the notice says so).
  expect(chunks).toContain("trust");
  expect(run.stderr).toMatch(/pinned/);
  for (const interactiveOnly of ["screen", "interactive", "session"]) expect(chunks).not.toContain(interactiveOnly);
});
