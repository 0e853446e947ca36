/**
 * Folder trust (docs/permissions.md, "Trust"): a cloned repository is input, not the user's choice. What a
 * folder brings (its `.awl/extensions/`, allow rules and widening settings in `.awl/config.json`, and the
 * servers of `.mcp.json`) is loaded only once the user trusted the folder: asked once in the interactive UI and
 * remembered in the user config (`trusted_folders`), or `--trust-project` for one run. The user's own
 * extensions and the bundled ones are always trusted.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { isInside, realPathOf } from "./paths.js";

/** The flag that trusts the folder for one run (PROTOCOL: fixed name). */
export const TRUST_FLAG = "--trust-project";

/** Whether `folder` (or a folder above it) is in the trusted list; compared through symlinks. */
export function isTrustedFolder(folder: string, trusted: readonly string[]): boolean {
  const real = realPathOf(folder);
  return trusted.some((entry) => isInside(real, realPathOf(entry)));
}

/** The user file's `trusted_folders` (absolute paths; anything else in the list is left out: it trusts nothing). */
export function trustedFoldersIn(values: Record<string, unknown>): string[] {
  const list = values.trusted_folders;
  return Array.isArray(list) ? list.filter((p): p is string => typeof p === "string" && p.startsWith("/")) : [];
}

/** What a folder would load once trusted. */
export interface ProjectOffer {
  /** `.awl/extensions/` when it holds any `.lua` file. */
  extensionsDir?: string;
  /** How many `.lua` entry points it holds (roughly: the files below it). */
  extensionFiles: number;
}

/** Looks at what the folder holds without reading or running any of it. */
export function projectOffer(folder: string): ProjectOffer {
  const offer: ProjectOffer = { extensionFiles: 0 };
  const dir = join(folder, ".awl", "extensions");
  const count = countLua(dir, 0);
  if (count > 0) {
    offer.extensionsDir = dir;
    offer.extensionFiles = count;
  }
  return offer;
}

function countLua(dir: string, depth: number): number {
  if (depth > 8) return 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  let n = 0;
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue;
    if (entry.isDirectory() || entry.isSymbolicLink()) n += countLua(join(dir, entry.name), depth + 1);
    if (entry.name.endsWith(".lua") && !entry.isDirectory()) n++;
  }
  return n;
}

/**
 * The pieces an untrusted folder would load, in words: `.awl/extensions/ (2 Lua files)`, ... (`.mcp.json` has
 * its own approval and notice, docs/mcp.md; trusting the folder approves it too).
 */
export function offerParts(offer: ProjectOffer, skippedSettings: readonly string[]): string[] {
  const parts: string[] = [];
  if (offer.extensionsDir) parts.push(`.awl/extensions/ (${offer.extensionFiles} Lua file${offer.extensionFiles === 1 ? "" : "s"})`);
  if (skippedSettings.length > 0) parts.push(`${skippedSettings.length} widening permission setting${skippedSettings.length === 1 ? "" : "s"} in .awl/config.json`);
  return parts;
}

/** The one-line notice for a run without a terminal: what was skipped and how to trust the folder. */
export function untrustedNotice(folder: string, parts: readonly string[]): string {
  return `this folder is not trusted, so its ${parts.join(", ")} ${parts.length === 1 ? "was" : "were"} not loaded; run with ${TRUST_FLAG} to load them once, or awl permissions trust (or awl here interactively) to trust ${folder}`;
}
