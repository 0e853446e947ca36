/**
 * The permission keys of the config files (docs/permissions.md): `permissions.allow`, `.ask`, `.deny` (rule
 * lists), `permissions.mode`, `permissions.sandbox`, `permissions.sandbox_auto_allow`; and the user file's
 * `trusted_folders`. Each rule keeps its file and line, for `awl permissions` and for messages.
 *
 * Fail closed: a rule that cannot be read never allows anything. A bad allow rule is dropped; a bad ask or deny
 * rule whose tool name can still be read asks for, or denies, every call of that tool; each is reported.
 * An untrusted project file adds no allow rules and no widening setting (trust.ts): its `mode` counts only when
 * narrower than the user's (plan < default < accept-edits < bypass); its deny and ask rules hold anyway (they
 * only narrow). What it would have widened is listed, with why, in `skipped`.
 */
import type { ConfigLayer } from "../config/config-file.js";
import { trustedFoldersIn } from "./trust.js";
import { isPermissionMode, PERMISSION_MODES, type PermissionMode } from "./engine.js";
import { parseRule, type Rule, type RuleAction, type RuleSource } from "./rules.js";

/** One config file as the permission keys need it. */
export interface PermissionLayer {
  scope: "user" | "project";
  path: string;
  values: Record<string, unknown>;
  /** The 1-based line of a value, found by its path of keys and indexes (the file's first line when unknown). */
  lineOf(path: readonly (string | number)[]): number;
}

export const RULE_ACTIONS: readonly RuleAction[] = ["deny", "ask", "allow"];
/** The modes from the one that runs least unasked to the one that runs most. */
const MODE_BREADTH: readonly PermissionMode[] = ["plan", "default", "accept-edits", "bypass"];
const UNTRUSTED = "the folder is not trusted, and an untrusted folder can only narrow what you set";
const PERMISSION_KEYS = ["allow", "ask", "deny", "mode", "sandbox", "sandbox_auto_allow", "sandbox_open", "pass_env"];
/** Keys only the user's own file may set: what they open, a project file (trusted or not) must not. */
const USER_ONLY_KEYS = ["sandbox_open", "pass_env"];

export interface PermissionConfig {
  rules: Rule[];
  /** Bad rules and keys, each naming file and line; awl warns and goes on (fail closed). */
  problems: string[];
  mode?: { value: PermissionMode; source: string };
  sandbox?: { value: boolean; source: string };
  sandboxAutoAllow?: { value: boolean; source: string };
  /** The user file's `sandbox_open`: hidden paths shown, Unix sockets reachable inside the sandbox. */
  sandboxOpen?: { value: string[]; source: string };
  /** The user file's `pass_env`: credential variables tool programs still get. */
  passEnv?: { value: string[]; source: string };
  /** The user file's trusted folders (absolute paths). */
  trustedFolders: string[];
  /** What an untrusted project file would have widened (not applied) and why, e.g. `allow rule "bash" (file:3): ...`. */
  skipped: string[];
}

