// CI runs the budgets of issue 30 in report mode (docs/benchmarks.md, the "Quiet figures" sections): `npm test` runs the budget
// bench, small, and prints its table into the test log. Its verdicts never fail the run (a busy CI machine inflates
// every wall-clock figure); what fails is a bench that no longer measures: a crash, a missing figure, a table whose
// rows do not add up to its summary.
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

it("the budget bench measures every figure and reports each against its budget", () => {
  const run = spawnSync(process.execPath, ["--expose-gc", join(REPO, "bench/budget.bench.mjs")], {
    cwd: REPO,
    encoding: "utf8",
    timeout: 280_000,
    env: { ...process.env, BENCH_RUNS: "2", BUDGET_TURNS: "40", BUDGET_ACP_SESSIONS: "4", BUDGET_BIG_MB: "2", BUDGET_TTY_TURNS: "6" },
  });
  console.log(`${run.stdout}${run.stderr ? `\nstderr:\n${run.stderr}` : ""}`);
  expect(run.status, run.stderr).toBe(0);
  const rows = run.stdout.split("\n").filter((line) => /\| (under|\*\*OVER\*\*) \|$/.test(line));
  for (const figure of ["`awl -p --no-session hi` wall over `node -e 0`", "`awl -p --no-session hi` peak RSS", "the same reply after 400 ms (a model's time to its first token): peak RSS", "`awl --version` wall over `node -e 0`", "tool step", "the same, its name after 400 ms and its arguments streamed", "interactive: prompt with 20 extensions, 50 skills, 5 hooks", "main heap growth per 1 000 tool calls", "RSS growth from turn 10", "`awl acp`: heap kept per session closed", "interactive (terminal): main heap growth per 1 000 tool calls", "interactive (terminal): RSS growth", "`awl -p hi`, 20 extensions, registration cache removed", "the same, registration cache cut short", "the same, removed: Lua VM functions V8 recompiled with TurboFan"]) {
    expect(rows.some((row) => row.startsWith(`| ${figure}`)), figure).toBe(true);
  }
  // No figure came out as NaN or empty (a measure that silently failed).
  for (const row of rows) expect(row, row).toMatch(/\| -?\d+(\.\d+)? (ms|MB|KB|functions)/);
  const over = rows.filter((row) => row.endsWith("| **OVER** |")).length;
  expect(run.stdout).toContain(over === 0 ? "Every figure is under its budget." : `${over} of ${rows.length} figures are over budget.`);
}, 300_000);
