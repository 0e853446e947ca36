/**
 * Opening the Lua extensions' tool set of a run (`awl`, `awl -p`, `awl acp`'s sessions), with the Lua limits of
 * its flags and config files; src/runtime/chat-tools.ts opens them, then the MCP servers.
 */
import type { ConfigResult } from "../config/errors.js";
import type { ConfigFileValues } from "../config/config-file.js";
import type { LoadedConfig } from "../config/layers.js";
import { LuaToolSet } from "../extensions/lua-tool-set.js";
import type { NetworkGate, ProcessSandbox, TextHost } from "../extensions/lua/types.js";
import { showToolLog } from "../ui/output/tool-logs.js";
import { withheldVariables } from "../util/secrets.js";
import type { SearchSettings } from "../web/search.js";
import { resolveLuaLimits } from "./lua-limits.js";
import { cleanUpOnTermination } from "./termination.js";

/** What else the main command's tools need to know. */
export interface ChatToolOptions {
  /** The folder the tools work in; default `process.cwd()`. */
  cwd?: string;
  config?: LoadedConfig;
  /** The run's keys, scrubbed from spill files. */
  secrets?: readonly string[];
  /** Load the folder's own `.awl/extensions/` (a trusted folder). */
  trustProject?: boolean;
  /** Its extensions changed since it was trusted, not loaded (src/trust/pin.ts). */
  unpinnedExtensions?: ReadonlySet<string>;
  /** Where the std file tools' text goes instead of the disk. */
  textHost?: TextHost;
  /** Every program the extensions start runs inside it (`--sandbox`). */
  sandbox?: ProcessSandbox;
  /** The user's `permissions.pass_env`: credential variables the programs still get. */
  passEnv?: readonly string[];
  /** Decides every host `awl.http` reaches (the permission engine's `network` rules). */
  network?: NetworkGate;
  /** The `search` config key (the search tool's backend). */
  search?: SearchSettings;
}

/**
 * The ToolSet of the main command (`awl`, `awl -p`). The registration cache lets the first request go out
 * before any Lua runs; the agent prewarms the tools (starts the Lua workers) as soon as that request is on its
 * way, and a reply that needs no tool does not wait for them at exit (LuaToolSet.unload). Without a matching
 * cache this returns as
 * soon as the Lua worker that loads the extensions is starting: `ready` settles when the tools are known (the first
 * request needs them), and the caller loads the rest of awl meanwhile. Problems found at start-up go to `warn`
 * then; a bad Lua limit (flag or config key, see lua-limits.ts) is a usage error. `secrets` (the run's keys) are
 * scrubbed from spill files.
 */
export async function openToolsForChat(
  flags: { "extensions-dir"?: string[]; "no-std-tools"?: boolean; "tool-timeout"?: string; "lua-workers"?: string; "lua-memory-mb"?: string },
  warn: (text: string) => void,
  options: ChatToolOptions = {},
): Promise<ConfigResult<{ tools: LuaToolSet; ready: Promise<void> }>> {
  const { config, secrets = [], trustProject = false, unpinnedExtensions, textHost, sandbox, network, search, passEnv, cwd = process.cwd() } = options;
  const limits = await resolveLuaLimits(flags, process.env, config);
  if (!limits.ok) return limits;
  const tools = await LuaToolSet.start({
    cwd,
    env: process.env,
    extensionDirs: flags["extensions-dir"] ?? [],
    trustProject,
    ...(unpinnedExtensions && { unpinnedExtensions }),
    ...(flags["no-std-tools"] && { bundledDir: false as const }),
    secrets,
    withheldEnv: withheldVariables(config?.values as ConfigFileValues | undefined),
    ...(passEnv && { passEnv }),
    ...limits.value,
    // Inside its live block, or in the output order: a live tool block never redraws over what a tool printed.
    onLog: showToolLog,
    ...(textHost && { textHost }),
    ...(sandbox && { sandbox }),
    ...(network && { network }),
    ...(search && { search }),
  });
  // Until it is closed: a closed session's tools (ACP's session/close) are no longer held here.
  tools.whenClosed(cleanUpOnTermination({ kill: () => tools.killProcesses(), close: () => tools.close() }));
  const ready = tools.ready().then(() => {
    for (const problem of tools.problems()) warn(problem);
  });
  return { ok: true, value: { tools, ready } };
}
