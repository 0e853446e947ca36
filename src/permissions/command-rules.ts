/**
 * Command rules against a parsed command (shell-commands.ts), for tools with a `command` argument and for the
 * sandbox's `network(…)` rules: a deny or ask rule counts when it may match any form of any simple command
 * (what cannot be resolved may match every rule); allow rules must surely cover every simple command as
 * written, and cover nothing where something is unresolved or a command writes to a file.
 *
 * Rules are found by the first word of the commands they can match (rules.ts, `commandWord`): a command is
 * tested against the rules of its own first word and those whose pattern leaves the first word open, not
 * against every rule.
 */
import type { Rule } from "./rules.js";
import type { CommandPart, ParsedCommand } from "./shell-commands.js";

/** The command rules of one rule list (rules without a pattern are not in it), found by first word. */
export class CommandRules {
  private readonly byWord = new Map<string, Rule[]>();
  private readonly anyWord: Rule[] = [];
  private readonly all: Rule[] = [];
  /** Each rule's place in the list: where several match, the first one listed is the one named. */
  private readonly order = new Map<Rule, number>();

  constructor(rules: readonly Rule[]) {
    for (const rule of rules) {
      if (rule.pattern === undefined || !rule.matchCommand) continue;
      this.order.set(rule, this.all.length);
      this.all.push(rule);
      if (rule.commandWord === undefined) this.anyWord.push(rule);
      else this.byWord.set(rule.commandWord, [...(this.byWord.get(rule.commandWord) ?? []), rule]);
    }
  }

  /** The rules that may match some form of some simple command of `parsed` (what deny and ask rules go by). */
  hitting(parsed: ParsedCommand): Set<Rule> {
    const hit = new Set<Rule>();
    for (const part of parsed.checked) {
      for (const rule of this.candidates(part)) if (!hit.has(rule) && rule.matchCommand!(part)) hit.add(rule);
    }
    return hit;
  }

  /**
   * The allow rule that covers the command when every simple command in it (but those `skip` names) is surely
   * matched by an allow rule; the first listed that covers its first command. Undefined when one is not covered,
   * or something is unresolved, or a command writes to a file.
   */
  covering(parsed: ParsedCommand, skip?: (text: string) => boolean): Rule | undefined {
    if (parsed.unresolved !== undefined) return undefined;
    const commands = parsed.commands.filter((c) => c.open || !skip?.(c.text));
    if (commands.length === 0 || commands.some((c) => c.writes)) return undefined;
    let first: Rule | undefined;
    for (const command of commands) {
      let found: Rule | undefined;
      for (const rule of this.candidates(command)) {
        if (rule.action === "allow" && (found === undefined || this.order.get(rule)! < this.order.get(found)!) && rule.matchCommand!(command, true)) found = rule;
      }
      if (!found) return undefined;
      first ??= found;
    }
    return first;
  }

  /** The rules that can match `part`: by its first word when that is known in full, else all. */
  private candidates(part: Readonly<CommandPart>): readonly Rule[] {
    const end = firstWordEnd(part.text);
    if (end < 0 && part.open) return this.all;
    const own = this.byWord.get(end < 0 ? part.text : part.text.slice(0, end));
    return own ? (this.anyWord.length > 0 ? [...own, ...this.anyWord] : own) : this.anyWord;
  }
}

/** Where a command's first word ends (a blank or `:`, as rules.ts `commandWordOf` reads patterns), or -1. */
function firstWordEnd(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 58) return i;
  }
  return -1;
}

/** Why a deny or ask rule counts, for the user and the model. */
export function commandRuleReason(rule: Rule, parsed: ParsedCommand, verb: "denies" | "asks"): string {
  const plain = parsed.checked.some((part) => !(part.open && part.text === "") && rule.matchCommand!(part));
  if (plain || parsed.unresolved === undefined) return `the rule "${rule.text}" ${verb === "denies" ? "denies it" : "asks"}`;
  return `the rule "${rule.text}" ${verb === "denies" ? "denies" : "asks for"} what it cannot rule out: ${parsed.unresolved}`;
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
