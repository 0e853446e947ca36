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
  const path = configFilePath(env);
  const read = readConfigFile(path);
  if (!read.ok) return read;
  const file = read.value;
  // The path is passed even when there is no file yet: messages tell the user where to put a setting.
  const sources: SettingsSources = { env, flags, filePath: path, ...(file ? { file: file.values } : {}) };
  const resolved = resolveSettings(sources);
  if (!resolved.ok) return resolved;
  return { ok: true, value: { settings: resolved.value, sources, ...(file ? { file } : {}) } };
}
