/**
 * Files of the awl package itself (its bundled extensions, schema, docs, examples, package.json and the Lua
 * worker), found from wherever the running code is: the TypeScript sources (tests), tsc's `dist/`, or the CLI's
 * bundle (scripts/bundle-cli.mjs), whose chunks sit at other depths than the modules they were built from.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let root: string | undefined;

/** The package's folder: the nearest folder above this module that holds a package.json. */
export function packageRoot(): string {
  if (root !== undefined) return root;
  const here = fileURLToPath(import.meta.url);
  let dir = dirname(here);
  while (!existsSync(join(dir, "package.json"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`awl's package.json was not found in any folder above ${here}`);
    dir = up;
  }
  return (root = dir);
}

/** A path inside the package, e.g. `packagePath("schema", "config.schema.json")`. */
export function packagePath(...segments: string[]): string {
  return join(packageRoot(), ...segments);
}
