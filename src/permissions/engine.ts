/**
 * The permission decision for one tool call (SPEC §9, docs/permissions.md): deny, ask or allow.
 *
 * Order: a deny rule that matches wins; then a write to a protected path (protected.ts) asks; then an ask rule;
 * then allow rules (every piece of the call must be covered by one); then the mode's default: reads inside the workspace run, `accept-edits` also runs writes
 * inside it, `bypass` runs everything; the rest asks. `plan` offers read tools only. Deny rules hold in every
 * mode, bypass included.
 *
 * What a call touches comes from its arguments by name (docs/permissions.md, "Which argument"): `command` is a
 * shell command; `path`, `paths`, `cwd` and the other path names of path-args.ts are paths. The decision carries
 * the arguments with those paths resolved, for the tool (no second reading of them).
 */
import { homedir } from "node:os";
import { relative } from "node:path";
import { handOff, pathArgsOf, type PathArg } from "./path-args.js";
import { escapeGlob, isInside, realPathOf, resolveToolPath } from "./paths.js";
import { protectionOf } from "./protected.js";
import type { Rule, RuleAction } from "./rules.js";
import { commandHits, commandRuleReason, coveringRule, offeredCommandRules } from "./command-rules.js";
import { invalidCommandText, parseCommand, type ParsedCommand } from "./shell-commands.js";

export const PERMISSION_MODES = ["default", "accept-edits", "plan", "bypass"] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

/** Whether `value` names a permission mode. */
export function isPermissionMode(value: unknown): value is PermissionMode {
  return (PERMISSION_MODES as readonly unknown[]).includes(value);
}

/** What the engine needs of a tool: its name and declared kinds (`read`, `write`, `exec`, `network`). */
export interface PermissionTool {
  name: string;
  /** None declared: `exec`. */
  kinds?: readonly string[];
  /** The owning extension; `mcp:NAME` is an MCP server's, handed absolute paths (it runs in a folder of its own). */
  extension?: string;
}

export interface Decision {
  action: RuleAction;
  /** Why, in words for the user and the model. */
  reason: string;
  /** The rule that decided, if one did. */
  rule?: Rule;
  /** For ask: rules that would allow this call (each piece of a compound command its own). */
  allowRules: string[];
  /** The resolved paths the call touches. */
  paths: string[];
  /** The simple commands of its `command`, if it has one. */
  commands: string[];
  /** The arguments to run the tool with, when they name paths: each replaced by its resolved form (path-args.ts). */
  input?: Record<string, unknown>;
}

/** What a call touches, read from its arguments; `error` when an argument cannot be read safely. */
interface Subject {
  command?: string;
  paths: PathArg[];
  error?: string;
}

/** The rule name that opens the exec sandbox's network (`network`, `network(curl:*)`); no tool's. */
export const NETWORK_RULE = "network";

export interface PermissionEngineOptions {
  /** The workspace folder (resolved through symlinks here). */
  workspace: string;
  home?: string;
  mode?: PermissionMode;
  rules?: readonly Rule[];
  /** `permissions.sandbox_auto_allow` with the sandbox on: exec calls of sandboxed tools inside the workspace run unasked. */
  sandboxAutoAllow?: boolean;
  /** awl's own config and data folders: writes there always ask (protected.ts). */
  protectedFolders?: readonly string[];
}

export class PermissionEngine {
  readonly workspace: string;
  readonly home: string;
  mode: PermissionMode;
  readonly sandboxAutoAllow: boolean;
  readonly protectedFolders: readonly string[];
  /** Whether a tool's programs run inside the exec sandbox (set once the tools are open; none until then). */
  sandboxed: (tool: PermissionTool) => boolean = () => false;
  private rules: Rule[] = [];
  /** Rules by exact tool name; `wild` holds those whose tool name has a `*`. */
  private byTool = new Map<string, Rule[]>();
  private wild: Rule[] = [];

  constructor(options: PermissionEngineOptions) {
    this.workspace = realPathOf(options.workspace);
    this.home = options.home ?? homedir();
    this.mode = options.mode ?? "default";
    this.sandboxAutoAllow = options.sandboxAutoAllow === true;
    this.protectedFolders = (options.protectedFolders ?? []).map(realPathOf);
    for (const rule of options.rules ?? []) this.addRule(rule);
  }

  /** Every rule, in the order added. */
  list(): readonly Rule[] {
    return this.rules;
  }

  addRule(rule: Rule): void {
    this.rules.push(rule);
    if (rule.tool.includes("*")) this.wild.push(rule);
    else this.byTool.set(rule.tool, [...(this.byTool.get(rule.tool) ?? []), rule]);
  }

  /** Removes one rule (the same object `list()` gave); false when it is not there. */
  removeRule(rule: Rule): boolean {
    const index = this.rules.indexOf(rule);
    if (index < 0) return false;
    this.rules.splice(index, 1);
    if (rule.tool.includes("*")) this.wild = this.wild.filter((r) => r !== rule);
    else this.byTool.set(rule.tool, (this.byTool.get(rule.tool) ?? []).filter((r) => r !== rule));
    return true;
  }

