/** Configuration: environment, then the config files (user, then project), then flags (docs/config.md). */
import type { ConfigFileValues } from "./config-file.js";
import type { ConfigResult } from "./errors.js";
import { loadConfig, type LoadedConfig } from "./layers.js";
import { resolveSettings, type AwlSettings, type SettingsFlags, type SettingsSources } from "./settings.js";

export type { ConfigError, ConfigResult } from "./errors.js";
export { configFilePath, projectConfigPath, readConfigFile, parseConfigText } from "./config-file.js";
export type { ConfigFileValues, ConfigLayer, ConfigScope, ProviderEntry } from "./config-file.js";
export { loadConfig, LoadedConfig, where } from "./layers.js";
export type { ConfigSource, SourcedValue, LoadConfigOptions } from "./layers.js";
export * from "./settings.js";

export interface LoadedSettings {
  settings: AwlSettings;
  /** What they were resolved from (resolve again with other flags, e.g. for `/model`). */
  sources: SettingsSources;
  /** The config files as read (their `warnings` are for stderr); other modules read their sections from it. */
  config: LoadedConfig;
}

/** Reads the config files for `env` and `cwd` and resolves everything; the one call the CLI makes. */
export async function loadSettings(
  env: NodeJS.ProcessEnv,
  flags: SettingsFlags,
  options: { cwd?: string; trustProject?: boolean } = {},
): Promise<ConfigResult<LoadedSettings>> {
  const read = await loadConfig({ env, cwd: options.cwd ?? process.cwd(), ...(options.trustProject !== undefined ? { trustProject: options.trustProject } : {}) });
  if (!read.ok) return read;
  const config = read.value;
  const sources = settingsSources(config, env, flags);
  const resolved = resolveSettings(sources);
  if (!resolved.ok) return resolved;
  return { ok: true, value: { settings: resolved.value, sources, config } };
}

/** The settings' inputs from the files: their merged values, the user file for hints, keys named with file and line. */
export function settingsSources(config: LoadedConfig, env: NodeJS.ProcessEnv, flags: SettingsFlags): SettingsSources {
  // The path is passed even when there is no file yet: messages tell the user where to put a setting.
  return { env, flags, filePath: config.paths.user, file: config.values as ConfigFileValues, describeKey: (key) => config.describe(key) };
}
