/**
 * Seeing and revoking (docs/permissions.md, "Seeing and revoking"): every rule in force with where it comes
 * from, numbered, and removing one by its number: from the engine, and from its config file when it was saved.
 */
import type { PermissionEngine } from "./engine.js";
import { describeSource, type Rule } from "./rules.js";
import { removeSavedRule } from "./save.js";
import { RULE_ACTIONS } from "./config.js";

/** The rules in listing order (deny, ask, allow; within each, as added): what the numbers of the listing mean. */
export function listedRules(engine: PermissionEngine): Rule[] {
  return RULE_ACTIONS.flatMap((action) => engine.list().filter((r) => r.action === action));
}

export interface ListingFacts {
  modeSource: string;
  /** The folder and whether it is trusted (and by what). */
  folder: string;
  trust: string;
  /** Who turned the exec sandbox on (a flag, a file:line); absent: off. */
  sandbox?: string;
  /** Settings of the folder not followed, each with why (an untrusted folder can only narrow). */
  ignored?: readonly string[];
}

/** The listing as text: mode, trust, then every rule with its number and source. */
export function permissionsText(engine: PermissionEngine, facts: ListingFacts): string {
  const lines = [
    `mode: ${engine.mode} (${facts.modeSource})`,
    `folder: ${facts.folder} — ${facts.trust}`,
    `sandbox: ${facts.sandbox ? `on (${facts.sandbox})${engine.sandboxAutoAllow ? ", exec calls inside the workspace run unasked" : ""}` : "off (--sandbox turns it on)"}`,
  ];
  if (facts.ignored && facts.ignored.length > 0) lines.push("ignored:", ...facts.ignored.map((why) => `  ${why}`));
  const rules = listedRules(engine);
  if (rules.length === 0) lines.push("no rules: reads inside the folder run, everything else asks (docs/permissions.md)");
  let n = 0;
  for (const action of RULE_ACTIONS) {
    const group = rules.filter((r) => r.action === action);
    if (group.length === 0) continue;
    lines.push(`${action}:`);
    const width = Math.max(...group.map((r) => r.text.length));
    for (const rule of group) lines.push(`  ${String(++n).padStart(2)}  ${rule.text.padEnd(width)}  ${describeSource(rule.source)}`);
  }
  return `${lines.join("\n")}\n`;
}

/** The rules as JSON values. */
export function rulesJSON(engine: PermissionEngine): { number: number; action: string; rule: string; source: string; file?: string; line?: number }[] {
  return listedRules(engine).map((rule, i) => ({
    number: i + 1,
    action: rule.action,
    rule: rule.text,
    source: rule.source.kind,
    ...(rule.source.kind === "user" || rule.source.kind === "project" ? { file: rule.source.file, line: rule.source.line } : {}),
  }));
}

export type Removal = { ok: true; rule: Rule; from: string } | { ok: false; message: string };

/**
 * Removes rule number `n` of the listing: from its config file (atomically, the other keys kept) when it
 * came from one, and from the engine. A flag's rule holds until the run ends; it cannot be removed.
 */
export async function removeListedRule(engine: PermissionEngine, n: number): Promise<Removal> {
  const rules = listedRules(engine);
  const rule = rules[n - 1];
  if (!Number.isInteger(n) || !rule) return { ok: false, message: `there is no rule number ${n}; the listing has ${rules.length}` };
  const source = rule.source;
  if (source.kind === "flag") return { ok: false, message: `"${rule.text}" comes from ${source.flag} on the command line: it holds until this run ends` };
  if (source.kind === "user" || source.kind === "project") {
    try {
      if (!(await removeSavedRule(source.file, source.kind, rule.action, rule.text))) return { ok: false, message: `"${rule.text}" is no longer in ${source.file}` };
    } catch (error) {
      return { ok: false, message: `cannot change ${source.file}: ${(error as Error).message}` };
    }
  }
  engine.removeRule(rule);
  return { ok: true, rule, from: describeSource(source) };
}