  /** Whether the model is offered the tool at all: not when a rule denies every call, nor a non-read in `plan`. */
  offers(tool: PermissionTool): boolean {
    if (this.mode === "plan" && !isReadOnly(tool)) return false;
    return !this.rulesFor(tool.name).some((r) => r.action === "deny" && r.pattern === undefined);
  }

  /** The decision for one call; `input` is the call's parsed, schema-checked arguments. */
  decide(tool: PermissionTool, input: unknown): Decision {
    const subject = subjectOf(input);
    const decision = (action: RuleAction, reason: string, extra: Partial<Decision> = {}): Decision => ({
      action,
      reason,
      allowRules: [],
      paths: [],
      commands: [],
      ...extra,
    });
    if (subject.error) return decision("deny", subject.error);
    const paths: string[] = [];
    for (const arg of subject.paths) {
      const resolved = resolveToolPath(arg.text, this.workspace, this.home);
      if (!resolved.ok) return decision("deny", `${resolved.reason}: ${JSON.stringify(arg.text)}`);
      paths.push(resolved.path);
    }
    const handed = handOff(input as Record<string, unknown>, subject.paths, paths, this.workspace, tool.extension?.startsWith("mcp:") === true);
    if (handed && "error" in handed) return decision("deny", handed.error);
    const invalid = subject.command === undefined ? undefined : invalidCommandText(subject.command);
    if (invalid) return decision("deny", invalid);
    const split = subject.command === undefined ? undefined : parseCommand(subject.command);
    const facts = { paths, commands: split?.commands.map((c) => c.text) ?? [], ...(handed && { input: handed.input }) };
    const rules = split || paths.length === 0 ? this.rulesFor(tool.name) : [...this.rulesFor(tool.name), ...this.kindRulesFor(tool)];

    const hits = (rule: Rule): boolean => {
      if (rule.pattern === undefined) return true;
      if (split) return commandHits(rule, split);
      if (paths.length > 0) return rule.pathError !== undefined || paths.some((path) => rule.matchPath!(path));
      return false;
    };
    const deny = rules.find((r) => r.action === "deny" && hits(r));
    const ruleReason = (rule: Rule, verb: "denies" | "asks"): string => (split && rule.pattern !== undefined ? commandRuleReason(rule, split, verb) : `the rule "${rule.text}" ${verb === "denies" ? "denies it" : "asks"}`);
    if (deny) return decision("deny", ruleReason(deny, "denies"), { rule: deny, ...facts });
    if (this.mode === "plan" && !isReadOnly(tool)) return decision("deny", "plan mode runs read tools only", facts);
    if (this.mode === "bypass") return decision("allow", "bypass mode", facts);
    if (!isReadOnly(tool)) {
      for (const path of paths) {
        const protection = protectionOf(path, this.protectedFolders);
        // No rule can allow it, so none is offered: only an answer (or bypass mode) lets it run.
        if (protection) return decision("ask", `it writes ${path}, in ${protection}: awl asks before every write there`, facts);
      }
    }
    const ask = rules.find((r) => r.action === "ask" && hits(r));
    if (ask) return decision("ask", ruleReason(ask, "asks"), { rule: ask, ...facts });

    const allows = rules.filter((r) => r.action === "allow");
    const whole = allows.find((r) => r.pattern === undefined);
    if (whole) return decision("allow", `the rule "${whole.text}" allows it`, { rule: whole, ...facts });
    const outside = paths.filter((p) => !isInside(p, this.workspace));
    if (split) {
      const covering = coveringRule(allows, split);
      if (covering) return decision("allow", "allow rules cover every command in it", { rule: covering, ...facts });
    } else if (paths.length > 0) {
      const covered = paths.every((path) => allows.some((r) => r.pathError === undefined && r.matchPath?.(path)));
      if (covered) return decision("allow", "allow rules cover every path in it", { rule: allows.find((r) => r.matchPath?.(paths[0]!))!, ...facts });
    }

    const kinds = kindsOf(tool);
    if (outside.length === 0) {
      if (kinds.every((k) => k === "read")) return decision("allow", "a read inside the workspace", facts);
      if (this.mode === "accept-edits" && kinds.every((k) => k === "read" || k === "write")) return decision("allow", "accept-edits mode: a write inside the workspace", facts);
      if (this.sandboxAutoAllow && kinds.every((k) => k === "read" || k === "exec") && this.sandboxed(tool)) return decision("allow", "it runs inside the sandbox (permissions.sandbox_auto_allow)", facts);
    }
    const kind = kinds.join("/");
    const what = outside.length > 0 ? `it touches ${outside.join(", ")}, outside the workspace` : `"${tool.name}" is ${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind} tool`;
    // Said when a command rule could have allowed it: why none can.
    const unresolved = split?.unresolved !== undefined && allows.some((r) => r.pattern !== undefined) ? `; no command rule can allow it: ${split.unresolved}` : "";
    return decision("ask", what + unresolved, { ...facts, allowRules: this.allowRulesFor(tool.name, split, paths) });
  }

