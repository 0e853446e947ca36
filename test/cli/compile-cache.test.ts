/**
 * V8's compile cache (issue 30, src/cli/compile-cache.ts): a run of awl leaves the compiled code of the files it
 * loaded in `$XDG_CACHE_HOME/awl/compile-cache` for the next run to skip compiling them. Where the running Node has
 * `module.enableCompileCache` (22.1 and newer) Node keeps it; on Node 20 awl does, one `awl/<chunk>.v8` per chunk
 * of its bundle: written by the run that compiled the chunk, taken as it is by the next, and passed over and
 * rewritten when damaged or made by another V8. A cache folder that cannot be written costs nothing but the compile.
 */
import nodeModule from "node:module";
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, writeFileSync, writeSync } from "node:fs";
import { basename, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeCodeCache } from "../../src/util/code-cache-file.js";
import { SHA256_CHECK } from "../../src/util/sha256-check.js";
import { openaiToolCalls } from "../e2e/support.js";
import { startReplayServer, type ReplayServer } from "../support/replay-server.js";
import { chunkName, loadReporter } from "./load-report.js";
import { openaiAnswer } from "./openai-answer.js";
import { runAwl, tempDir } from "./run-awl.js";

const hasNodeCompileCache = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === "function";

let server: ReplayServer;
beforeEach(async () => {
  server = await startReplayServer();
});
afterEach(() => server.close());

/** `awl -p hi` with a one-line reply; its output must be right whatever the cache holds. */
async function ask(env: Record<string, string>): Promise<void> {
  server.enqueue(openaiAnswer("Hello."));
  const run = await runAwl(["-p", "hi", "--no-session"], { env: { AWL_BASE_URL: `${server.url}/v1`, AWL_API_KEY: "sk-test", AWL_MODEL: "gpt-test", ...env } });
  expect(run, run.stderr).toMatchObject({ code: 0, stdout: "Hello.\n", stderr: "" });
}

/** Where each cache file is on disk now (a rewrite is a new file: written whole, then renamed over the old one). */
function identities(dir: string): Map<string, string> {
  return new Map(readdirSync(dir).map((name) => {
    const stat = statSync(join(dir, name));
    return [name, `${stat.ino}:${stat.mtimeMs}`];
  }));
}

