// Plugins (issue 25): start-up of `awl -p` with 10 installed plugins (40 Lua extensions, 20 skills) against the same
// extensions and skills in ~/.config/awl/extensions and ~/.config/awl/skills, measured through the built awl as the
// time from spawning it to its first request reaching a local OpenAI-compatible server. A run reads one start
// index (plugins/index.json) and checks the plugins' digests by file metadata (size, mtime, ctime, inode), reading no
// file of a plugin that did not change.
// Target: within noise (median; the plain case's own p10–p90 is printed as its noise). Also the check alone, in
// process: with the index, and cold (no index: every file hashed, the index rebuilt).
// Run: `npm run bench -- plugins` (BENCH_RUNS runs each, default 10).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { awl, choice, loadText, median, now, percentile, RUNS, sse, firstRequest } from "./support.mjs";

const answer = sse(choice({ role: "assistant", content: "ok" }), choice({}, "stop"), { id: "b", choices: [], usage: { prompt_tokens: 1, completion_tokens: 1 } });

const once = async (home) => (await firstRequest(home, answer)).ms;

const lua = (p, e) => `awl.register_tool { name = "p${p}_t${e}", description = "Tool ${e} of plugin ${p}.", kinds = { "read" },
  parameters = { type = "object", properties = { q = { type = "string" } } },
  run = function(args) return "p${p} t${e} " .. tostring(args.q) end }
${"-- padding line of an extension's source\n".repeat(40)}`;
const skill = (name) => `---\nname: ${name}\ndescription: Does ${name}. Use when asked for ${name}.\n---\n${"Instructions. ".repeat(60)}\n`;

/** A home holding the 40 extensions and 20 skills in the user's folders. */
function plainHome() {
  const dir = mkdtempSync(join(tmpdir(), "awl-bench-plain-"));
  for (let p = 0; p < 10; p++) {
    for (let e = 0; e < 4; e++) {
      mkdirSync(join(dir, ".config/awl/extensions"), { recursive: true });
      writeFileSync(join(dir, ".config/awl/extensions", `p${p}_e${e}.lua`), lua(p, e));
    }
    for (let s = 0; s < 2; s++) {
      mkdirSync(join(dir, ".config/awl/skills", `p${p}-s${s}`), { recursive: true });
      writeFileSync(join(dir, ".config/awl/skills", `p${p}-s${s}`, "SKILL.md"), skill(`p${p}-s${s}`));
    }
  }
  return dir;
}

/** A home with the same parts as 10 installed plugins (awl install --yes of 10 folders). */
function pluginHome() {
  const dir = mkdtempSync(join(tmpdir(), "awl-bench-plugins-"));
  const sources = mkdtempSync(join(tmpdir(), "awl-bench-plugin-src-"));
  for (let p = 0; p < 10; p++) {
    const root = join(sources, `plugin-${p}`);
    mkdirSync(join(root, "dev.awl/extensions"), { recursive: true });
    writeFileSync(join(root, "plugin.json"), JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name: `plugin-${p}`, version: "1.0.0" }));
    for (let e = 0; e < 4; e++) writeFileSync(join(root, "dev.awl/extensions", `e${e}.lua`), lua(p, e));
    for (let s = 0; s < 2; s++) {
      mkdirSync(join(root, "skills", `p${p}-s${s}`), { recursive: true });
      writeFileSync(join(root, "skills", `p${p}-s${s}`, "SKILL.md"), skill(`p${p}-s${s}`));
    }
    execFileSync(process.execPath, [awl, "install", "--yes", root], { env: { PATH: process.env.PATH, HOME: dir }, stdio: "ignore" });
  }
  rmSync(sources, { recursive: true, force: true });
  return dir;
}

const plain = plainHome();
const plugins = pluginHome();
await once(plain); // warm the registration and skill caches
await once(plugins);
const a = [];
const b = [];
for (let i = 0; i < RUNS; i++) {
  a.push(await once(plain));
  b.push(await once(plugins));
}
const { startPlugins } = await import("../dist/plugins/start-check.js");
const env = { HOME: plugins };
const warm = [];
for (let i = 0; i < RUNS; i++) {
  const t = now();
  startPlugins(env);
  warm.push(now() - t);
}
rmSync(join(plugins, ".local/share/awl/plugins/index.json"), { force: true });
const t = now();
startPlugins(env);
const cold = now() - t;
console.log("## Plugins (issue 25)\n");
console.log(`| start-up of \`awl -p\` to its first request (median of ${RUNS}) | ms |`);
console.log("| --- | ---: |");
console.log(`| 40 extensions + 20 skills in ~/.config/awl | ${median(a).toFixed(1)} |`);
console.log(`| the same as 10 installed plugins (digests checked) | ${median(b).toFixed(1)} |`);
console.log(`| difference (target: within noise) | ${(median(b) - median(a)).toFixed(1)} |`);
console.log(`\nNoise: the plain case's p10–p90 ${percentile(a, 0.1).toFixed(1)}–${percentile(a, 0.9).toFixed(1)} ms, the plugins' ${percentile(b, 0.1).toFixed(1)}–${percentile(b, 0.9).toFixed(1)} ms (${loadText()}).`);
console.log(`\nIn process: checking the 10 plugins ${median(warm).toFixed(2)} ms (median of ${RUNS}, start index present), ${cold.toFixed(2)} ms without it (every file hashed, the index rebuilt).\n`);
for (const dir of [plain, plugins]) rmSync(dir, { recursive: true, force: true });
