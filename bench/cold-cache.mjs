// Section 8 of the budget bench (budget.bench.mjs, BUDGET_ONLY=cold-cache): issue 30's Bad input row "a registration
// cache that is corrupt or from another version (rebuilt without a crash; the cold start still within its own budget)".
// `awl -p hi` with 20 user extensions (40 tools) and its registration cache removed, then cut short (a crash while
// writing it), against `node -e 0`: budget +250 ms, issue 4's budget for the cold start (bench/tools.bench.mjs).
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { median, RUNS } from "./support.mjs";

/** 20 extensions of two tools each, as bench/tools.bench.mjs writes them. */
function writeExtensions(dir) {
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < 20; i++) {
    writeFileSync(join(dir, `ext${String(i).padStart(2, "0")}.lua`), `for _, verb in ipairs({ "get", "put" }) do
  awl.register_tool { name = "ext${i}_" .. verb, description = "Tool " .. verb .. " of extension ${i}: does a small thing with a path and a count.",
    parameters = { type = "object", properties = { path = { type = "string", description = "A file path" }, count = { type = "integer", description = "How many" },
      flags = { type = "array", items = { type = "string" } } }, required = { "path" } },
    run = function(args) return verb .. " " .. args.path end }
end
`);
  }
}

/**
 * How many functions of the Lua VM V8 recompiles with TurboFan in one cold start (`--trace-wasm-compilation-times`):
 * a count that does not move with the load. The compile of its main loop took ≈ 100 ms of a second core in every
 * cold run, and the exit waited for it, until the host encoded the registrations' JSON (docs/benchmarks.md, "The
 * cold start without the wasm tier-up").
 */
function turbofanCompiles(args, where) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--trace-wasm-compilation-times", ...args], { cwd: where.cwd, env: where.env, stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("close", (code) => (code === 0 ? resolve(out.split("\n").filter((line) => line.includes("using TurboFan")).length) : reject(new Error(`node ${args.join(" ")} exited ${code}`))));
  });
}

/** Runs the section: `place`, `judge` and `measured` (wall ms and peak RSS of `node ARGS`) are budget.bench.mjs's. */
export async function coldCache({ place, judge, measured, awl }) {
  const where = place("cold-cache");
  writeExtensions(join(where.home, ".config", "awl", "extensions"));
  const cache = join(where.home, ".cache", "awl", "extension-tools.json");
  const hi = [awl, "-p", "hi"];
  await measured(["-e", "0"], where);
  await measured(hi, where); // warm the file cache; writes a whole registration cache
  const whole = readFileSync(cache, "utf8");
  const runs = { node: [], removed: [], corrupt: [] };
  for (let i = 0; i < RUNS; i++) {
    runs.node.push((await measured(["-e", "0"], where)).ms);
    rmSync(cache, { force: true });
    runs.removed.push((await measured(hi, where)).ms);
    writeFileSync(cache, whole.slice(0, whole.length >> 1));
    runs.corrupt.push((await measured(hi, where)).ms);
  }
  // Rebuilt whole: the same cache but for when each file was hashed.
  const hashTimeLeftOut = (text) => JSON.stringify(JSON.parse(text, (key, value) => (key === "hashed_at" ? undefined : value)));
  const rebuilt = hashTimeLeftOut(readFileSync(cache, "utf8")) === hashTimeLeftOut(whole);
  const node = median(runs.node);
  judge("`awl -p hi`, 20 extensions, registration cache removed, over `node -e 0`", median(runs.removed) - node, "ms", 250, ` (node ${node.toFixed(0)} ms)`);
  judge("the same, registration cache cut short (corrupt)", median(runs.corrupt) - node, "ms", 250, rebuilt ? " (rebuilt whole each run)" : " (**not rebuilt**)");
  rmSync(cache, { force: true });
  judge("the same, removed: Lua VM functions V8 recompiled with TurboFan", await turbofanCompiles(hi, where), "functions", 0);
}
