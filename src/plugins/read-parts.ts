/**
 * The parts of the installed plugins read from their own JSON files, `mcp.json` and `hooks.json` (docs/plugins.md,
 * "Loading"), with their schema checks: a module apart from parts.ts, so that a start without any plugin that has
 * them loads none of their readers (parts.ts `pluginsHaveMcp`, `pluginsHaveHooks`).
 */
import type { McpServerConfig } from "../extensions/mcp/config.js";
import type { CommandHook } from "../hooks/command-config.js";
import { readPluginHooks } from "./plugin-hooks.js";
import { readPluginMcp } from "./plugin-mcp.js";
import { installedPlugins } from "./start-check.js";

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
