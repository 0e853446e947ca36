// Hot reload (issue 8 target): an extension file saved → its new version offered to the model, with 20 extensions
// loaded in 4 Lua pool slots, p50 and p95 of 10 saves (target ≤ 300 ms p50); beside it, the time to load all 20
// from scratch (a fresh tool set's first worker) and a `/reload` of all 20 in the 4 slots.
// "Offered": `definitions()` (what the next request carries) holds the new description. The path is the one the
// agent takes: the watcher's notice (after its quiet time, QUIET_MS), then `refresh()`, which loads the changed
// extension in every slot.
// Run: npm run bench -- reload
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";

const { LuaToolSet } = await import("../dist/extensions/lua-tool-set.js");
const { QUIET_MS } = await import("../dist/extensions/watch.js");

const root = mkdtempSync(join(tmpdir(), "awl-bench-reload-"));
const cwd = join(root, "project");
const dir = join(cwd, ".awl", "extensions");
const env = { HOME: join(root, "home"), XDG_CONFIG_HOME: join(root, "home", ".config"), PATH: process.env.PATH };
const SAVES = 10;
const now = () => Number(process.hrtime.bigint()) / 1e6;
const sorted = (v) => [...v].sort((a, b) => a - b);
const median = (v) => sorted(v)[Math.floor(v.length / 2)];
const p95 = (v) => sorted(v)[Math.min(v.length - 1, Math.ceil(0.95 * v.length) - 1)];
const fmt = (ms) => `${ms.toFixed(0)} ms`;

/** Extension `i`, registering two tools (like the tools bench's set); `version` goes into their descriptions. */
function source(i, version) {
  return `for _, verb in ipairs({ "get", "put" }) do
  awl.register_tool {
    name = "ext${i}_" .. verb,
    description = "Tool " .. verb .. " of extension ${i}, version ${version}: does a small thing with a path.",
    parameters = { type = "object", properties = { path = { type = "string" } }, required = { "path" } },
    run = function(args)
      if args.path == "wait" then os.execute("sleep 0.2") end
      return verb .. " " .. args.path
    end,
  }
end
`;
}

const open = () => LuaToolSet.open({ cwd, env, trustProject: true, cachePath: false, bundledDir: false, maxSlots: 4 });
const signal = new AbortController().signal;
const call = (tools, name, path) => tools.execute({ id: "c", name, input: JSON.stringify({ path }) }, signal);

try {
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < 20; i++) writeFileSync(join(dir, `ext${String(i).padStart(2, "0")}.lua`), source(i, 0));

  // From scratch: a fresh tool set until its first worker has loaded all 20 (median of 5).
  const scratch = [];
  for (let i = 0; i < 5; i++) {
    const start = now();
    const tools = await open();
    await tools.loaded();
    scratch.push(now() - start);
    await tools.close();
  }

  const tools = await open();
  await Promise.all([0, 1, 2, 3].map((i) => call(tools, `ext${i}_get`, "wait"))); // four calls at once: four slots
  let seen;
  await tools.watch({ onChange: () => seen?.() });
  const alive = setInterval(() => {}, 1000); // the watch does not hold the process open (awl's own never does)

  const saves = [];
  const refreshes = [];
  for (let v = 1; v <= SAVES; v++) {
    const changed = new Promise((resolve) => (seen = resolve));
    const start = now();
    writeFileSync(join(dir, "ext07.lua"), source(7, v));
    await changed;
    const noticed = now();
    await tools.refresh();
    const offered = tools.definitions().find((t) => t.name === "ext7_get");
    if (!offered?.description.includes(`version ${v}:`)) throw new Error(`reload: version ${v} is not offered`);
    saves.push(now() - start);
    refreshes.push(now() - noticed);
  }
  // Every slot serves the new version (the calls run in whichever slot is free).
  const answers = await Promise.all([0, 1, 2, 3].map(() => call(tools, "ext7_get", "wait")));
  if (answers.some((a) => a.status !== "result")) throw new Error("reload: a slot failed after the reloads");

  const everything = [];
  for (let i = 0; i < 5; i++) {
    const start = now();
    await tools.reload();
    everything.push(now() - start);
  }
  clearInterval(alive);
  await tools.close();

  const [one, five] = loadavg();
  console.log(`## Hot reload (load average ${one.toFixed(1)} / ${five.toFixed(1)})\n`);
  console.log("20 extensions (40 tools), 4 Lua pool slots, one extension saved 10 times.\n");
  console.log("| measure | p50 | p95 |\n| --- | --- | --- |");
  const p50 = median(saves);
  console.log(`| file saved → new version offered (\`definitions()\`), all 4 slots reloaded | **${fmt(p50)}** | ${fmt(p95(saves))} |`);
  console.log(`| of which the watcher's notice → refresh done (the rest is the watcher and its ${QUIET_MS} ms quiet time) | ${fmt(median(refreshes))} | ${fmt(p95(refreshes))} |`);
  console.log(`| baseline: all 20 loaded from scratch (a fresh tool set's first worker, median of 5) | ${fmt(median(scratch))} | |`);
  console.log(`| \`reload()\` (\`/reload\`) of all 20 in the 4 slots, median of 5 | ${fmt(median(everything))} | |`);
  console.log(`\nTarget ≤ 300 ms p50: ${p50 <= 300 ? "met" : "**not met**"}.\n`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
