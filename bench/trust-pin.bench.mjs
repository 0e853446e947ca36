// Trust pinned to content (issue 23): the content digest of a trusted folder with 200 extension files (src/trust),
// as every start of a trusted folder computes it, with the pin record's file stamps warm (nothing changed: files are
// only stat'ed) and cold (no record: every file read and hashed), beside a bare walk of the same folder (readdir +
// stat of each file) as the floor. Target: warm ≤ 10 ms.
// Run: `npm run bench -- trust-pin`.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir, loadavg } from "node:os";
import { join } from "node:path";
import { checkPin, pinFolder, pinPath } from "../dist/trust/pin.js";
import { median, now, RUNS } from "./support.mjs";

const root = mkdtempSync(join(tmpdir(), "awl-bench-pin-"));
const folder = join(root, "project");
const userConfig = join(root, "config", "config.json");
const extensions = join(folder, ".awl", "extensions");
// 200 files: 150 file extensions and 10 directory extensions of 5 files each, ~2 KB apiece.
mkdirSync(extensions, { recursive: true });
const body = (i) => `awl.register_tool("tool_${i}", { type = "object" }, function() return ${JSON.stringify("x".repeat(2000))} end)\n`;
for (let i = 0; i < 150; i++) writeFileSync(join(extensions, `ext${i}.lua`), body(i));
for (let d = 0; d < 10; d++) {
  mkdirSync(join(extensions, `pkg${d}`));
  writeFileSync(join(extensions, `pkg${d}`, "init.lua"), body(1000 + d));
  for (let m = 0; m < 4; m++) writeFileSync(join(extensions, `pkg${d}`, `mod${m}.lua`), `return ${JSON.stringify("y".repeat(2000))}\n`);
}
writeFileSync(join(folder, ".mcp.json"), JSON.stringify({ mcpServers: { a: { command: "x" } } }));

const walk = (dir) => {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) walk(path);
    else statSync(path);
  }
};

const timed = (fn, before = () => {}) => {
  const samples = [];
  for (let i = 0; i < Math.max(RUNS, 20); i++) {
    before();
    const t = now();
    fn();
    samples.push(now() - t);
  }
  return median(samples);
};

pinFolder(folder, userConfig);
const floor = timed(() => walk(extensions));
const warm = timed(() => checkPin(folder, userConfig));
const cold = timed(() => checkPin(folder, userConfig), () => rmSync(pinPath(userConfig, folder), { force: true }));
const load = loadavg().map((l) => l.toFixed(2)).join(" ");
console.log("## Trust pinned to content (issue 23)\n");
console.log(`200 extension files (150 file extensions, 10 directory extensions of 5 files), median of ${Math.max(RUNS, 20)}; load average ${load}\n`);
console.log("| measure | median | target |");
console.log("| --- | --- | --- |");
console.log(`| content digest, pin record warm (files only stat'ed) | ${warm.toFixed(2)} ms | ≤ 10 ms: ${warm <= 10 ? "met" : "NOT met"} |`);
console.log(`| content digest, no record (every file read and hashed) | ${cold.toFixed(2)} ms | reported |`);
console.log(`| floor: readdir + stat of the same files | ${floor.toFixed(2)} ms | |`);
rmSync(root, { recursive: true, force: true });
