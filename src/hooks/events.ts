/**
 * The events hooks act on (docs/hooks.md): the Lua names (`awl.on(event, ...)`), the Claude Code names of the
 * command hooks in the config (`hooks.PreToolUse`...), and what a Lua handler may return for each.
 */

/** The events a Lua extension's `awl.on` takes. */
export const LUA_EVENTS = ["session_start", "user_prompt", "tool_call", "tool_result", "before_request", "turn_end", "compaction", "session_end"] as const;
export type LuaEvent = (typeof LUA_EVENTS)[number];

/** The events of command hooks, as Claude Code's settings name them. */
export const COMMAND_EVENTS = ["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart", "SessionEnd", "PreCompact", "Notification"] as const;
export type CommandEvent = (typeof COMMAND_EVENTS)[number];

/** What a Lua handler returned, once checked: only the fields its event takes. */
export interface LuaHookResult {
  block?: boolean;
  reason?: string;
  input?: unknown;
  ask?: boolean;
  context?: string;
  prompt?: string;
  content?: string;
  append?: string;
  is_error?: boolean;
  continue?: string;
}

/** The fields each event's handlers may return (docs/extension-api.md, "Hooks"). */
export const RESULT_FIELDS: Readonly<Record<LuaEvent, readonly (keyof LuaHookResult)[]>> = {
  session_start: ["context"],
  user_prompt: ["block", "reason", "context", "prompt"],
  tool_call: ["block", "reason", "input", "ask"],
  tool_result: ["content", "append", "is_error"],
  before_request: ["context"],
  turn_end: ["continue"],
  compaction: ["context"],
  session_end: [],
};

/** A handler that names no `timeout_ms` gets this long. */
export const DEFAULT_LUA_HOOK_TIMEOUT_MS = 5_000;

/** A command hook that names no `timeout` (seconds) gets this long, as in Claude Code. */
export const DEFAULT_COMMAND_HOOK_TIMEOUT_MS = 60_000;

/** `turn_end` handlers and `Stop` hooks may ask for this many more model calls in one turn, no more. */
export const MAX_CONTINUES_PER_TURN = 3;
