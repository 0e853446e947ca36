/**
 * The parts of the installed plugins, in the shapes their standalone equivalents are read in (docs/plugins.md,
 * "Loading"): Lua extension folders beside `~/.config/awl/extensions/`, skill, command and agent folders after the
 * user's own, MCP servers after the config's, command hooks after the config's. The user's own files win a name
 * clash; between two plugins the first by name wins and the other is reported, never mixed. `trusted`: whether the
 * folder of `cwd` is trusted (a plugin installed for a project loads only then: start-check.ts).
 */
import type { ExtensionRoot } from "../extensions/extension-root.js";
import type { McpServerConfig } from "../extensions/mcp/config.js";
import type { CommandHook } from "../hooks/command-config.js";
import { installedPlugins } from "./start-check.js";
import { readPluginHooks } from "./plugin-hooks.js";
import { readPluginMcp } from "./plugin-mcp.js";

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

/** The MCP servers of the enabled plugins; a name two plugins use is a failed entry for the second. */
export function pluginMcpServers(env: NodeJS.ProcessEnv, cwd: string, trusted: boolean): McpServerConfig[] {
  const out: McpServerConfig[] = [];
  const owner = new Map<string, string>();
  for (const { parts, places } of installedPlugins(env, cwd, trusted).plugins) {
    if (!parts.mcpFile) continue;
    for (const server of readPluginMcp(parts.mcpFile, places, env)) {
      const first = owner.get(server.name);
      if (first !== undefined) {
        out.push({ ...server, transport: undefined, error: `${server.file}: server "${server.name}" of plugin "${places.name}" has the name of one of plugin "${first}"; left out` } as McpServerConfig);
        continue;
      }
      owner.set(server.name, places.name);
      out.push(server);
    }
  }
  return out;
}

/** Whether any enabled plugin has an `mcp.json`. */
export function pluginsHaveMcp(env: NodeJS.ProcessEnv, cwd: string, trusted: boolean): boolean {
  return installedPlugins(env, cwd, trusted).plugins.some((p) => p.parts.mcpFile !== undefined);
}

/** The command hooks of the enabled plugins (user hooks, after the config files'), and their problems. */
export function pluginCommandHooks(env: NodeJS.ProcessEnv, cwd: string, trusted: boolean): { hooks: CommandHook[]; problems: string[] } {
  const hooks: CommandHook[] = [];
  const problems: string[] = [];
  for (const { parts, places } of installedPlugins(env, cwd, trusted).plugins) {
    if (!parts.hooksFile) continue;
    const read = readPluginHooks(parts.hooksFile, places);
    hooks.push(...read.hooks);
    problems.push(...read.problems);
  }
  return { hooks, problems };
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
