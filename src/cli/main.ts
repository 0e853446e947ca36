#!/usr/bin/env node
/**
 * The `awl` entry point (built as dist/cli/main.cjs). `awl --version` alone is answered here, loading only the
 * version's own module (it must cost little more than starting Node: issue 30); anything else is the program
 * (program.ts), compiled from the compile cache (compile-cache.ts). No top-level await: nothing waits for this module.
 */
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
  void import("../version.js").then(({ versionText }) => process.stdout.write(`${versionText()}\n`));
} else {
  void import("./compile-cache.js").then(({ useCompileCache }) => {
    useCompileCache(process.env);
    return import("./program.js");
  });
}
