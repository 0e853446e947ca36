/**
 * The installed plugins as the library and `awl plugins` see them: each one a run loads (start-check.ts) with its
 * lock entry and its package read again (manifest, layout, parts), and why the others are not loaded.
 */
import { readPluginPackage, type PluginPackage } from "./manifest.js";
import type { PluginPlaces } from "./plugin-mcp.js";
import { startPlugins } from "./start-check.js";
import { readLock, type LockEntry } from "./store.js";

/** A plugin whose parts a run loads. */
export interface LoadedPlugin {
  entry: LockEntry;
  pkg: PluginPackage;
  places: PluginPlaces;
}

/** The plugins a run loads and why the others are not loaded. */
export interface InstalledPlugins {
  plugins: LoadedPlugin[];
  /** One line each: `plugin "x": ...`, then anything else said (the start index rebuilt). */
  problems: string[];
  /** Names of plugins switched off. */
  disabled: string[];
}

/**
 * Checks each enabled plugin's files against its digest, as a run does (for work in `cwd`: a project's plugins
 * only in that folder, and only when it is `trusted`; without `cwd`, every plugin). Never throws.
 */
export function checkInstalled(env: NodeJS.ProcessEnv, cwd?: string, trusted = true): InstalledPlugins {
  const found = startPlugins(env, cwd, trusted);
  const out: InstalledPlugins = { plugins: [], problems: [...found.problems, ...found.notices], disabled: found.disabled };
  if (found.plugins.length === 0) return out;
  let entries: Record<string, LockEntry>;
  try {
    entries = readLock(env).plugins;
  } catch (error) {
    out.problems.push(`plugins: ${(error as Error).message}; no plugin is loaded`);
    return out;
  }
  for (const plugin of found.plugins) {
    const entry = entries[plugin.name];
    if (!entry) continue;
    try {
      out.plugins.push({ entry, pkg: readPluginPackage(plugin.places.root), places: plugin.places });
    } catch (error) {
      out.problems.push(`plugin "${plugin.name}": ${(error as Error).message}; not loaded`);
    }
  }
  return out;
}
