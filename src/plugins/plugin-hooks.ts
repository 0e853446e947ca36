/**
 * A plugin's command hooks (docs/plugins.md, "Hooks"): `hooks/hooks.json` of a Claude Code plugin or
 * `dev.awl/hooks.json`, in Claude Code's format: `{"hooks": {"PreToolUse": [{"matcher": ..., "hooks": [...]}]}}`
 * (the events may also be at the top). `${PLUGIN_ROOT}`, `${PLUGIN_DATA}`, `${CLAUDE_PLUGIN_ROOT}` and
 * `${CLAUDE_PLUGIN_DATA}` in a command become the plugin's folders (shell-quoted). The entries are read by the
 * same reader as the config files' hooks (src/hooks/command-config.ts), as user hooks.
 */
import type { ConfigLayer } from "../config/config-file.js";
import { readCommandHooks, type CommandHook } from "../hooks/command-config.js";
import { isObject, PluginFormatError, readJsonObject } from "./plugin-json.js";
import type { PluginPlaces } from "./plugin-mcp.js";

/** The hooks of `file`, and the problems of entries left out (each naming file:line). */
export function readPluginHooks(file: string, places: PluginPlaces): { hooks: CommandHook[]; problems: string[] } {
  let read;
  try {
    read = readJsonObject(file);
  } catch (error) {
    if (error instanceof PluginFormatError) return { hooks: [], problems: [`${error.message}; the plugin's hooks are off`] };
    throw error;
  }
  const nested = read.value.hooks !== undefined;
  const section = nested ? read.value.hooks : Object.fromEntries(Object.entries(read.value).filter(([k]) => k !== "description"));
  const pairs: Array<[RegExp, string]> = [
    [/\$\{(?:CLAUDE_)?PLUGIN_ROOT\}/g, quote(places.root)],
    [/\$\{(?:CLAUDE_)?PLUGIN_DATA\}/g, quote(places.data)],
  ];
  const layer: ConfigLayer = {
    scope: "user",
    path: file,
    values: { hooks: expandCommands(section, pairs) },
    positionOf: (pointer) => {
      const line = Number(read.at(nested ? pointer : pointer.replace(/^\/hooks/, "")).split(":").pop());
      return { line, column: 1 };
    },
    warnings: [],
  };
  return readCommandHooks([layer]);
}

/** The events and commands of a hooks file, for the review (undefined when it cannot be read). */
export function hookEntries(file: string): Array<{ event: string; matcher?: string; command: string }> | undefined {
  let value: Record<string, unknown>;
  try {
    value = readJsonObject(file).value;
  } catch {
    return undefined;
  }
  const section = isObject(value.hooks) ? value.hooks : value;
  const out: Array<{ event: string; matcher?: string; command: string }> = [];
  for (const [event, groups] of Object.entries(section)) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups) {
      if (!isObject(group) || !Array.isArray(group.hooks)) continue;
      for (const hook of group.hooks) {
        if (!isObject(hook)) continue;
        out.push({ event, ...(typeof group.matcher === "string" && { matcher: group.matcher }), command: typeof hook.command === "string" ? hook.command : `(${String(hook.type)} hook)` });
      }
    }
  }
  return out;
}

function expandCommands(section: unknown, pairs: Array<[RegExp, string]>): unknown {
  if (!isObject(section)) return section;
  const out: Record<string, unknown> = {};
  for (const [event, groups] of Object.entries(section)) {
    out[event] = !Array.isArray(groups)
      ? groups
      : groups.map((group: unknown) =>
          !isObject(group) || !Array.isArray(group.hooks)
            ? group
            : {
                ...group,
                hooks: group.hooks.map((hook: unknown) =>
                  isObject(hook) && typeof hook.command === "string" ? { ...hook, command: pairs.reduce((text, [re, to]) => text.replace(re, to), hook.command) } : hook,
                ),
              },
        );
  }
  return out;
}

function quote(path: string): string {
  return `'${path.replace(/'/g, "'\\''")}'`;
}
