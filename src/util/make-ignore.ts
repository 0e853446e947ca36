/**
 * An empty `.gitignore` matcher (the `ignore` package), shared by checkpoints, `@path` completion and
 * `awl.fs.walk`. The package is CommonJS and is loaded with `require`, at the first matcher: imported as ESM,
 * Node would first scan its source for named exports (cjs-module-lexer), and that scan, hot enough to be
 * optimised by V8, added ≈ 7 MB to the peak memory of every `awl -p` (issue 30).
 */
import { createRequire } from "node:module";
import type { Ignore } from "./ignore-layers.js";

type IgnoreFactory = (options: { allowRelativePaths: boolean }) => Ignore;
let factory: IgnoreFactory | undefined;

/** A matcher with no rules yet, taking paths relative to its folder. */
export function makeIgnore(): Ignore {
  factory ??= createRequire(import.meta.url)("ignore") as IgnoreFactory;
  return factory({ allowRelativePaths: true });
}
