/**
 * The MCP servers of the main command (`awl`, `awl -p`): the user's `mcpServers` (config file) and the project's
 * `.mcp.json`, whose servers start only once approved for this project (asked once in the interactive mode;
 * headless only with `--approve-mcp-json` or `"approve_mcp_json": true`). Nothing here waits for a server.
 */
import { join } from "node:path";
import { loadConfig, where, withoutProjectKeys, type LoadedConfig } from "../config/layers.js";
import { awlDataDir } from "../config/paths.js";
import { approvalOf, rememberApproval } from "../extensions/mcp/approvals.js";
import { mergeServers, parseMcpServers, readMcpJson, type McpServerConfig } from "../extensions/mcp/config.js";
import { pluginMcpServers } from "../plugins/read-parts.js";
import type { McpToolSet } from "../extensions/mcp/mcp-tool-set.js";
import { runSpillDir } from "../tools/spill.js";
import { SecretScrubber, knownSecrets } from "../util/secrets.js";
import { cleanUpOnTermination } from "./termination.js";

export interface McpToolsOptions {
  /** The config files (their `mcpServers`, `mcp_startup_timeout_ms`, `tool_timeout_ms`). */
  config: LoadedConfig | undefined;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Asks the user about `.mcp.json` servers never approved (the interactive mode); absent: headless. */
  ask?: (servers: readonly McpServerConfig[], file: string) => Promise<boolean>;
  /** `--approve-mcp-json` (or the config key): approve the project's servers for this run without asking. */
  approveProject: boolean;
  /** Whether the folder is trusted: the servers of a plugin installed for it start only then (docs/plugins.md). */
  trusted: boolean;
  /** Servers of a trusted folder's `.mcp.json` changed since it was trusted: not approved by that trust (src/trust/pin.ts). */
  unpinnedServers?: ReadonlySet<string>;
  /** Print mode: the first model call waits for servers still starting, up to the start-up timeout. */
  waitForStart: boolean;
  /** Offer the tools servers listed last time before they are ready (the main command); listings want the real state. */
  useCache: boolean;
  warn(text: string): void;
  /** Names the Lua tools use. */
  reservedNames: () => Iterable<string>;
  /** Servers an ACP client passed in `session/new` (the editor's own configuration: no approval asked). */
  clientServers?: readonly McpServerConfig[];
  secrets: readonly string[];
}

/** The configured servers, the project's ones marked when not approved (asking first when it can). */
export async function configuredServers(options: Pick<McpToolsOptions, "config" | "cwd" | "env" | "ask" | "approveProject" | "trusted" | "unpinnedServers" | "clientServers">): Promise<McpServerConfig[]> {
  const { config, cwd, env } = options;
  // From the config files (a project's .awl/config.json only when the folder is trusted: src/config/layers.ts).
  const configured = config?.get("mcpServers");
  const user = parseMcpServers(configured?.value, {
    source: "user",
    file: configured ? where(configured.source) : (config?.paths.user ?? "the config file"),
    fileOf: (name) => {
      const entry = config?.get(["mcpServers", name]);
      return entry && where(entry.source);
    },
    baseDir: cwd,
    env,
  });
  const client = options.clientServers ?? [];
  // Installed plugins' servers (reviewed at install) come before the config's, which win a name clash.
  user.unshift(...pluginMcpServers(env, cwd, options.trusted).filter((s) => !user.some((u) => u.name === s.name)));
  const project = readMcpJson(cwd, env);
  if (!project) return mergeServers(user, [], client);
  const runnable = project.servers.filter((s) => !s.error && !s.disabled);
  if (!options.approveProject) {
    const unknown = runnable.filter((s) => approvalOf(s, cwd, env) === "unknown");
    if (unknown.length > 0 && options.ask) rememberApproval(unknown, await options.ask(unknown, project.file), cwd, env);
  }
  const servers = project.servers.map((server): McpServerConfig => {
    const unpinned = options.unpinnedServers?.has(server.name) === true;
    if (!runnable.includes(server) || (options.approveProject && !unpinned)) return server;
    const answer = approvalOf(server, cwd, env);
    if (answer === "approved") return server;
    const why = unpinned
      ? `from ${project.file}, changed since the folder was trusted: run awl here to review the change, or pass --trust-project`
      : answer === "refused"
        ? `refused for this project (${project.file}); \`awl mcp approve ${server.name}\` approves it`
        : `from ${project.file}, not approved for this project yet: run awl here to be asked, or pass --approve-mcp-json`;
    return { ...server, unapproved: why };
  });
  return mergeServers(user, servers, client);
}

