/**
 * Command hooks in the config files, in Claude Code's settings format (docs/hooks.md):
 * `"hooks": { "PreToolUse": [ { "matcher": "Bash|Edit", "hooks": [ { "type": "command", "command": "...", "timeout": 60 } ] } ] }`
 * in the user's file and, once the folder is trusted, the project's `.awl/config.json` (config/layers.ts drops the
 * key of an untrusted project). A malformed entry is a problem naming its file and line; the others still work.
 */
import type { ConfigLayer } from "../config/config-file.js";
import { COMMAND_EVENTS, DEFAULT_COMMAND_HOOK_TIMEOUT_MS, type CommandEvent } from "./events.js";
import { claudeToolName } from "./claude-names.js";

/** One command hook, as configured. */
export interface CommandHook {
  event: CommandEvent;
  /** As written; absent, "" or "*": every tool. */
  matcher?: string;
  command: string;
  timeoutMs: number;
  scope: "user" | "project";
  file: string;
  line: number;
  /** Matches a tool name (awl's or Claude Code's). */
  matches(toolName: string): boolean;
}

/** The hooks of the config files (lowest first), and what is wrong with the entries left out. */
export function readCommandHooks(layers: readonly ConfigLayer[]): { hooks: CommandHook[]; problems: string[] } {
  const hooks: CommandHook[] = [];
  const problems: string[] = [];
  // The project's first: its hooks run before the user's, as Lua hooks do.
  for (const layer of [...layers].sort((a, b) => (a.scope === b.scope ? 0 : a.scope === "project" ? -1 : 1))) {
    const section = (layer.values as Record<string, unknown>).hooks;
    if (section === undefined) continue;
    const at = (pointer: string): { file: string; line: number } => ({ file: layer.path, line: layer.positionOf(pointer)?.line ?? 0 });
    const problem = (pointer: string, text: string): void => {
      const where = at(pointer);
      problems.push(`${where.file}:${where.line}: ${text}; that hook is left out`);
    };
    if (!isObject(section)) {
      problem("/hooks", `"hooks" must be an object of events, e.g. {"PreToolUse": [...]}`);
      continue;
    }
    for (const [event, groups] of Object.entries(section)) {
      const base = `/hooks/${escape(event)}`;
      if (!(COMMAND_EVENTS as readonly string[]).includes(event)) {
        problem(base, `"hooks.${event}" is not an event awl runs hooks for (${COMMAND_EVENTS.join(", ")})`);
        continue;
      }
      if (!Array.isArray(groups)) {
        problem(base, `"hooks.${event}" must be a list of {"matcher": ..., "hooks": [...]}`);
        continue;
      }
      groups.forEach((group: unknown, g) => {
        const gp = `${base}/${g}`;
        if (!isObject(group) || !Array.isArray(group.hooks)) return problem(gp, `"hooks.${event}[${g}]" must be {"matcher": "...", "hooks": [{"type": "command", "command": "..."}]}`);
        const matcher = group.matcher;
        if (matcher !== undefined && typeof matcher !== "string") return problem(`${gp}/matcher`, `"hooks.${event}[${g}].matcher" must be a string`);
        const matches = matcherOf(matcher);
        if (typeof matches === "string") return problem(`${gp}/matcher`, `"hooks.${event}[${g}].matcher" ${matches}`);
        group.hooks.forEach((hook: unknown, h) => {
          const hp = `${gp}/hooks/${h}`;
          const name = `"hooks.${event}[${g}].hooks[${h}]"`;
          if (!isObject(hook)) return problem(hp, `${name} must be {"type": "command", "command": "..."}`);
          if (hook.type !== "command") return problem(`${hp}/type`, `${name} has the type ${JSON.stringify(hook.type)}; awl runs "command" hooks`);
          if (typeof hook.command !== "string" || hook.command.trim() === "") return problem(`${hp}/command`, `${name} needs a "command" string`);
          if (hook.timeout !== undefined && !(typeof hook.timeout === "number" && hook.timeout > 0)) return problem(`${hp}/timeout`, `${name}: "timeout" must be a positive number of seconds`);
          hooks.push({
            event: event as CommandEvent,
            ...(matcher !== undefined && { matcher }),
            command: hook.command,
            timeoutMs: typeof hook.timeout === "number" ? Math.round(hook.timeout * 1000) : DEFAULT_COMMAND_HOOK_TIMEOUT_MS,
            scope: layer.scope === "project" ? "project" : "user",
            ...at(hp),
            matches,
          });
        });
      });
    }
  }
  return { hooks, problems };
}

/**
 * A matcher as Claude Code reads it: none, "" or "*" match every tool; otherwise a regular expression that must
 * match the whole name, awl's (`bash`) or Claude Code's (`Bash`). A string when it is not a valid expression.
 */
function matcherOf(matcher: string | undefined): ((toolName: string) => boolean) | string {
  if (matcher === undefined || matcher === "" || matcher === "*") return () => true;
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${matcher})$`);
  } catch (e) {
    return `is not a valid regular expression (${(e as Error).message})`;
  }
  return (toolName) => re.test(toolName) || re.test(claudeToolName(toolName));
}

function escape(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
