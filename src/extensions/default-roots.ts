/** Where awl looks for extensions by default, and in which order (discover.ts scans them). */
import { join, resolve } from "node:path";
import { userConfigDir } from "../config/paths.js";
import { pluginExtensionRoots } from "../plugins/parts.js";
import type { ExtensionRoot } from "./extension-root.js";

export interface RootOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** `--extensions-dir` folders, in the order given (relative to cwd). */
  extraDirs?: readonly string[];
  /** The package's bundled `std.*` extensions, if it ships any. */
  bundledDir?: string;
  /** Scan the folder's own `.awl/extensions/` (only once the folder is trusted; docs/permissions.md). Default true. */
  project?: boolean;
}

/**
 * The folders to scan, highest precedence first: `--extensions-dir` folders (the most specific request),
 * then `.awl/extensions/` in cwd (unless `project` is false: an untrusted folder), then the user's `extensions/` folder, then the
 * installed plugins' extension folders, then the bundled extensions.
 */
export function defaultExtensionRoots(options: RootOptions): ExtensionRoot[] {
  const roots: ExtensionRoot[] = (options.extraDirs ?? []).map((dir) => ({ dir: resolve(options.cwd, dir), source: "flag" }));
  if (options.project !== false) roots.push({ dir: resolve(options.cwd, ".awl", "extensions"), source: "project" });
  roots.push({ dir: join(userConfigDir(options.env), "extensions"), source: "user" });
  // Installed plugins' extensions come after the user's own (docs/plugins.md).
  roots.push(...pluginExtensionRoots(options.env, options.cwd, options.project !== false));
  if (options.bundledDir) roots.push({ dir: options.bundledDir, source: "bundled" });
  return roots;
}
