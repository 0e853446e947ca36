/**
 * V8's compile cache (issue 30): where the running Node has `module.enableCompileCache` (22.1 and newer), a run of
 * awl leaves the compiled code of the modules it loaded in `$XDG_CACHE_HOME/awl/compile-cache`, for the next run to
 * skip compiling them; where it does not (Node 20), awl runs as before and writes no such folder.
 */
import nodeModule from "node:module";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { runAwl, tempDir } from "./run-awl.js";

const hasCompileCache = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === "function";

it(`${hasCompileCache ? "keeps" : "on this Node (no module.enableCompileCache) keeps no"} compiled code between runs in $XDG_CACHE_HOME/awl/compile-cache`, async () => {
  const cache = tempDir("awl-cache-");
  const run = await runAwl(["tools"], { env: { XDG_CACHE_HOME: cache } });
  expect(run.code, run.stderr).toBe(0);
  const folder = join(cache, "awl", "compile-cache");
  if (!hasCompileCache) {
    expect(existsSync(folder)).toBe(false);
    return;
  }
  // Node writes one folder per Node version and user, holding an entry per module compiled.
  const entries = readdirSync(folder, { recursive: true }).map(String).filter((name) => name.includes("/"));
  expect(entries.length).toBeGreaterThan(0);
});
