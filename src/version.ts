/** awl's own version, read once from its package.json (the installed package, wherever it lives). */
import { readFileSync } from "node:fs";
import { packagePath } from "./util/package-path.js";

let cached: string | undefined;

export function awlVersion(): string {
  if (cached === undefined) {
    try {
      const pkg = JSON.parse(readFileSync(packagePath("package.json"), "utf8")) as { version?: unknown };
      cached = typeof pkg.version === "string" ? pkg.version : "unknown";
    } catch {
      cached = "unknown";
    }
  }
  return cached;
}

/** What `awl --version` prints: `awl 0.1.0`. */
export function versionText(): string {
  return `awl ${awlVersion()}`;
}
