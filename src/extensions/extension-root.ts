/** The folders extension discovery (discover.ts) scans, and where each came from. */

/** Where a root came from, in precedence order: an earlier kind shadows a later one. */
export type ExtensionSource = "flag" | "project" | "user" | "bundled";

/** A folder scanned for extensions. */
export interface ExtensionRoot {
  dir: string;
  source: ExtensionSource;
  /** Put before every name found here (an installed plugin's name: `kit.tool`), so two plugins never clash by name. */
  prefix?: string;
}
