/** `/permissions` (list, remove, switch the mode, untrust), `/mode` and Shift-Tab for the interactive mode (docs/permissions.md). */
import { isPermissionMode, PERMISSION_MODES, type PermissionEngine, type PermissionMode } from "../../permissions/engine.js";
import { permissionsText, removeListedRule } from "../../permissions/listing.js";
import { setFolderTrust } from "../../permissions/save.js";
import type { SlashCommand } from "./slash-command.js";

export const permissionCommands: SlashCommand[] = [
  {
    name: "permissions",
    args: "[remove N | untrust]",
    summary: "every permission rule with where it comes from (this session's too); remove one; stop trusting this folder (/mode switches the mode)",
    run: async (args, { runtime, print }) => {
      const layer = runtime.permissions;
      const setup = runtime.options.permissions;
      if (!layer || !setup) return print("permissions: this run has no permission layer");
      const engine = layer.engine;
      const words = args.split(/\s+/).filter(Boolean);
      const folder = setup.engine.workspace;
      if (words.length === 0) {
        const trust = setup.trusted ? "trusted (/permissions untrust revokes it)" : "not trusted: its own extensions and allow rules are not loaded";
        return print(permissionsText(engine, { modeSource: engine.mode === setup.engine.mode ? setup.modeSource : "/mode", folder, trust }).trimEnd());
      }
      if (words[0] === "remove" && words.length === 2) {
        const removed = await removeListedRule(engine, Number(words[1]));
        return print(removed.ok ? `removed ${removed.rule.action} rule "${removed.rule.text}" (${removed.from})` : `cannot remove: ${removed.message}`);
      }
      if (words[0] === "mode" && words.length <= 2) return switchMode(engine, words[1] ?? "", print);
      if (words[0] === "untrust" && words.length === 1) {
        try {
          await setFolderTrust(setup.userConfigPath, folder, false);
        } catch (error) {
          return print(`cannot change ${setup.userConfigPath}: ${(error as Error).message}`);
        }
        return print(`${folder} is no longer trusted: from the next start its own extensions and allow rules are not loaded`);
      }
      print("usage: /permissions, /permissions remove N (as listed), /permissions mode MODE, /permissions untrust");
    },
  },
  {
    name: "mode",
    args: "[MODE]",
    summary: `the permission mode from now on (${PERMISSION_MODES.join(", ")}); no argument: show it`,
    run: (args, { runtime, print }) => {
      const layer = runtime.permissions;
      if (!layer) return print("mode: this run has no permission layer");
      const words = args.split(/\s+/).filter(Boolean);
      if (words.length > 1) return print(`usage: /mode [MODE], e.g. /mode accept-edits (${PERMISSION_MODES.join(", ")})`);
      switchMode(layer.engine, words[0] ?? "", print);
    },
  },
];

/** Shift-Tab's order: default → accept-edits → plan → default (bypass, set by flag or `/mode`, goes back to default). */
const NEXT_MODE: Record<PermissionMode, PermissionMode> = { default: "accept-edits", "accept-edits": "plan", plan: "default", bypass: "default" };

/** Shift-Tab: the next permission mode, from now on (the status line shows it). */
export function cycleMode(engine: PermissionEngine): PermissionMode {
  engine.mode = NEXT_MODE[engine.mode];
  return engine.mode;
}

/** `/permissions mode MODE`: the permission mode from now on; no MODE: show it. */
function switchMode(engine: PermissionEngine, mode: string, print: (text: string) => void): void {
  if (mode === "") return print(`mode: ${engine.mode}`);
  if (!isPermissionMode(mode)) return print(`unknown mode "${mode}": use ${PERMISSION_MODES.join(", ")}`);
  engine.mode = mode;
  print(mode === "bypass" ? "mode: bypass — every tool call now runs without asking; only deny rules still hold" : `mode: ${mode}`);
}
