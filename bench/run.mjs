// `npm run bench`: runs every bench/*.bench.mjs in turn (sorted by name); each prints its own section.
// Pass names to run a subset: `npm run bench -- sse startup`; flags (`--profile`) go to each bench run.
import { readdirSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const flags = process.argv.slice(2).filter((a) => a.startsWith("--"));
const files = readdirSync(here)
  .filter((f) => f.endsWith(".bench.mjs"))
  .filter((f) => only.length === 0 || only.some((name) => f.includes(name)))
  .sort();
let failed = 0;
console.log(`# awl benchmarks — ${new Date().toISOString()} — node ${process.version}, ${process.platform}/${process.arch}\n`);
for (const file of files) {
  const result = spawnSync(process.execPath, ["--expose-gc", join(here, file), ...flags], { stdio: "inherit" });
  if (result.status !== 0) {
    failed++;
    console.log(`\n(${file} failed with exit code ${result.status})\n`);
  }
}
process.exit(failed ? 1 : 0);
