/**
 * The parts of the installed plugins, in the shapes their standalone equivalents are read in (docs/plugins.md,
 * "Loading"): Lua extension folders beside `~/.config/awl/extensions/`, skill, command and agent folders after the
 * user's own, MCP servers after the config's, command hooks after the config's. The user's own files win a name
 * clash; between two plugins the first by name wins and the other is reported, never mixed. `trusted`: whether the
 * folder of `cwd` is trusted (a plugin installed for a project loads only then: start-check.ts). The parts read
 * from a plugin's JSON files (MCP servers, command hooks) are in read-parts.ts, loaded only when a plugin has them.
 */
import type { ExtensionRoot } from "../extensions/extension-root.js";
import { installedPlugins } from "./start-check.js";

/** A folder of one plugin. */
export interface PluginFolder {
  plugin: string;
  dir: string;
}

/** The Lua extension folders of the enabled plugins (discovered as user extensions, named `plugin.extension`). */
export function pluginExtensionRoots(env: NodeJS.ProcessEnv, cwd: string, trusted: boolean): ExtensionRoot[] {
  return folders(env, cwd, trusted, "extensionsDir").map((f) => ({ dir: f.dir, source: "user", prefix: f.plugin }));
}

/** The `require` folders of the enabled rocks (awl's own Lua tree: searched before the system's). */
export function pluginLuaDirs(env: NodeJS.ProcessEnv, cwd: string, trusted: boolean): string[] {
  return folders(env, cwd, trusted, "luaDir").map((f) => f.dir);
}

/** Skill folders (each holding `<name>/SKILL.md`). */
export function pluginSkillFolders(env: NodeJS.ProcessEnv, cwd: string, trusted: boolean): PluginFolder[] {
  return folders(env, cwd, trusted, "skillsDir");
}

/** Prompt command folders. */
export function pluginCommandFolders(env: NodeJS.ProcessEnv, cwd: string, trusted: boolean): PluginFolder[] {
  return folders(env, cwd, trusted, "commandsDir");
}

/** Sub-agent definition folders. */
export function pluginAgentFolders(env: NodeJS.ProcessEnv, cwd: string, trusted: boolean): PluginFolder[] {
  return folders(env, cwd, trusted, "agentsDir");
}

/** Whether any enabled plugin has an `mcp.json`. */
export function pluginsHaveMcp(env: NodeJS.ProcessEnv, cwd: string, trusted: boolean): boolean {
  return installedPlugins(env, cwd, trusted).plugins.some((p) => p.parts.mcpFile !== undefined);
}

/** Whether any enabled plugin has command hooks (a `hooks.json`). */
export function pluginsHaveHooks(env: NodeJS.ProcessEnv, cwd: string, trusted: boolean): boolean {
  return installedPlugins(env, cwd, trusted).plugins.some((p) => p.parts.hooksFile !== undefined);
}

/** Why installed plugins are not loaded, and that their start index was rebuilt, one line each (shown at start-up). */
export function pluginProblems(env: NodeJS.ProcessEnv, cwd: string, trusted: boolean): string[] {
  const found = installedPlugins(env, cwd, trusted);
  return [...found.notices, ...found.problems];
}

function folders(env: NodeJS.ProcessEnv, cwd: string, trusted: boolean, key: "extensionsDir" | "skillsDir" | "commandsDir" | "agentsDir" | "luaDir"): PluginFolder[] {
  const out: PluginFolder[] = [];
  for (const { parts, places } of installedPlugins(env, cwd, trusted).plugins) {
    const dir = parts[key];
    if (dir) out.push({ plugin: places.name, dir });
  }
  return out;
}
