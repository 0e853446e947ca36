/**
 * The MCP servers an ACP client passes in `session/new` / `session/load` (the editor's own MCP configuration), as
 * awl's server entries: stdio ones with their command, arguments and environment, HTTP and SSE ones with their
 * headers. They run beside the configured servers (a client's server replaces a configured one of the same name),
 * checked as a config file's entries are, their values taken as they are (no `${VAR}` expansion).
 */
import type { McpServer } from "@agentclientprotocol/sdk";
import { parseMcpServers, type McpServerConfig } from "../extensions/mcp/config.js";

/** Where these servers come from, in messages. */
export const CLIENT_SERVERS_ORIGIN = "the ACP client's session/new";

export function clientMcpServers(servers: readonly McpServer[], cwd: string, env: NodeJS.ProcessEnv): McpServerConfig[] {
  const entries: Record<string, unknown> = {};
  for (const server of servers) {
    const pairs = (list: ReadonlyArray<{ name: string; value: string }> | undefined) => Object.fromEntries((list ?? []).map((p) => [p.name, p.value]));
    entries[server.name] =
      "type" in server && (server.type === "http" || server.type === "sse")
        ? { type: server.type, url: server.url, headers: pairs(server.headers) }
        : { command: server.command, args: server.args, env: pairs(server.env) };
  }
  return parseMcpServers(entries, { source: "client", file: CLIENT_SERVERS_ORIGIN, baseDir: cwd, env, expand: false });
}
