/**
 * `awl --version` alone (issue 30: ≤ `node -e 0` + 10 ms) loads the entry and the version's own modules, none of
 * the program's: a loader hook (`--import`) lists every module of awl's that Node loads.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { runAwl, tempDir } from "./run-awl.js";

it("`awl --version` and `awl -v` print the version loading only the entry, the version and the package path", async () => {
  const pkg = JSON.parse(readFileSync(join(import.meta.dirname, "../../package.json"), "utf8"));
  const dir = tempDir("awl-version-");
  const listed = join(dir, "loaded.txt");
  writeFileSync(join(dir, "hooks.mjs"), `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  if (url.includes("/dist/")) appendFileSync(${JSON.stringify(listed)}, url.slice(url.indexOf("/dist/") + 1) + "\\n");
  return next(url, context);
}
`);
  writeFileSync(join(dir, "register.mjs"), `import { register } from "node:module";\nregister(${JSON.stringify(`file://${join(dir, "hooks.mjs")}`)});\n`);
  for (const flag of ["--version", "-v"]) {
    writeFileSync(listed, "");
    const run = await runAwl([flag], { env: { NODE_OPTIONS: `--import=${join(dir, "register.mjs")}` } });
    expect(run.stdout).toBe(`awl ${pkg.version}\n`);
    const loaded = readFileSync(listed, "utf8").split("\n").filter(Boolean);
    expect(loaded[0]).toBe("dist/cli/main.js");
    const others = loaded.slice(1).map((path) => path.replace(/^dist\/cli\/chunks\/(.*)-[\w-]{8}\.js$/, "$1"));
    // The version's chunk, and at most the package path's (when the bundler puts it in a chunk of its own) and
    // rolldown's runtime (its helper for module namespaces, in a file of its own when no chunk suits it).
    expect(others).toContain("version");
    expect(others.filter((chunk) => !["version", "package-path", "rolldown-runtime"].includes(chunk))).toEqual([]);
  }
  // With anything else beside it, the program reads the flags as ever: an unknown one is an error.
  const mixed = await runAwl(["--version", "--nonsense"]);
  expect(mixed.code).toBe(2);
  expect(mixed.stderr).toContain("unknown option --nonsense");
});
