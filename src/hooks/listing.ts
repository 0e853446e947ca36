/**
 * Every hook of a run as one list (`awl hooks`, `/hooks`): the Lua handlers and the command hooks, each with its
 * event, matcher, where it is written (file:line) and its state, then the config entries left out and why.
 */
import type { CommandHook } from "./command-config.js";
import type { LuaHook } from "./lua-hooks.js";
import { DEFAULT_LUA_HOOK_TIMEOUT_MS } from "./events.js";

/** One hook as listed (the `--json` form of `awl hooks`, docs/hooks.md). */
export interface HookEntry {
  event: string;
  kind: "lua" | "command";
  /** The extension (lua) or the command line (command). */
  what: string;
  /** A command hook's matcher as written; absent: every tool (or the event has no tool). */
  matcher?: string;
  file: string;
  line: number;
  scope: string;
  timeout_ms: number;
  /** `active`, or why it does not run. */
  state: string;
}

/** The Lua handlers, in the order they run. */
export function luaEntries(hooks: readonly LuaHook[]): HookEntry[] {
  return hooks.map((h) => ({
    event: h.hook!,
    kind: "lua",
    what: h.extension,
    file: h.file,
    line: h.line,
    scope: h.source,
    timeout_ms: h.timeout_ms ?? DEFAULT_LUA_HOOK_TIMEOUT_MS,
    state: "active",
  }));
}

/** The command hooks, in the order they run; `state` says whether each runs. */
export function commandEntries(hooks: readonly CommandHook[], state: (hook: CommandHook) => string = () => "active"): HookEntry[] {
  return hooks.map((h) => ({
    event: h.event,
    kind: "command",
    what: h.command,
    ...(h.matcher !== undefined && h.matcher !== "" && { matcher: h.matcher }),
    file: h.file,
    line: h.line,
    scope: h.scope,
    timeout_ms: h.timeoutMs,
    state: state(h),
  }));
}

/** The listing as text: one line per hook, then the problems; `path` shows a file the way the user typed it. */
export function hooksText(entries: readonly HookEntry[], problems: readonly string[], path: (file: string) => string = (f) => f): string {
  const lines = entries.map((e) => {
    const event = e.matcher !== undefined ? `${e.event} (${e.matcher})` : e.event;
    const what = e.kind === "lua" ? `lua "${e.what}"` : `command ${JSON.stringify(e.what)}`;
    return `${event}  ${what}  ${path(e.file)}:${e.line}  ${e.state}, deadline ${seconds(e.timeout_ms)}`;
  });
  if (entries.length === 0) lines.push("No hooks. Add one with awl.on(event, handler) in an extension or \"hooks\" in a config file (docs/hooks.md).");
  if (problems.length > 0) lines.push("", "left out:", ...problems.map((p) => `  ${p}`));
  return `${lines.join("\n")}\n`;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
