/** What a run leaves behind and says besides its result: nothing that is not news to the user. */
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { sandbox, type Sandbox } from "./support.js";

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.remove());

const spillRuns = () => {
  const root = join(box.home, ".local/share/awl/spill");
  return existsSync(root) ? readdirSync(root) : [];
};

it("awl tool call prints the result and nothing else: no 'awl: title …' line on stderr", async () => {
  writeFileSync(join(box.cwd, "notes.txt"), "hello\n");
  const run = await box.awl(["tool", "call", "read", JSON.stringify({ path: "notes.txt" })]);
  expect(run.code).toBe(0);
  expect(run.stdout).toContain("hello");
  expect(run.stderr).toBe("");
});

it("a run whose tools spill nothing leaves no empty folder under the spill directory", async () => {
  writeFileSync(join(box.cwd, "notes.txt"), "hello\n");
  for (let i = 0; i < 2; i++) expect((await box.awl(["tool", "call", "read", JSON.stringify({ path: "notes.txt" })])).code).toBe(0);
  expect(spillRuns()).toEqual([]);
});

it("a run whose tool spilled keeps its spill folder and file", async () => {
  const run = await box.awl(["tool", "call", "bash", JSON.stringify({ command: "seq 1 200000" })]);
  expect(run.code).toBe(0);
  const runs = spillRuns();
  expect(runs).toHaveLength(1);
  expect(readdirSync(join(box.home, ".local/share/awl/spill", runs[0]!)).length).toBeGreaterThan(0);
});
