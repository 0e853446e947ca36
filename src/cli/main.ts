#!/usr/bin/env node
/**
 * The `awl` entry point. `awl --version` alone is answered here, loading only the version's own module (it must
 * cost little more than starting Node: issue 30); anything else is the program (program.ts).
 */
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
  process.stdout.write(`${(await import("../version.js")).versionText()}\n`);
} else {
  await import("./program.js");
}
