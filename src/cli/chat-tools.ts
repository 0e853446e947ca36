/**
 * Opening the main command's tools (the Lua extensions). Kept apart from the runtime's module so that `awl` can
 * open them first: without a matching registration cache a Lua worker then loads the extensions on its own thread
 * while the rest of awl loads (~100 ms of its own work, which the first request waits for).
 */
import type { ConfigResult } from "../config/errors.js";
import type { LuaToolSet } from "../extensions/lua-tool-set.js";
import type { RuntimeOptions } from "./runtime.js";

/** The tools, and when they are known (the first request needs them; see `openToolsForChat`). */
export interface OpenedTools {
  tools: LuaToolSet;
  ready: Promise<void>;
}

/** Opens the tools for the settings and flags; resolves once a cold start's Lua worker is starting. */
export async function openChatTools(
  options: Pick<RuntimeOptions, "settings" | "sources" | "config" | "cli" | "warn">,
): Promise<ConfigResult<OpenedTools>> {
  const [{ openToolsForChat }, { runSecrets }] = await Promise.all([import("./commands/extension-host.js"), import("./run-secrets.js")]);
  return openToolsForChat(options.cli.flags, options.warn, options.config, runSecrets(options));
}
