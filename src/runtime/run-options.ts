/** What a run of awl is built from: its settings and where they came from, the flags, the folder, its permissions. */
import type { AwlSettings, SettingsSources } from "../config/settings.js";
import type { LoadedConfig } from "../config/layers.js";
import type { PermissionSetup } from "../permissions/setup.js";
import type { CliOptions } from "./flags.js";

/** The options every part of a run reads (the tools it opens, the credentials it scrubs, the runtime it builds). */
export interface RunOptions {
  settings: AwlSettings;
  /** Where the settings came from, so `/model` can resolve them again with another model. */
  sources: SettingsSources;
  /** The config files read at start-up, so each module reads its section (with sources) without reading them again. */
  config?: LoadedConfig;
  cli: CliOptions;
  /**
   * The folder the run works in: its tools, project extensions, instruction files, permissions and sessions
   * (default `process.cwd()`). `awl acp` serves sessions of several folders in one process this way.
   */
  cwd?: string;
  /** Diagnostics (stderr): hooks' failures, warnings. */
  warn(text: string): void;
  /** The run's permissions: every tool call is decided (and asked for) through them. Absent: calls run unchecked. */
  permissions?: PermissionSetup;
}
