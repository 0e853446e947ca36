/**
 * Opening the main command's tools (the Lua extensions, then the MCP servers). Kept apart from the runtime's
 * module so that `awl` can open them first: without a matching registration cache a Lua worker then loads the
 * extensions on its own thread while the rest of awl loads (~100 ms of its own work, which the first request
 * waits for). MCP servers start in the background and are never waited for here.
 */
import type { SearchSettings } from "../web/search.js";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ConfigResult } from "../config/errors.js";
import { pluginProblems, pluginsHaveMcp } from "../plugins/parts.js";
import type { LuaToolSet } from "../extensions/lua-tool-set.js";
import type { TextHost } from "../extensions/lua/types.js";
import { onSecretsAnnounced } from "../util/late-secrets.js";
import type { McpServerConfig } from "../extensions/mcp/config.js";
import type { McpToolSet } from "../extensions/mcp/mcp-tool-set.js";
import type { McpToolsOptions } from "./mcp-tools.js";
import type { LaterMcp } from "./later-mcp.js";
import type { RunOptions } from "./run-options.js";

/** The tools, and when they are known (the first request needs them; see `openToolsForChat`). */
export interface OpenedTools {
  tools: LuaToolSet;
  ready: Promise<void>;
  /** The MCP servers, when any is configured... */
  mcp?: McpToolSet;
  /** ...or, in the interactive mode with nothing to ask about them, their set-up for once the prompt is drawn. */
  laterMcp?: LaterMcp;
}

/** How the main command runs: the interactive mode asks about a project's `.mcp.json`; print mode waits for servers. */
export interface ChatMode {
  interactive: boolean;
  /** MCP servers an ACP client passed for this session, beside the configured ones. */
  clientServers?: readonly McpServerConfig[];
}

