/**
 * What tells hot reload that an extension changed: the content of its Lua files, never their modification time
 * (an extension that rewrites a module of its own with the same text must not reload itself in a loop).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, relative } from "node:path";
import type { DiscoveredExtension } from "./discover.js";
import { modulesOf } from "./tool-cache.js";

/** One version of an extension on disk: its entry point's text and a key of all its Lua files' contents. */
export interface ExtensionVersion {
  /** Undefined when the entry point cannot be read (the worker then reads it and reports why). */
  source: Uint8Array | undefined;
  key: string;
}

/**
 * Reads an extension's version now. Never throws: an unreadable file gives a key of its own. `shared`: the shared
 * modules of the folders listed already in this round (see modulesOf), so a folder of many extensions is listed once.
 */
export function readVersion(extension: DiscoveredExtension, shared?: Map<string, string[]>): ExtensionVersion {
  const hash = createHash("sha256");
  let source: Uint8Array | undefined;
  try {
    source = readFileSync(extension.file);
    hash.update(source);
  } catch (error) {
    hash.update(`unreadable ${(error as NodeJS.ErrnoException).code ?? ""}`);
  }
  const dir = dirname(extension.file);
  try {
    for (const file of modulesOf(extension, shared)) {
      hash.update(`\u0000${relative(dir, file)}\u0000`);
      hash.update(readFileSync(file));
    }
  } catch {
    hash.update("\u0000a module could not be read");
  }
  return { source, key: hash.digest("hex") };
}

/**
 * The version to note once `loaded` (read just before the load) has loaded: the one on disk now, since what an
 * extension writes into its own folder while it loads (a generated module) is part of its version and must never
 * reload it; unless its entry point's text changed meanwhile, an edit saved during the load, which the next refresh
 * then loads (the newest version wins).
 */
export function settledVersion(extension: DiscoveredExtension, loaded: ExtensionVersion, shared?: Map<string, string[]>): string {
  const now = readVersion(extension, shared);
  const sameEntry = loaded.source && now.source ? Buffer.compare(loaded.source, now.source) === 0 : loaded.source === now.source;
  return sameEntry ? now.key : loaded.key;
}
