/**
 * Command rules against a parsed command (shell-commands.ts), for tools with a `command` argument and for the
 * sandbox's `network(…)` rules: a deny or ask rule counts when it may match any form of any simple command
 * (what cannot be resolved may match every rule); allow rules must surely cover every simple command as
 * written, and cover nothing where something is unresolved or a command writes to a file.
 */
import type { Rule } from "./rules.js";
import type { ParsedCommand } from "./shell-commands.js";

/** Whether a deny or ask rule with a pattern may match the command. */
export function commandHits(rule: Rule, parsed: ParsedCommand): boolean {
  return parsed.checked.some((part) => rule.matchCommand!(part));
}

/** Why a deny or ask rule counts, for the user and the model. */
export function commandRuleReason(rule: Rule, parsed: ParsedCommand, verb: "denies" | "asks"): string {
  const plain = parsed.checked.some((part) => !(part.open && part.text === "") && rule.matchCommand!(part));
  if (plain || parsed.unresolved === undefined) return `the rule "${rule.text}" ${verb === "denies" ? "denies it" : "asks"}`;
  return `the rule "${rule.text}" ${verb === "denies" ? "denies" : "asks for"} what it cannot rule out: ${parsed.unresolved}`;
}

/**
 * The allow rule that covers the command when every simple command in it (but those `skip` names) is covered
 * by some allow rule with a pattern; undefined when one is not, or something is unresolved.
 */
export function coveringRule(allows: readonly Rule[], parsed: ParsedCommand, skip?: (text: string) => boolean): Rule | undefined {
  if (parsed.unresolved !== undefined) return undefined;
  const commands = parsed.commands.filter((c) => c.open || !skip?.(c.text));
  if (commands.length === 0 || commands.some((c) => c.writes)) return undefined;
  let first: Rule | undefined;
  for (const command of commands) {
    const rule = allows.find((r) => r.pattern !== undefined && r.matchCommand!(command, true));
    if (!rule) return undefined;
    first ??= rule;
  }
  return first;
}

/**
 * The rules "allow for the session / always" add: one per simple command as written, when every one is known
 * in full, writes no file and reads back as itself; otherwise the whole tool (`bash`), which the question shows.
 */
export function offeredCommandRules(tool: string, parsed: ParsedCommand): string[] {
  const whole = parsed.unresolved === undefined && parsed.commands.length > 0 && parsed.commands.every((c) => !c.open && !c.writes && asPattern(c.text));
  return whole ? [...new Set(parsed.commands.map((c) => `${tool}(${c.text})`))] : [tool];
}

/** Whether a command's text, as a pattern, matches exactly it: no `*` (a wildcard there), no run of blanks or newline. */
function asPattern(text: string): boolean {
  return /^\S+(?: \S+)*$/.test(text) && !text.includes("*");
}