/** Opens the tools for the settings and flags; resolves once a cold start's Lua worker is starting. */
export async function openChatTools(
  options: Pick<RunOptions, "settings" | "sources" | "config" | "cli" | "cwd" | "warn" | "permissions">,
  mode: ChatMode = { interactive: false },
  /** Where the std file tools' text goes instead of the disk (`awl acp` with a client that offers its fs). */
  textHost?: TextHost,
): Promise<ConfigResult<OpenedTools>> {
  const [{ openToolsForChat }, { runSecrets }, { networkGate }] = await Promise.all([
    import("./open-lua-tools.js"),
    import("./run-secrets.js"),
    import("../permissions/network-gate.js"),
  ]);
  const secrets = runSecrets(options);
  const cwd = options.cwd ?? process.cwd();
  // A caller without a permission setup of its own (e.g. `awl acp`) still loads a folder's code only when it is trusted.
  const trusted = options.permissions?.trusted ?? await (await import("../permissions/setup.js")).isProjectTrusted(cwd, process.env, options.cli.flags["trust-project"] === true);
  const sandbox = options.permissions?.sandbox ? await (await import("../permissions/sandbox.js")).runSandbox(options.permissions) : { ok: true as const, value: undefined };
  if (!sandbox.ok) return sandbox;
  // Installed plugins whose files changed since their review are said, and left out (docs/plugins.md).
  for (const problem of pluginProblems(process.env, cwd, trusted)) options.warn(`awl: ${problem}`);
  const opened = await openToolsForChat(options.cli.flags, options.warn, {
    cwd,
    ...(options.config && { config: options.config }),
    secrets,
    trustProject: trusted,
    ...(options.permissions?.unpinned && { unpinnedExtensions: options.permissions.unpinned.extensions }),
    ...(textHost && { textHost }),
    ...(sandbox.value && { sandbox: sandbox.value }),
    ...(options.permissions?.config.passEnv && { passEnv: options.permissions.config.passEnv.value }),
    ...(options.permissions && { network: networkGate(options.permissions.engine) }),
    ...(options.config?.get("search") && { search: options.config.get("search")!.value as SearchSettings }),
  });
  // Headless (awl -p, ACP): no Lua worker starts until a call is likely (a request slow to answer, a tool call
  // streaming; print mode: the call streaming only), so a reply needing no tool costs no thread (LuaToolSet.prewarm).
  // A sign-in's token refreshed later is scrubbed from tool results and spill files too.
  if (opened.ok) {
    onSecretsAnnounced(opened.value.tools, "addSecrets");
  }
  if (opened.ok && !mode.interactive) void opened.value.tools.prewarm();
  if (opened.ok && sandbox.value && options.permissions) {
    // Exec calls of the Lua tools run inside the sandbox: `permissions.sandbox_auto_allow` may let them run unasked.
    const lua = opened.value.tools;
    options.permissions.engine.sandboxed = (tool) => lua.tool(tool.name) !== undefined;
  }
  if (opened.ok && options.permissions) {
    // Once the tools are known: a rule naming none of them is said (a typo must not silently match nothing).
    const { engine } = options.permissions;
    const lua = opened.value.tools;
    opened.value.ready = opened.value.ready.then(async () => {
      const [{ unknownToolRules }, servers] = await Promise.all([import("../permissions/unknown-tools.js"), mcpServerNames(options, cwd, trusted)]);
      for (const line of unknownToolRules(engine, lua.definitions().map((t) => t.name), servers)) options.warn(line);
    });
  }
  if (!opened.ok || (!hasMcpConfig(options, cwd, trusted) && !mode.clientServers?.length)) return opened;
  const lua = opened.value.tools;
  const mcpOptions: Omit<McpToolsOptions, "ask"> = {
    config: options.config,
    cwd,
    env: process.env,
    // A trusted folder's .mcp.json is approved with the rest of what it brings (docs/permissions.md, "Trust").
    trusted,
    approveProject: trusted || options.cli.flags["approve-mcp-json"] === true || options.config?.get("approve_mcp_json")?.value === true,
    ...(options.permissions?.unpinned && options.cli.flags["approve-mcp-json"] !== true && { unpinnedServers: options.permissions.unpinned.mcpServers }),
    waitForStart: !mode.interactive,
    useCache: true,
    warn: options.warn,
    reservedNames: () => lua.definitions().map((t) => t.name),
    secrets,
    ...(mode.clientServers && { clientServers: mode.clientServers }),
  };
  // Without a project .mcp.json there is nothing to ask before the prompt: the whole set-up waits for it to be drawn.
  if (mode.interactive && !existsSync(join(cwd, ".mcp.json"))) {
    const { LaterMcp } = await import("./later-mcp.js");
    const laterMcp = new LaterMcp(async (warn) => (await import("./mcp-tools.js")).openMcpTools({ ...mcpOptions, warn }), options.warn);
    return { ok: true, value: { ...opened.value, laterMcp } };
  }
  const [{ openMcpTools }, ask] = await Promise.all([
    import("./mcp-tools.js"),
    mode.interactive ? import("../ui/prompts/mcp-approval.js").then((m) => m.askMcpApproval) : undefined,
  ]);
  const mcp = await openMcpTools({ ...mcpOptions, ...(ask && { ask }) });
  return { ok: true, value: { ...opened.value, ...(mcp && { mcp }) } };
}

/** The MCP servers configured in the config files, the project's `.mcp.json` and the plugins (their tools come later). */
async function mcpServerNames(options: Pick<RunOptions, "config">, cwd: string, trusted: boolean): Promise<string[]> {
  const names = Object.keys((options.config?.get("mcpServers")?.value as Record<string, unknown> | undefined) ?? {});
  try {
    const project = JSON.parse(readFileSync(join(cwd, ".mcp.json"), "utf8")) as { mcpServers?: Record<string, unknown> };
    names.push(...Object.keys(project.mcpServers ?? {}));
  } catch {
    // none, or not readable: the MCP layer reports a broken file itself
  }
  // The plugins' `mcp.json` files are read (their reader loaded) only when a plugin has one.
  if (!pluginsHaveMcp(process.env, cwd, trusted)) return names;
  const { pluginMcpServers } = await import("../plugins/read-parts.js");
  return [...names, ...pluginMcpServers(process.env, cwd, trusted).map((s) => s.name)];
}

/** Whether any MCP server may be configured: the MCP modules load only then. */
function hasMcpConfig(options: Pick<RunOptions, "config">, cwd: string, trusted: boolean): boolean {
  return options.config?.get("mcpServers") !== undefined || existsSync(join(cwd, ".mcp.json")) || pluginsHaveMcp(process.env, cwd, trusted);
}