/** Starts the configured servers in the background; undefined when there are none. */
export async function openMcpTools(options: McpToolsOptions): Promise<McpToolSet | undefined> {
  const servers = await configuredServers(options);
  if (servers.length === 0) return undefined;
  const [{ McpToolSet, DEFAULT_MCP_STARTUP_TIMEOUT_MS }, { McpToolListCache, defaultMcpCachePath }] = await Promise.all([
    import("../extensions/mcp/mcp-tool-set.js"),
    import("../extensions/mcp/tool-list-cache.js"),
  ]);
  const startupTimeoutMs = positive(options.config?.get("mcp_startup_timeout_ms")?.value) ?? DEFAULT_MCP_STARTUP_TIMEOUT_MS;
  const callTimeoutMs = positive(options.config?.get("tool_timeout_ms")?.value);
  const tools = McpToolSet.start({
    servers,
    env: options.env,
    startupTimeoutMs,
    ...(callTimeoutMs !== undefined && { callTimeoutMs }),
    reservedNames: options.reservedNames,
    spillDir: runSpillDir(awlDataDir(options.env), new Date(), "mcp"),
    scrub: new SecretScrubber([...knownSecrets(options.env), ...options.secrets]),
    onProblem: options.warn,
    ...(options.useCache && { cache: new McpToolListCache(defaultMcpCachePath(options.env)), deferKnown: true }),
    ...(options.waitForStart && {
      firstRefreshWaitMs: startupTimeoutMs,
      onLate: (late: string[]) =>
        options.warn(`MCP server${late.length > 1 ? "s" : ""} ${late.map((s) => `"${s}"`).join(", ")} not ready after ${startupTimeoutMs / 1000} s: ${late.length > 1 ? "their" : "its"} tools are not offered`),
    }),
  });
  // Until it is closed: a closed session's servers (ACP's session/close) are no longer held here.
  tools.whenClosed(cleanUpOnTermination({ kill: () => tools.kill(), close: () => tools.close() }));
  return tools;
}

function positive(value: unknown): number | undefined {
  return Number.isSafeInteger(value) && (value as number) > 0 ? (value as number) : undefined;
}

/**
 * The servers for a listing command (`awl extensions`, `awl mcp list`, `awl tools`): started, and waited for up
 * to the start-up limit; a project's `.mcp.json` servers are only listed as unapproved unless approved.
 */
export async function openMcpForListing(options: { approveProject: boolean; trustProject?: boolean; reservedNames?: () => Iterable<string> }): Promise<McpToolSet | undefined> {
  const read = await loadConfig({ env: process.env, cwd: process.cwd(), ...(options.trustProject && { trustProject: true }) });
  let config = read.ok ? read.value : undefined;
  let unpinnedServers: ReadonlySet<string> | undefined;
  if (config?.trusted && !options.trustProject) {
    // Trusted as the content it had then: servers changed since start only once that change is trusted.
    const [{ checkPin, namesOf }, { realPathOf }] = await Promise.all([import("../trust/pin.js"), import("../permissions/paths.js")]);
    const pin = checkPin(realPathOf(process.cwd()), config.paths.user);
    if (!options.approveProject) unpinnedServers = namesOf(pin.unpinned, "mcp");
    if (pin.unpinned.has("setting:mcpServers")) config = withoutProjectKeys(config, ["mcpServers"]);
  }
  const tools = await openMcpTools({
    config,
    trusted: options.trustProject === true || config?.trusted === true,
    ...(unpinnedServers && { unpinnedServers }),
    cwd: process.cwd(),
    env: process.env,
    // A trusted folder's .mcp.json is approved with the rest of what it brings, as in a run (chat-tools.ts).
    approveProject: options.approveProject || (read.ok && read.value.trusted),
    waitForStart: true,
    useCache: false,
    warn: () => undefined,
    reservedNames: options.reservedNames ?? (() => []),
    secrets: [],
  });
  await tools?.refresh();
  return tools;
}
