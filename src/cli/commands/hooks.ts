/**
 * `awl hooks`: every hook (docs/hooks.md), the Lua extensions' `awl.on` handlers and the config files' command
 * hooks, with event, matcher, file:line and state: a project's hooks are listed also when they do not run (the
 * folder is not trusted, or they changed since it was trusted), saying so; then the config entries left out.
 * `/hooks` in the interactive mode lists the hooks of the running session.
 */
import { loadConfig } from "../../config/layers.js";
import { readCommandHooks, type CommandHook } from "../../hooks/command-config.js";
import { pluginCommandHooks } from "../../plugins/read-parts.js";
import { LuaHooks } from "../../hooks/lua-hooks.js";
import { commandEntries, hooksText, luaEntries } from "../../hooks/listing.js";
import { setupPermissions } from "../../permissions/setup.js";
import { EXIT } from "../exit-codes.js";
import { configError, displayPath, openExtensions, parseCommandArgs, processIO, usageError, type CommandIO } from "./extension-host.js";

export const HOOKS_USAGE = `usage: awl hooks [--json] [--trust-project] [--extensions-dir DIR]...

Lists every hook: the awl.on(event, handler) handlers of the Lua extensions and the
command hooks of ~/.config/awl/config.json and .awl/config.json ("hooks", in Claude
Code's format), in the order they run, each with its event, matcher, file:line, state
and deadline. A project's hooks are listed also when they do not run (the folder is
not trusted, or they changed since you trusted it). Then the config entries left out
and why. See docs/hooks.md.
`;

export async function run(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  const parsed = parseCommandArgs(argv);
  if (!parsed.ok) return usageError(io, "hooks", parsed.message);
  if (parsed.values.help) return io.stdout(HOOKS_USAGE), EXIT.ok;
  if (parsed.positionals.length > 0) return usageError(io, "hooks", `unexpected argument "${parsed.positionals[0]}"`);
  const cwd = process.cwd();
  const trustFlag = parsed.values["trust-project"] === true;
  const setup = await setupPermissions({ cwd, env: process.env, flags: { trustProject: trustFlag } });
  if (!setup.ok) return configError(io, setup.error);
  // Every file's hooks, the project's too (listed with why they do not run).
  const all = await loadConfig({ env: process.env, cwd, trustProject: true });
  if (!all.ok) return configError(io, all.error);
  const configured = readCommandHooks(all.value.layers);
  // Installed plugins' hooks run after the config files' (docs/plugins.md).
  const plugins = pluginCommandHooks(process.env, cwd, setup.value.trusted);
  const commands = [...configured.hooks, ...plugins.hooks];
  const problems = [...configured.problems, ...plugins.problems];
  const unpinned = setup.value.unpinned?.keys;
  const state = (hook: CommandHook): string => {
    if (hook.scope !== "project") return "active";
    if (!setup.value.trusted) return "not run: this folder is not trusted (awl permissions trust, or --trust-project for one run)";
    if (unpinned && changedSinceTrusted(hook, unpinned)) return "not run: changed since the folder was trusted (run awl here to review it, or --trust-project)";
    return "active";
  };
  const opened = await openExtensions(parsed.values, io);
  if (!opened.ok) return configError(io, opened.error);
  const lua = opened.value;
  try {
    const entries = [...luaEntries(new LuaHooks(lua, () => undefined).handlers()), ...commandEntries(commands, state)];
    if (parsed.values.json) io.stdout(`${JSON.stringify({ version: 1, hooks: entries, problems }, null, 2)}\n`);
    else io.stdout(hooksText(entries, problems, displayPath));
    return EXIT.ok;
  } finally {
    await lua.close();
  }
}

/** Whether the pin check holds this hook as new or changed (its item is named as src/trust/content.ts names it). */
function changedSinceTrusted(hook: CommandHook, unpinned: ReadonlySet<string>): boolean {
  const name = `hook:${hook.event}${hook.matcher ? ` (${hook.matcher})` : ""}: ${hook.command}`;
  return unpinned.has(name) || [...unpinned].some((key) => key.startsWith(`${name} #`));
}
