// Permission check per call (issue 10): the decision for one tool call with 200 rules in force, beside the same
// check with no rules (baseline, measured in the same run). Target: p50 ≤ 0.1 ms. Run: `npm run bench -- permissions`.
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { PermissionEngine } from "../dist/permissions/engine.js";
import { parseRule } from "../dist/permissions/rules.js";

const root = mkdtempSync(join(tmpdir(), "awl-bench-perm-"));
const ws = join(root, "ws");
mkdirSync(join(ws, "src", "deep"), { recursive: true });
const home = join(root, "home");

function rules(n) {
  const out = [];
  const actions = ["allow", "allow", "allow", "ask", "deny"];
  for (let i = 0; out.length < n; i++) {
    const action = actions[i % actions.length];
    const texts = [`bash(npm run script${i}:*)`, `bash(git sub${i} --flag)`, `edit(src/mod${i}/**)`, `read(~/notes${i}/*.md)`, `tool${i}`, `mcp${i}_*`];
    const parsed = parseRule(texts[i % texts.length], action, { kind: "session" }, ws, home);
    if (!parsed.ok) throw new Error(parsed.message);
    out.push(parsed.rule);
  }
  return out;
}

const bash = { name: "bash", kinds: ["exec"] };
const edit = { name: "edit", kinds: ["write"] };
const read = { name: "read", kinds: ["read"] };
const calls = [
  [bash, { command: "git status && npm run script12 -- --watch | tee log.txt" }],
  [bash, { command: "ls -la" }],
  [edit, { path: "src/deep/file.ts" }],
  [read, { path: "src/../README.md" }],
  [{ name: "tool5", kinds: ["exec"] }, {}],
];

function measure(engine) {
  const samples = [];
  for (let round = 0; round < 2000; round++) {
    for (const [tool, input] of calls) {
      const t = performance.now();
      engine.decide(tool, input);
      samples.push(performance.now() - t);
    }
  }
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(samples.length / 2)], p99: samples[Math.floor(samples.length * 0.99)] };
}

const none = new PermissionEngine({ workspace: ws, home });
const many = new PermissionEngine({ workspace: ws, home, rules: rules(200) });
measure(none);
measure(many); // warm-up
const base = measure(none);
const full = measure(many);
const ms = (x) => `${x.toFixed(4)} ms`;
console.log("## Permissions\n");
console.log("| check per call | p50 | p99 |");
console.log("| --- | --- | --- |");
console.log(`| no rules (baseline) | ${ms(base.p50)} | ${ms(base.p99)} |`);
console.log(`| 200 rules | ${ms(full.p50)} | ${ms(full.p99)} |`);
console.log(`\nTarget p50 ≤ 0.1 ms with 200 rules: ${full.p50 <= 0.1 ? "met" : "NOT met"} (${(full.p50 / base.p50).toFixed(2)}× the no-rule check).\n`);
