/**
 * A plugin's MCP servers (docs/plugins.md, "MCP servers"): an Agent Plugins `mcp.json` (`$schema` and
 * `mcpServers` only; each server `stdio`, `streamable-http` or `sse`; `${PLUGIN_ROOT}` and `${PLUGIN_DATA}`
 * expanded in `args`, `env` and `cwd`, nothing else expanded) or a Claude Code `.mcp.json` (`${CLAUDE_PLUGIN_ROOT}`
 * and `${CLAUDE_PLUGIN_DATA}` as well, and `${VAR}` from the environment as Claude Code does). Each server's
 * process gets `PLUGIN_ROOT` and `PLUGIN_DATA` in its environment. A bad entry is one failed server naming the
 * file, the server and the key; a bad file disables the plugin's MCP servers only (spec §7.2.2). An Agent Plugins
 * `mcp.json` is checked against the spec's schema (mcp-schema.ts), then against what the schema cannot say (a
 * command inside the plugin, a working folder inside it or its data folder, an https URL).
 */
import { resolve, sep } from "node:path";
import { parseMcpServers, type McpServerConfig } from "../extensions/mcp/config.js";
import { mcpFileFaults, mcpServerFaults } from "./mcp-schema.js";
import type { PluginLayout } from "./package-format.js";
import { isObject, PluginFormatError, readJsonObject } from "./plugin-json.js";

/** Where the plugin is and where its data folder is. */
export interface PluginPlaces {
  name: string;
  layout: PluginLayout;
  root: string;
  data: string;
}

/** The servers of `file` for the plugin at `places`; never throws (a fault is a failed entry). */
export function readPluginMcp(file: string, places: PluginPlaces, env: NodeJS.ProcessEnv): McpServerConfig[] {
  const failed = (message: string): McpServerConfig[] => [{ name: `${places.name}:mcp`, source: "user", file, error: message, disabled: false, fingerprint: "" }];
  let read;
  try {
    read = readJsonObject(file);
  } catch (error) {
    if (error instanceof PluginFormatError) return failed(`${error.message}; the plugin's MCP servers are off`);
    throw error;
  }
  const { value, at } = read;
  const servers = value.mcpServers;
  if (places.layout === "agent-plugins") {
    const faults = mcpFileFaults(value, at);
    if (faults.length > 0) return failed(`${faults.join("; ")}; the plugin's MCP servers are off`);
  }
  if (!isObject(servers)) return failed(`${at("/mcpServers")}: "mcpServers" must be an object of named servers; the plugin's MCP servers are off`);
  const placeholders = placeholdersOf(places);
  const out: McpServerConfig[] = [];
  for (const [name, entry] of Object.entries(servers)) {
    const where = at(`/mcpServers/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`);
    const faults = places.layout === "agent-plugins" ? mcpServerFaults(name, entry, at) : [];
    const problem = faults.length === 0 && places.layout === "agent-plugins" ? placeProblem(entry as Record<string, unknown>, places) : undefined;
    if (faults.length > 0 || problem) {
      const error = faults.length > 0 ? `${faults.join("; ")}; server "${name}" left out` : `${where}: server "${name}" ${problem}`;
      out.push({ name, source: "user", file: where, error, disabled: false, fingerprint: "" });
      continue;
    }
    const expanded = expandEntry(entry, placeholders, places);
    const [parsed] = parseMcpServers({ [name]: expanded }, {
      source: "user",
      file: where,
      baseDir: places.root,
      env: { ...env, PLUGIN_ROOT: places.root, PLUGIN_DATA: places.data },
      // Agent Plugins: no expansion but the two placeholders; Claude Code's .mcp.json expands ${VAR}.
      expand: places.layout !== "agent-plugins",
    });
    if (parsed?.transport?.type === "stdio") parsed.transport.env = { ...parsed.transport.env, PLUGIN_ROOT: places.root, PLUGIN_DATA: places.data };
    if (parsed) out.push(parsed);
  }
  return out;
}

/** What a server the schema accepts may still not do (the spec's semantic rules); undefined when it is fine. */
function placeProblem(entry: Record<string, unknown>, places: PluginPlaces): string | undefined {
  if (entry.type === "stdio") {
    const command = entry.command as string;
    if (command.includes("/") && !command.startsWith("./")) return `has the command ${JSON.stringify(command)}: a bare program name or a path starting with ./`;
    if (command.startsWith("./") && !inside(resolve(places.root, command), places.root)) return `has a command outside the plugin: ${JSON.stringify(command)}`;
    if (typeof entry.cwd === "string") {
      const cwd = resolve(places.root, entry.cwd.replace("${PLUGIN_ROOT}", places.root).replace("${PLUGIN_DATA}", places.data));
      if (!inside(cwd, places.root) && !inside(cwd, places.data)) return `has a "cwd" outside the plugin and its data folder: ${JSON.stringify(entry.cwd)}`;
    }
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(entry.url as string);
  } catch {
    return `has a "url" that is not a URL: ${JSON.stringify(entry.url)}`;
  }
  const loopback = url.hostname === "localhost" || url.hostname === "[::1]" || /^127\./.test(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) return `has the url ${JSON.stringify(entry.url)}: https:// (http:// only to localhost)`;
  return undefined;
}

function placeholdersOf(places: PluginPlaces): Array<[string, string]> {
  const pairs: Array<[string, string]> = [
    ["${PLUGIN_ROOT}", places.root],
    ["${PLUGIN_DATA}", places.data],
  ];
  if (places.layout === "claude-code") pairs.push(["${CLAUDE_PLUGIN_ROOT}", places.root], ["${CLAUDE_PLUGIN_DATA}", places.data]);
  return pairs;
}

/** Single, non-recursive replacement of each placeholder in `args`, `env` values and `cwd` (and a Claude command). */
function expandEntry(entry: unknown, pairs: Array<[string, string]>, places: PluginPlaces): unknown {
  if (!isObject(entry)) return entry;
  const expand = (text: unknown): unknown => (typeof text === "string" ? replaceAll(text, pairs) : text);
  const out: Record<string, unknown> = { ...entry };
  if (Array.isArray(entry.args)) out.args = entry.args.map(expand);
  if (isObject(entry.env)) out.env = Object.fromEntries(Object.entries(entry.env).map(([k, v]) => [k, expand(v)]));
  if (entry.cwd !== undefined) out.cwd = expand(entry.cwd);
  if (typeof entry.command === "string") {
    if (places.layout === "claude-code") out.command = expand(entry.command);
    else if (entry.command.startsWith("./")) out.command = resolve(places.root, entry.command);
  }
  if (out.type === "streamable-http") out.type = "http";
  return out;
}

function replaceAll(text: string, pairs: Array<[string, string]>): string {
  const pattern = new RegExp(pairs.map(([p]) => p.replace(/[$.{}]/g, "\\$&")).join("|"), "g");
  return text.replace(pattern, (found) => pairs.find(([p]) => p === found)![1]);
}

function inside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}
