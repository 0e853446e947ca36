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
import { relative } from "node:path";
import { handOff, pathArgsOf, type PathArg } from "./path-args.js";
import { escapeGlob, isInside, realPathOf, resolveToolPath } from "./paths.js";
import { protectionOf } from "./protected.js";
import { hostRuleText } from "./host-rules.js";
import { nonPublicKind } from "../web/addresses.js";
import type { Rule, RuleAction } from "./rules.js";
import { commandRuleReason, CommandRules, offeredCommandRules } from "./command-rules.js";
import { invalidCommandText, readCommand } from "./command-reading.js";
import type { ParsedCommand } from "./shell-commands.js";
import { os } from "../util/lazy-builtin.js";

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
  /** The host its `url` argument names (a network tool's), as a rule names it: the call may reach it once allowed. */
  hosts?: string[];
}

/** What a call touches, read from its arguments; `error` when an argument cannot be read safely. */
interface Subject {
  command?: string;
  /** A network tool's `url` argument. */
  url?: string;
  paths: PathArg[];
  error?: string;
}

/** What a program in the exec sandbox may reach through its proxy: nothing, the hosts host rules allow, any host. */
export type SandboxReach = "none" | "hosts" | "any";

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
  /** Command rules found by first word, per tool name (and for the sandbox's network); remade when rules change. */
  private commandRules = new Map<string, CommandRules>();

  constructor(options: PermissionEngineOptions) {
    this.workspace = realPathOf(options.workspace);
    this.home = options.home ?? os().homedir();
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
    this.commandRules.clear();
    this.rules.push(rule);
    if (rule.tool.includes("*")) this.wild.push(rule);
    else this.byTool.set(rule.tool, [...(this.byTool.get(rule.tool) ?? []), rule]);
  }

  /** Removes one rule (the same object `list()` gave); false when it is not there. */
  removeRule(rule: Rule): boolean {
    const index = this.rules.indexOf(rule);
    if (index < 0) return false;
    this.rules.splice(index, 1);
    this.commandRules.clear();
    if (rule.tool.includes("*")) this.wild = this.wild.filter((r) => r !== rule);
    else this.byTool.set(rule.tool, (this.byTool.get(rule.tool) ?? []).filter((r) => r !== rule));
    return true;
  }

  /** Whether the model is offered the tool at all: not when a rule denies every call, nor a non-read in `plan`. */
  offers(tool: PermissionTool): boolean {
    if (this.mode === "plan" && !isReadOnly(tool)) return false;
    return !this.rulesFor(tool.name).some((r) => r.action === "deny" && r.pattern === undefined);
  }

  /**
   * The decision for one call; `input` is the call's parsed, schema-checked arguments. A command is read once
   * `loadShellParser()` (command-reading.ts) has resolved; before that it is unresolved (denied by a deny rule of
   * its tool, else asked about).
   */
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
    if (subject.url !== undefined && kindsOf(tool).includes("network")) return this.decideUrl(tool, subject.url, decision);
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
    const split = subject.command === undefined ? undefined : readCommand(subject.command);
    const facts = { paths, commands: split?.commands.map((c) => c.text) ?? [], ...(handed && { input: handed.input }) };
    const rules = split || paths.length === 0 ? this.rulesFor(tool.name) : [...this.rulesFor(tool.name), ...this.kindRulesFor(tool)];

    const commandRules = split && this.commandRulesOf(tool.name, () => rules);
    const hitting = split && commandRules!.hitting(split);
    const hits = (rule: Rule): boolean => {
      if (rule.pattern === undefined) return true;
      if (hitting) return hitting.has(rule);
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
      const covering = commandRules!.covering(split);
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
   * What a program started inside the exec sandbox may reach through the sandbox's proxy (docs/permissions.md,
   * "Sandbox"): only rules naming `network` decide, never a tool's kinds, the mode or a `*` rule. `command` is the
   * program's command line (a shell command as written). A deny or ask command rule that matches any piece (or a
   * bare `network` deny or ask rule) gives it nothing (nobody can be asked while a program starts); `network` or a
   * command rule `network(P)` that covers every part of the command, as for a command rule, gives it any host; else
   * it may reach the hosts that host rules allow, when there are any.
   */
  sandboxReach(command: string): SandboxReach {
    const rules = this.byTool.get(NETWORK_RULE) ?? [];
    const hosts: SandboxReach = rules.some((r) => r.action === "allow" && r.matchHost !== undefined) ? "hosts" : "none";
    const programRules = rules.filter((r) => r.matchHost === undefined);
    if (programRules.length === 0) return hosts;
    if (programRules.some((r) => r.action !== "allow" && r.pattern === undefined)) return "none";
    const split = invalidCommandText(command) ? undefined : readCommand(command);
    if (!split) return programRules.some((r) => r.action !== "allow") ? "none" : hosts;
    const commandRules = this.commandRulesOf(`${NETWORK_RULE} of programs`, () => programRules);
    const hitting = commandRules.hitting(split);
    if (programRules.some((r) => r.action !== "allow" && hitting.has(r))) return "none";
    if (programRules.some((r) => r.action === "allow" && r.pattern === undefined)) return "any";
    // A bare `exec` runs nothing (std.bash starts its script with `exec 2>&1`).
    return commandRules.covering(split, (text) => text === "exec") !== undefined ? "any" : hosts;
  }

  /** Whether a program started inside the exec sandbox may reach any host (`sandboxReach`). */
  allowsNetwork(command: string): boolean {
    return this.sandboxReach(command) === "any";
  }

  /**
   * A network tool's call by the host its `url` names (docs/permissions.md, "Network"): a deny or ask rule of the
   * tool as a whole counts as for any tool; then the `network` rules decide the host; the tool's own allow rule
   * (`fetch`) allows any host.
   */
  private decideUrl(tool: PermissionTool, text: string, decision: (action: RuleAction, reason: string, extra?: Partial<Decision>) => Decision): Decision {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return decision("deny", `the "url" argument is not a valid URL: ${JSON.stringify(text)}`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return decision("deny", `only http:// and https:// URLs can be reached, not ${url.protocol} (${JSON.stringify(text)})`);
    const hosts = [hostRuleText(url.hostname)];
    const own = this.rulesFor(tool.name).filter((r) => r.pattern === undefined || r.matchHost !== undefined);
    const hits = (r: Rule) => r.pattern === undefined || r.matchHost!(url.hostname, portOf(url));
    const deny = own.find((r) => r.action === "deny" && hits(r));
    if (deny) return decision("deny", `the rule "${deny.text}" denies it`, { rule: deny, hosts });
    const host = this.decideHost(url);
    if (host.action === "deny") return { ...host, hosts };
    if (this.mode === "plan" && !isReadOnly(tool)) return decision("deny", "plan mode runs read tools only", { hosts });
    if (this.mode === "bypass") return decision("allow", "bypass mode", { hosts });
    const ask = own.find((r) => r.action === "ask" && hits(r));
    if (ask) return decision("ask", `the rule "${ask.text}" asks`, { rule: ask, hosts, allowRules: host.allowRules });
    const allow = own.find((r) => r.action === "allow" && hits(r));
    // The tool's own allow rule allows any host but one a `network` ask rule names, and but a loopback or private
    // address (or localhost) written in the URL: those only a `network` rule naming them, or an answer, allows.
    const local = nonPublicKind(url.hostname) !== undefined || hosts[0] === "localhost" || hosts[0]!.endsWith(".localhost");
    if (allow && !local && !(host.action === "ask" && host.rule)) return decision("allow", `the rule "${allow.text}" allows it`, { rule: allow, hosts });
    return { ...host, hosts };
  }

  /**
   * Whether `awl.http` (or a network tool's `url`) may reach `url`'s host (docs/permissions.md, "Network"): only
   * rules named `network` with a host pattern (or none) decide; deny > ask > allow; bypass mode allows what no deny
   * rule denies (unless `byMode` is false: the sandbox's proxy); otherwise it asks, offering `network(HOST)`.
   */
  decideHost(url: URL, byMode = true): Decision {
    const name = url.hostname;
    const port = portOf(url);
    const shown = hostRuleText(name);
    const rules = (this.byTool.get(NETWORK_RULE) ?? []).filter((r) => r.pattern === undefined || r.matchHost !== undefined);
    const hits = (r: Rule) => r.pattern === undefined || r.matchHost!(name, port);
    const base = { allowRules: [] as string[], paths: [] as string[], commands: [] as string[] };
    const deny = rules.find((r) => r.action === "deny" && hits(r));
    if (deny) return { ...base, action: "deny", reason: `the rule "${deny.text}" denies reaching ${shown}`, rule: deny };
    if (byMode && this.mode === "bypass") return { ...base, action: "allow", reason: "bypass mode" };
    const ask = rules.find((r) => r.action === "ask" && hits(r));
    if (ask) return { ...base, action: "ask", reason: `the rule "${ask.text}" asks before reaching ${shown}`, rule: ask, allowRules: [`network(${shown})`] };
    const allow = rules.find((r) => r.action === "allow" && hits(r));
    if (allow) return { ...base, action: "allow", reason: `the rule "${allow.text}" allows reaching ${shown}`, rule: allow };
    return { ...base, action: "ask", reason: `no rule allows reaching ${shown}`, allowRules: [`network(${shown})`] };
  }

  /**
   * Why a connection for `url` may not go to `address` (undefined: it may): a loopback, private or link-local
   * address (web/addresses.ts) is reached only in bypass mode or when an allow rule names that address, or names
   * the URL's host when that host is the address itself or `localhost` (then an approval of that host counts too).
   * A DNS name that resolves there is not enough: the name is not what is connected to. `byMode` false: bypass
   * mode does not count (the sandbox's proxy).
   */
  addressRefusal(url: URL, address: string, granted: readonly string[] = [], byMode = true): string | undefined {
    const kind = nonPublicKind(address);
    if (kind === undefined || (byMode && this.mode === "bypass")) return undefined;
    const port = portOf(url);
    const rules = (this.byTool.get(NETWORK_RULE) ?? []).filter((r) => r.matchHost !== undefined);
    const deny = rules.find((r) => r.action !== "allow" && r.matchHost!(address, port));
    const shown = hostRuleText(address);
    if (deny) return `the rule "${deny.text}" ${deny.action === "deny" ? "denies" : "asks before"} reaching ${shown}`;
    if (rules.some((r) => r.action === "allow" && r.matchHost!(address, port))) return undefined;
    const name = hostRuleText(url.hostname);
    const direct = name === shown || name === "localhost" || name.endsWith(".localhost");
    if (direct && (granted.includes(name) || rules.some((r) => r.action === "allow" && r.matchHost!(url.hostname, port)))) return undefined;
    const via = direct ? shown : `${name} resolves to ${shown}, which`;
    return `${via} is a ${kind} address: awl reaches loopback, private and link-local addresses only when a rule names them, e.g. "network(${shown})"`;
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

  /** The command rules of a rule list (`rules`, made on a miss), kept under `key` until the rules change. */
  private commandRulesOf(key: string, rules: () => readonly Rule[]): CommandRules {
    let made = this.commandRules.get(key);
    if (!made) this.commandRules.set(key, (made = new CommandRules(rules())));
    return made;
  }

  private rulesFor(tool: string): Rule[] {
    const exact = this.byTool.get(tool) ?? [];
    if (this.wild.length === 0) return exact;
    return [...exact, ...this.wild.filter((r) => r.matchTool(tool))];
  }
}

/** The port a URL reaches (its scheme's when it names none). */
function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
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
  if (typeof args.url === "string") subject.url = args.url;
  const paths = pathArgsOf(args);
  if ("error" in paths) return { paths: [], error: paths.error };
  subject.paths = paths.paths;
  return subject;
}
