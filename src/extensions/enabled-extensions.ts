/** The extensions a start or a reload loads: those discovery finds that no config file switches off, and their metadata. */
import { readFileSync } from "node:fs";
import { discoverExtensions, type DiscoveredExtension, type DiscoveryResult, type ExtensionRoot } from "./discover.js";
import { readEnablement } from "./enablement.js";
import { readMetadata, type CapabilityMetadata } from "./metadata.js";

/** The `disabled_by` of a project extension changed since the folder was trusted (src/trust/pin.ts). */
export const UNPINNED = "changed since the folder was trusted";

/**
 * The extensions found in `roots`, without those a config file switches off (their code never runs; with a
 * bundled one off, its tool names are free for the user's own).
 */
export function findEnabled(roots: readonly ExtensionRoot[], cwd: string, env: NodeJS.ProcessEnv, unpinned?: ReadonlySet<string>): {
  discovery: DiscoveryResult;
  disabled: (DiscoveredExtension & { disabled_by: string })[];
  problems: string[];
} {
  const found = discoverExtensions(roots);
  const enablement = readEnablement(cwd, env);
  for (const e of found.extensions) if (e.source === "project" && unpinned?.has(e.name)) enablement.disabled.set(e.name, UNPINNED);
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
