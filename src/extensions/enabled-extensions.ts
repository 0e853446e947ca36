/** The extensions a start or a reload loads: those discovery finds that no config file switches off, and their metadata. */
import { readFileSync } from "node:fs";
import { discoverExtensions, type DiscoveredExtension, type DiscoveryResult, type ExtensionRoot } from "./discover.js";
import { readEnablement } from "./enablement.js";
import { readMetadata, type CapabilityMetadata } from "./metadata.js";

/**
 * The extensions found in `roots`, without those a config file switches off (their code never runs; with a
 * bundled one off, its tool names are free for the user's own).
 */
export function findEnabled(roots: readonly ExtensionRoot[], cwd: string, env: NodeJS.ProcessEnv): {
  discovery: DiscoveryResult;
  disabled: (DiscoveredExtension & { disabled_by: string })[];
  problems: string[];
} {
  const found = discoverExtensions(roots);
  const enablement = readEnablement(cwd, env);
  if (enablement.disabled.size === 0) return { discovery: found, disabled: [], problems: enablement.problems };
  const disabled = found.extensions.filter((e) => enablement.disabled.has(e.name)).map((e) => ({ ...e, disabled_by: enablement.disabled.get(e.name)! }));
  const discovery = { ...found, extensions: found.extensions.filter((e) => !enablement.disabled.has(e.name)) };
  return { discovery, disabled, problems: enablement.problems };
}

/** An extension's metadata from its entry point's text (never run), or what is wrong with it. */
export function metadataOf(file: string): { metadata?: CapabilityMetadata; error?: string } {
  let source: string;
  try {
    source = readFileSync(file, "utf8");
  } catch {
    return {}; // its load reports an unreadable file
  }
  const read = readMetadata(source);
  if (!read.ok) return { error: `${file}:${read.line}: ${read.message}` };
  return read.metadata ? { metadata: read.metadata } : {};
}