/** One config file (as the layered config read and checked it, src/config) as the permission keys need it. */
export function permissionLayer(layer: ConfigLayer): PermissionLayer {
  const pointer = (keys: readonly (string | number)[]): string => keys.map((k) => `/${String(k).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
  return { scope: layer.scope, path: layer.path, values: layer.values, lineOf: (keys) => layer.positionOf(pointer(keys))?.line ?? 1 };
}

export interface PermissionConfigOptions {
  workspace: string;
  home: string;
  /** Whether the project file may widen what is allowed. */
  projectTrusted: boolean;
  /** `kind:name` keys (src/trust/content.ts) of a trusted project's allow rules and settings changed since it was trusted: not applied. */
  unpinned?: ReadonlySet<string>;
}

/** The permission settings of the files, lowest first (user, then project). */
export function permissionConfig(layers: readonly PermissionLayer[], options: PermissionConfigOptions): PermissionConfig {
  const out: PermissionConfig = { rules: [], problems: [], trustedFolders: [], skipped: [] };
  for (const layer of layers) {
    const where = (keys: readonly (string | number)[]): string => `${layer.path}:${layer.lineOf(keys)}`;
    const widens = layer.scope === "project" && !options.projectTrusted;
    // The schema checked the list (absolute paths, src/config); only the user's file can trust a folder.
    if (layer.scope === "user") out.trustedFolders.push(...trustedFoldersIn(layer.values));
    const section = layer.values.permissions;
    if (section === undefined) continue;
    if (typeof section !== "object" || section === null || Array.isArray(section)) {
      out.problems.push(`${where(["permissions"])}: "permissions" must be an object like {"allow": ["bash(git status)"]} (ignored)`);
      continue;
    }
    const values = section as Record<string, unknown>;
    for (const key of Object.keys(values)) {
      if (!PERMISSION_KEYS.includes(key)) out.problems.push(`${where(["permissions", key])}: unknown key "permissions.${key}" (ignored; use ${PERMISSION_KEYS.join(", ")})`);
    }
    for (const action of RULE_ACTIONS) {
      const list = values[action];
      if (list === undefined) continue;
      if (!Array.isArray(list)) {
        out.problems.push(`${where(["permissions", action])}: "permissions.${action}" must be a list of rules like ["bash(git status)"]`);
        continue;
      }
      list.forEach((text: unknown, index) => {
        const line = layer.lineOf(["permissions", action, index]);
        const at = `${layer.path}:${line}`;
        if (action === "allow" && (widens || (layer.scope === "project" && options.unpinned?.has(`allow:${String(text)}`)))) {
          out.skipped.push(`allow rule ${JSON.stringify(text)} (${at}): ${UNTRUSTED}`);
          return;
        }
        const source: RuleSource = { kind: layer.scope, file: layer.path, line };
        const parsed = parseRule(text as string, action, source, options.workspace, options.home);
        if (parsed.ok) {
          out.rules.push(parsed.rule);
          return;
        }
        if (action !== "allow" && parsed.tool) {
          // Fail closed: what the user meant to deny or ask for is a part of this tool's calls; all of them then.
          const whole = parseRule(parsed.tool, action, source, options.workspace, options.home);
          if (whole.ok) out.rules.push(whole.rule);
          out.problems.push(`${at}: ${parsed.message}; until it is fixed, every "${parsed.tool}" call is ${action === "deny" ? "denied" : "asked for"}`);
        } else {
          out.problems.push(`${at}: ${parsed.message} (ignored${action === "allow" ? "; it allows nothing" : ""})`);
        }
      });
    }
    const setting = <T>(key: string, check: (v: unknown) => v is T, expected: string, widening: (v: T) => string | false): { value: T; source: string } | undefined => {
      const value = values[key];
      if (value === undefined) return undefined;
      if (!check(value)) {
        out.problems.push(`${where(["permissions", key])}: "permissions.${key}" must be ${expected}, got ${JSON.stringify(value)} (ignored)`);
        return undefined;
      }
      const wider = (widens || (layer.scope === "project" && options.unpinned?.has(`setting:permissions.${key}`))) && widening(value);
      if (wider) {
        out.skipped.push(`"permissions.${key}": ${JSON.stringify(value)} (${where(["permissions", key])}): ${wider}; ${UNTRUSTED}`);
        return undefined;
      }
      return { value, source: where(["permissions", key]) };
    };
    const isBool = (v: unknown): v is boolean => typeof v === "boolean";
    const mode = out.mode ?? { value: "default" as const, source: "the default" };
    const widerMode = (m: PermissionMode): string | false => MODE_BREADTH.indexOf(m) > MODE_BREADTH.indexOf(mode.value) && `wider than "${mode.value}" (${mode.source})`;
    out.mode = setting("mode", isPermissionMode, `one of ${PERMISSION_MODES.join(", ")}`, widerMode) ?? out.mode;
    const sandbox = setting("sandbox", isBool, "true or false", (on) => !on && "it turns the sandbox off");
    if (sandbox && !sandbox.value && layer.scope === "project") {
      out.problems.push(`${sandbox.source}: "permissions.sandbox": false in a project file is ignored: only your own config turns the sandbox off`);
    } else {
      out.sandbox = sandbox ?? out.sandbox;
    }
    out.sandboxAutoAllow = setting("sandbox_auto_allow", isBool, "true or false", (on) => on && "it runs sandboxed calls unasked") ?? out.sandboxAutoAllow;
    for (const key of USER_ONLY_KEYS) {
      if (layer.scope === "project" && values[key] !== undefined) out.problems.push(`${where(["permissions", key])}: "permissions.${key}" is read from your own config only (ignored here)`);
    }
    if (layer.scope === "user") {
      const isNames = (v: unknown): v is string[] => Array.isArray(v) && v.every((item) => typeof item === "string" && item !== "");
      out.sandboxOpen = setting("sandbox_open", isNames, "a list of paths", () => false) ?? out.sandboxOpen;
      out.passEnv = setting("pass_env", isNames, "a list of variable names", () => false) ?? out.passEnv;
    }
  }
  return out;
}
