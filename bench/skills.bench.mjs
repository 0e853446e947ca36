// Skills, prompt commands and agents (issue 24): start-up of `awl -p` with 50 skills, 50 prompt commands and 20
// agent definitions
// against none, measured through the built awl as the time from spawning it to its first request reaching a local
// OpenAI-compatible server (the skills' front matter comes from the cache after the first run; commands are only
// listed by name). Target: ≤ +10 ms (median). Also the request bytes each listed skill adds (its line in the system
// prompt), and what the `skill` tool and the listing's header cost once. Runs alternate between the two set-ups.
// Run: `npm run bench -- skills` (BENCH_RUNS runs each, default 10).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { choice, median, now, RUNS, sse, firstRequest } from "./support.mjs";

const answer = sse(choice({ role: "assistant", content: "ok" }), choice({}, "stop"), { id: "b", choices: [], usage: { prompt_tokens: 1, completion_tokens: 1 } });

const once = (home) => firstRequest(home, answer);

/** A home with `skills` skills, `commands` prompt commands and `agents` agent definitions in the user's folders. */
function home(skills, commands, agents = 0) {
  const dir = mkdtempSync(join(tmpdir(), "awl-bench-skills-"));
  for (let i = 0; i < skills; i++) {
    const folder = join(dir, ".config", "awl", "skills", `skill-${i}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "SKILL.md"), `---\nname: skill-${i}\ndescription: Does task number ${i} of the project's chores. Use when the user asks for chore ${i}.\nlicense: MIT\n---\n# Skill ${i}\n\n${"Step by step instructions. ".repeat(40)}\n`);
  }
  for (let i = 0; i < commands; i++) {
    const folder = join(dir, ".config", "awl", "commands", i % 2 ? "team" : "");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `cmd-${i}.md`), `---\ndescription: Command ${i}\nargument-hint: WHAT\n---\nDo $ARGUMENTS the way command ${i} says.\n`);
  }
  for (let i = 0; i < agents; i++) {
    const folder = join(dir, ".config", "awl", "agents");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `agent-${i}.md`), `---\nname: agent-${i}\ndescription: Reviews area ${i} of the code. Use for area ${i}.\ntools: [read, grep, glob]\nmodel: inherit\n---\nYou review area ${i}. ${"Be thorough. ".repeat(30)}\n`);
  }
  return dir;
}

const none = home(0, 0);
const one = home(1, 0);
const many = home(50, 50, 20);
const cold = await once(many); // the first run parses every SKILL.md and writes the cache
await once(none);
const a = [];
const b = [];
for (let i = 0; i < RUNS; i++) {
  a.push(await once(none));
  b.push(await once(many));
}
const single = await once(one);
const skillsOnly = home(50, 0);
const fifty = await once(skillsOnly);
const ms = (runs) => median(runs.map((r) => r.ms));
const perSkill = (fifty.bytes - single.bytes) / 49;
console.log("## Skills, prompt commands and agents (issue 24)\n");
console.log(`| start-up of \`awl -p\` to its first request (median of ${RUNS}) | ms |`);
console.log("| --- | ---: |");
console.log(`| no skills, no commands, no agents | ${ms(a).toFixed(1)} |`);
console.log(`| 50 skills + 50 prompt commands + 20 agents (skills' front matter cached) | ${ms(b).toFixed(1)} |`);
console.log(`| difference (target ≤ +10 ms) | ${(ms(b) - ms(a)).toFixed(1)} |`);
console.log(`| the same, first run (every SKILL.md parsed, cache written) | ${cold.ms.toFixed(1)} |`);
console.log(`\nRequest bytes: no skills ${a[0].bytes} B; one skill ${single.bytes} B (+${single.bytes - a[0].bytes} B: the skill tool, the listing's header and its line); each further listed skill +${perSkill.toFixed(0)} B (its \`- name: description\` line, JSON-escaped).\n`);
// In process, less exposed to a busy machine: discovering the 50 + 50 (cache warm) against an empty home.
const { openExtensionReach } = await import("../dist/runtime/extension-reach.js");
const discovery = async (dir) => {
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const t = now();
    await openExtensionReach(dir, false, { HOME: dir });
    times.push(now() - t);
  }
  return median(times);
};
console.log(`In process (median of ${RUNS}): finding 50 skills (front matter cached) and 50 commands ${(await discovery(many)).toFixed(2)} ms; an empty home ${(await discovery(none)).toFixed(2)} ms.\n`);
for (const dir of [none, one, skillsOnly, many]) rmSync(dir, { recursive: true, force: true });
