/** Configuration: environment, then the config file, then flags (docs/cli.md, "Configuration"). */
import { configFilePath, readConfigFile, type ConfigFile } from "./config-file.js";
import type { ConfigResult } from "./errors.js";
import { resolveSettings, type AwlSettings, type SettingsFlags, type SettingsSources } from "./settings.js";

export type { ConfigError, ConfigResult } from "./errors.js";
export { configFilePath, readConfigFile, parseConfigText, OTHER_CONFIG_KEYS } from "./config-file.js";
export type { ConfigFile, ConfigFileValues } from "./config-file.js";
export * from "./settings.js";

export interface LoadedSettings {
  settings: AwlSettings;
  /** What they were resolved from (resolve again with other flags, e.g. for `/model`). */
  sources: SettingsSources;
  /** The config file that was read, if there was one (its `warnings` are for stderr). */
  file?: ConfigFile;
}

/** Reads the config file for `env` and resolves everything; the one call the CLI makes. */
export function loadSettings(env: NodeJS.ProcessEnv, flags: SettingsFlags): ConfigResult<LoadedSettings> {
  const read = readConfigFile(configFilePath(env));
  if (!read.ok) return read;
  const file = read.value;
  const sources: SettingsSources = { env, flags, ...(file ? { file: file.values, filePath: file.path } : {}) };
  const resolved = resolveSettings(sources);
  if (!resolved.ok) return resolved;
  return { ok: true, value: { settings: resolved.value, sources, ...(file ? { file } : {}) } };
}