  /**
   * Whether a program started inside the exec sandbox may reach the network (docs/permissions.md, "Sandbox"):
   * only rules naming `network` decide, never a tool's kinds, the mode or a `*` rule. `command` is the
   * program's command line (a shell command as written). A deny or ask rule that matches any piece keeps the
   * network closed (nobody can be asked while a program starts); `network` allows every program, `network(P)`
   * the commands P matches, every part of a compound command covered, as for a command rule.
   */
  allowsNetwork(command: string): boolean {
    const rules = this.byTool.get(NETWORK_RULE) ?? [];
    if (rules.length === 0) return false;
    const split = invalidCommandText(command) ? undefined : parseCommand(command);
    if (!split) return false;
    const hits = (rule: Rule): boolean => rule.pattern === undefined || commandHits(rule, split);
    if (rules.some((r) => r.action !== "allow" && hits(r))) return false;
    const allows = rules.filter((r) => r.action === "allow");
    if (allows.some((r) => r.pattern === undefined)) return true;
    // A bare `exec` runs nothing (std.bash starts its script with `exec 2>&1`).
    return coveringRule(allows, split, (text) => text === "exec") !== undefined;
  }

  /** Rules that would allow such a call, most specific first: each piece of a command, each path. */
  private allowRulesFor(tool: string, split: ParsedCommand | undefined, paths: readonly string[]): string[] {
    if (split) return offeredCommandRules(tool, split);
    if (!split && paths.length > 0) return [...new Set(paths.map((path) => `${tool}(${this.rulePath(path)})`))];
    return [tool];
  }

  /** A path as a rule pattern: relative inside the workspace, `~/` below home, absolute elsewhere. */
  displayPath(path: string): string {
    if (isInside(path, this.workspace)) return relative(this.workspace, path) || ".";
    const home = realPathOf(this.home);
    if (isInside(path, home) && path !== home) return `~/${relative(home, path)}`;
    return path;
  }

  /**
   * The path rules another tool of the same kind names (docs/permissions.md, "Rules"): `read(P)` for every tool
   * that reads, `edit(P)` and `write(P)` for every tool that writes. Their deny and ask rules hold for any tool of
   * the kind; their allow rules only for a tool that does nothing else (a `read(P)` never allows a write).
   */
  private kindRulesFor(tool: PermissionTool): Rule[] {
    const kinds = kindsOf(tool);
    const named = [...(kinds.includes("read") ? ["read"] : []), ...(kinds.includes("write") ? ["edit", "write"] : [])].filter((n) => n !== tool.name);
    const allowing = kinds.every((k) => k === "read") ? ["read"] : kinds.every((k) => k === "read" || k === "write") ? ["edit", "write"] : [];
    return named.flatMap((name) => this.byTool.get(name) ?? []).filter((r) => r.pattern !== undefined && (r.action !== "allow" || allowing.includes(r.tool)));
  }

  /**
   * A path as a rule pattern matching it alone (displayPath, its `* ? [ {` escaped): a literal `~/.ssh/*` must not
   * become a glob of every key; a name `~` inside the workspace is `./~`, not home.
   */
  private rulePath(path: string): string {
    const shown = this.displayPath(path);
    if (shown.startsWith("~/")) return `~/${escapeGlob(shown.slice(2))}`;
    const escaped = escapeGlob(shown);
    return escaped.startsWith("~") ? `./${escaped}` : escaped;
  }

  private rulesFor(tool: string): Rule[] {
    const exact = this.byTool.get(tool) ?? [];
    if (this.wild.length === 0) return exact;
    return [...exact, ...this.wild.filter((r) => r.matchTool(tool))];
  }
}

/** The declared kinds, `exec` when none. */
export function kindsOf(tool: PermissionTool): readonly string[] {
  return tool.kinds && tool.kinds.length > 0 ? tool.kinds : ["exec"];
}

/** A tool that only reads. */
export function isReadOnly(tool: PermissionTool): boolean {
  return kindsOf(tool).every((k) => k === "read");
}

function subjectOf(input: unknown): Subject {
  const subject: Subject = { paths: [] };
  if (typeof input !== "object" || input === null || Array.isArray(input)) return subject;
  const args = input as Record<string, unknown>;
  const bad = (key: string, what: string): Subject => ({ paths: [], error: `the "${key}" argument must be ${what}, got ${JSON.stringify(args[key])}` });
  if (args.command !== undefined) {
    if (typeof args.command !== "string") return bad("command", "a string");
    subject.command = args.command;
  }
  const paths = pathArgsOf(args);
  if ("error" in paths) return { paths: [], error: paths.error };
  subject.paths = paths.paths;
  return subject;
}