describe.runIf(!hasNodeCompileCache)("on a Node without module.enableCompileCache (20)", () => {
  it("a run writes a cache of each chunk it loaded, the next takes them as they are, a damaged one is rewritten", async () => {
    const cacheHome = tempDir("awl-cache-");
    const dir = join(cacheHome, "awl", "compile-cache", "awl");
    const reporter = loadReporter();
    const env = { ...reporter.env, XDG_CACHE_HOME: cacheHome };

    await ask(env);
    // Every chunk loaded, but those loaded before the cache was on: its own and what it imports (the config
    // folders' module, and the lazy built-ins it takes node:os from).
    const beforeCache = new Set(["compile-cache", "rolldown-runtime", "paths", "lazy-builtin"]);
    const chunks = reporter.read().files.filter((file) => file.startsWith("dist/cli/chunks/") && !beforeCache.has(chunkName(file))).map((file) => `${basename(file)}.v8`);
    expect(chunks.length).toBeGreaterThan(10);
    expect(readdirSync(dir).sort()).toEqual([...chunks].sort());
    const written = identities(dir);

    await ask(env);
    expect(identities(dir)).toEqual(written); // V8 took every one: none was written again

    // The biggest cache (the main command's tools), its V8 data damaged and its header intact.
    const [damaged] = [...written.keys()].sort((a, b) => statSync(join(dir, b)).size - statSync(join(dir, a)).size);
    const file = join(dir, damaged!);
    const fd = openSync(file, "r+");
    writeSync(fd, Buffer.alloc(64, 0x5a), 0, 64, Math.floor(statSync(file).size / 2));
    closeSync(fd);
    const before = identities(dir);
    await ask(env);
    const after = identities(dir);
    expect(after.get(damaged!)).not.toBe(before.get(damaged!));
    after.delete(damaged!);
    before.delete(damaged!);
    expect(after).toEqual(before); // the others as they were
    const rewritten = identities(dir);
    await ask(env);
    expect(identities(dir)).toEqual(rewritten); // the new one is good: taken as it is
  });

  it("a cache that V8 refuses (another Node's, its header whole) is rewritten, and another build's files dropped", async () => {
    const cacheHome = tempDir("awl-cache-");
    const dir = join(cacheHome, "awl", "compile-cache", "awl");
    await ask({ XDG_CACHE_HOME: cacheHome });
    const [name] = readdirSync(dir).filter((n) => n.startsWith("turn-"));
    // A whole cache file (its checksum right) of data that is no V8 code cache of this Node.
    const foreign = Buffer.alloc(4096, 7);
    writeCodeCache(join(dir, name!), foreign, SHA256_CHECK);
    writeFileSync(join(dir, "open-OldBuild.cjs.v8"), "an earlier build's chunk");
    const before = statSync(join(dir, name!));

    await ask({ XDG_CACHE_HOME: cacheHome });
    const after = statSync(join(dir, name!));
    expect(after.ino).not.toBe(before.ino);
    expect(readFileSync(join(dir, name!)).includes(foreign)).toBe(false);
    expect(existsSync(join(dir, "open-OldBuild.cjs.v8"))).toBe(false);
  });

  it("a long stream-json run leaves caches that the next such run takes as they are", async () => {
    // A long run grows V8's young generation and has it given back (src/util/young-generation.ts; these turns' long
    // prompts grow it within a few turns): nothing of that may change what the caches are checked against (a V8
    // flag changed at run time changes V8's flag hash, and V8 then refuses every cache the run wrote).
    const cacheHome = tempDir("awl-cache-");
    const dir = join(cacheHome, "awl", "compile-cache", "awl");
    const config = tempDir("awl-config-");
    mkdirSync(join(config, "awl"), { recursive: true });
    // The model's window given: no look-up requests.
    writeFileSync(join(config, "awl", "config.json"), JSON.stringify({ models: { "gpt-test": { context_window: 10_000_000 } } }));
    const turns = 20;
    const run = async () => {
      for (let t = 0; t < turns; t++) server.enqueue({ body: openaiToolCalls([{ id: `c${t}`, name: "ls", input: {} }]) }, openaiAnswer(`Turn ${t} done.`));
      const prompt = (t: number) => JSON.stringify({ type: "user", message: { role: "user", content: `turn ${t}: ${"words to keep ".repeat(8000)}` } });
      const result = await runAwl(["-p", "--no-session", "--input-format", "stream-json", "--output-format", "stream-json"], {
        env: { AWL_BASE_URL: `${server.url}/v1`, AWL_API_KEY: "sk-test", AWL_MODEL: "gpt-test", XDG_CACHE_HOME: cacheHome, XDG_CONFIG_HOME: config },
        input: Array.from({ length: turns }, (_, t) => `${prompt(t)}\n`).join(""),
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(`Turn ${turns - 1} done.`);
    };
    await run();
    const written = identities(dir);
    expect(written.size).toBeGreaterThan(10);
    await run();
    expect(identities(dir)).toEqual(written); // V8 took every one: none was written again
  });

  it("a long-running mode writes again the caches a one-line reply left when it ran more of their chunks; the next reply takes them", async () => {
    // A cache is taken as it is once V8 accepts it, and `awl -p hi` compiles only what a text reply runs: without a
    // refresh, every later interactive or stream-json run would compile the rest of those chunks again.
    const cacheHome = tempDir("awl-cache-");
    const dir = join(cacheHome, "awl", "compile-cache", "awl");
    const env = { XDG_CACHE_HOME: cacheHome };
    await ask(env);
    const sizes = new Map(readdirSync(dir).map((name) => [name, statSync(join(dir, name)).size]));
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "ls", input: {} }]) }, openaiAnswer("Listed."));
    const line = JSON.stringify({ type: "user", message: { role: "user", content: "list" } });
    const streamed = await runAwl(["--no-session", "--input-format", "stream-json", "--output-format", "stream-json"], {
      env: { AWL_BASE_URL: `${server.url}/v1`, AWL_API_KEY: "sk-test", AWL_MODEL: "gpt-test", ...env },
      input: `${line}\n`,
    });
    expect(streamed.code, streamed.stderr).toBe(0);
    expect(streamed.stdout).toContain("Listed.");
    const grown = [...sizes].filter(([name, size]) => statSync(join(dir, name)).size > size).map(([name]) => name);
    expect(grown.length).toBeGreaterThan(0);
    const refreshed = identities(dir);
    await ask(env);
    expect(identities(dir)).toEqual(refreshed); // the refreshed caches are taken as they are
  });

  it("NODE_DISABLE_COMPILE_CACHE keeps none; a cache folder that cannot be written changes nothing else", async () => {
    const cacheHome = tempDir("awl-cache-");
    await ask({ XDG_CACHE_HOME: cacheHome, NODE_DISABLE_COMPILE_CACHE: "1" });
    expect(existsSync(join(cacheHome, "awl", "compile-cache"))).toBe(false);

    const notAFolder = join(tempDir("awl-cache-"), "file");
    writeFileSync(notAFolder, "");
    await ask({ XDG_CACHE_HOME: notAFolder });
  });
});

it.runIf(hasNodeCompileCache)("on a Node with module.enableCompileCache, Node keeps the compiled code in $XDG_CACHE_HOME/awl/compile-cache", async () => {
  const cache = tempDir("awl-cache-");
  await ask({ XDG_CACHE_HOME: cache });
  // Node writes one folder per Node version and user, holding an entry per module compiled.
  const entries = readdirSync(join(cache, "awl", "compile-cache"), { recursive: true }).map(String).filter((name) => name.includes("/"));
  expect(entries.length).toBeGreaterThan(0);
});
