/**
 * awl's public library API. Everything a program needs to hold a streaming conversation,
 * run tools from Lua extensions and save sessions, without the CLI.
 */
export * from "./model/index.js";
export * from "./providers/errors.js";
export type * from "./providers/types.js";
export type * from "./tools/types.js";
export * from "./agent/index.js";
/** Sessions driven prompt by prompt, each turn a stream of events (what `awl acp` and stream-json input use). */
export * from "./agent-session/index.js";
/** Sub-agents (docs/agents.md): the `task` tool beside an `Agent`'s tools, and the definitions it starts. */
export * from "./agents/index.js";
export { parseFrontMatter, FrontMatterError, type FrontMatter } from "./util/front-matter.js";
export { LuaPool } from "./extensions/lua/pool.js";
export type * from "./extensions/lua/types.js";
export { createProvider, PROVIDER_NAMES } from "./providers/create.js";
export { runStream } from "./providers/stream-driver.js";
export type { WireAdapter, WireRequest, StreamAssembler, EventVerdict, DriverSettings } from "./providers/stream-driver.js";
export type { SseEvent } from "./providers/sse.js";
export * from "./session/index.js";
export * from "./checkpoints/index.js";
export { ReplayProvider, ReplayRecorder, createReplayProvider, readReplayScript, parseReplayScript, REPLAY_FORMAT_VERSION } from "./providers/replay/index.js";
export type { ReplayScript, ReplayStep, Pacing } from "./providers/replay/index.js";
export { loadSettings, resolveSettings, readConfigFile, configFilePath, projectConfigPath, loadConfig, LoadedConfig, where } from "./config/index.js";
export { editConfigFile, applyConfigEdits } from "./config/write.js";
export type {
  AwlSettings,
  SettingsFlags,
  SettingsSources,
  LoadedSettings,
  ConfigError,
  ConfigLayer,
  ConfigScope,
  ConfigFileValues,
  ConfigSource,
  SourcedValue,
  LoadConfigOptions,
} from "./config/index.js";
export type { ConfigEdit } from "./config/write.js";
export { LuaToolSet, DEFAULT_TOOL_TIMEOUT_MS, BUNDLED_EXTENSIONS_DIR } from "./extensions/lua-tool-set.js";
/** The system prompt awl sends (`new Agent({ system })`): the default text, the instruction files, and a builder for both. */
export { buildSystemPrompt, localDate, findInstructionFiles, gitRoot, MAX_INSTRUCTION_BYTES, systemPromptFor } from "./prompt/index.js";
export type { SystemPromptInputs, InstructionFile, SystemPromptOptions } from "./prompt/index.js";
export type { LuaToolSetOptions, ExtensionReport, ExtensionState } from "./extensions/lua-tool-set.js";
export { discoverExtensions, DEFAULT_MAX_EXTENSION_FILE_BYTES } from "./extensions/discover.js";
export { defaultExtensionRoots } from "./extensions/default-roots.js";
export type { DiscoveredExtension, DiscoveryResult, DiscoveryProblem, ShadowedExtension, ExtensionRoot, ExtensionSource } from "./extensions/discover.js";
// Plugins (docs/plugins.md): read a package without running it, install it after a review, list and check installed ones.
export { readPluginPackage, type PluginPackage } from "./plugins/manifest.js";
export { PluginFormatError } from "./plugins/plugin-json.js";
export { AWL_CLIENT_FOLDER, PLUGIN_SCHEMA_1_0, MCP_SCHEMA_1_0, type PluginParts, type PluginLayout } from "./plugins/package-format.js";
export { prepareInstall, finishInstall, discardInstall, type PreparedInstall } from "./plugins/install.js";
export { PluginSourceError, type FetchedSource } from "./plugins/fetch-source.js";
export { readLock, removeInstalled, setEnabled, pluginsHome, packageDir, pluginDataDir, LOCK_VERSION } from "./plugins/store.js";
export type { LockEntry, LockFile, SourceKind } from "./plugins/store.js";
export { checkInstalled, type InstalledPlugins, type LoadedPlugin } from "./plugins/installed.js";
export { packageContent, PackageFilesError, type PackageContent } from "./plugins/package-files.js";
export { summarize, summaryLines, summaryDiff, type PluginSummary } from "./plugins/summary.js";
export { ToolRegistry, TOOL_NAME_PATTERN, checkObjectSchema } from "./tools/registry.js";
export type { RegisteredTool, ToolRegistration, RegistryProblem, RegistryProblemKind } from "./tools/registry.js";
export { TOOL_KINDS } from "./tools/types.js";
export { limitResult, DEFAULT_RESULT_LIMIT, type SpillOptions, type LimitedResult } from "./tools/spill.js";
export { SecretScrubber } from "./util/secrets.js";
export { awlVersion } from "./version.js";
// Long sessions (docs/cost.md): the model catalogue, exact costs, and the meter the status line and /cost read.
export { CATALOGUE_DATE, modelCatalogue, cachedCataloguePath, bundledCataloguePath } from "./usage/catalogue-store.js";
export type { LoadedCatalogue } from "./usage/catalogue-store.js";
export type { CatalogueEntry, PriceTable } from "./usage/catalogue-types.js";
export { parseModelsDev } from "./usage/models-dev.js";
export type { ModelCatalogue, CatalogueModel, CatalogueProvider } from "./usage/models-dev.js";
export { LOCAL_FAMILIES } from "./usage/local-families.js";
export { resolveModelInfo, catalogueEntry, normaliseModelName, DEFAULT_CONTEXT_WINDOW } from "./usage/catalogue.js";
export type { ModelInfo, ModelInfoSource, ModelOverride } from "./usage/catalogue.js";
export { callCost, usdText, formatUsd, totalInputTokens, type CallCost, type UsageConvention } from "./usage/cost.js";
export { UsageMeter, conventionOf, costReport, costText, tokensText } from "./usage/meter.js";
export type { MeterSnapshot, CostTotals, RecordedCall } from "./usage/meter.js";
export { ModelInfoResolver, ASK_SERVER_FROM_TOKENS } from "./usage/model-info.js";
export { SessionUsage } from "./usage/session-usage.js";
export { parseModelOverrides } from "./usage/model-overrides.js";
export { askServerLimits, type ServerModelLimits } from "./providers/model-limits.js";
export { PermissionEngine, PERMISSION_MODES, kindsOf, isReadOnly } from "./permissions/engine.js";
export type { PermissionMode, PermissionTool, Decision, PermissionEngineOptions } from "./permissions/engine.js";
export { parseRule, describeSource } from "./permissions/rules.js";
export type { Rule, RuleAction, RuleSource, ParsedRule } from "./permissions/rules.js";
export { PermissionToolSet, headlessDenial } from "./permissions/tool-set.js";
export { CompositeToolSet } from "./tools/composite.js";
export type { AskFunction, AskRequest, AskAnswer, DeniedCall, PermissionToolSetOptions } from "./permissions/tool-set.js";
export { parseCommand } from "./permissions/shell-commands.js";
export type { ParsedCommand, ShellCommand, CommandPart } from "./permissions/shell-commands.js";
export { loadShellParser } from "./permissions/command-reading.js";
