// Command rules found by first word (src/permissions/command-rules.ts) find what testing every rule finds: on
// generated patterns (stars, `:*`, blanks, colons anywhere) against the readings of the shell-rule forms and of
// generated commands, the rules that may match and the allow rule that covers are the same as a test of each rule.
import { beforeAll, describe, expect, it } from "vitest";
import { CommandRules } from "../../src/permissions/command-rules.js";
import { parseRule, type Rule, type RuleAction } from "../../src/permissions/rules.js";
import { parseCommand, type ParsedCommand } from "../../src/permissions/shell-commands.js";
import { loadShellParser } from "../../src/permissions/command-reading.js";
import { prng } from "../support/prng.js";
import { RM_FORMS } from "./shell-forms.js";

beforeAll(async () => {
  await loadShellParser();
});

/** Each rule tested on every form: what the index must agree with. */
function everyRuleHitting(rules: readonly Rule[], parsed: ParsedCommand): Set<Rule> {
  return new Set(rules.filter((r) => r.pattern !== undefined && parsed.checked.some((part) => r.matchCommand!(part))));
}

function everyRuleCovering(rules: readonly Rule[], parsed: ParsedCommand): Rule | undefined {
  if (parsed.unresolved !== undefined || parsed.commands.length === 0 || parsed.commands.some((c) => c.writes)) return undefined;
  const allows = rules.filter((r) => r.action === "allow" && r.pattern !== undefined);
  const found = parsed.commands.map((c) => allows.find((r) => r.matchCommand!(c, true)));
  return found.every((r) => r !== undefined) ? found[0] : undefined;
}

describe("command rules by first word", () => {
  it("find the same rules as testing each rule, on generated patterns and commands", () => {
    const random = prng(31);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
    const words = ["rm", "r", "rm -f", "git", "git push", "git:push", "npm run", "npm run test", "ls", "l", "echo", "echo hi", "bash", "env", "find", "", "x", "-f", "victim", "push --force"];
    const tails = ["", ":*", " *", "*", " * --force", "* victim", ":x", " -f*", "*:*"];
    const commands = [...RM_FORMS, "git push --force origin", "git:push x", "npm run test:unit", "npm run testx", "ls", "lsblk", "ls -la", "echo hi | rm x", "rm", "r m", "$x push", "git $y", "env $Z rm", "echo hi:there", "l", "'' x", " x"];
    const readings = commands.map((command) => parseCommand(command));
    let hits = 0;
    let covered = 0;
    for (let round = 0; round < 300; round++) {
      const rules: Rule[] = [];
      for (let i = 0; i < 1 + Math.floor(random() * 12); i++) {
        const text = `bash(${`${pick(words)}${pick(tails)}`.trim() || "x"})`;
        const action = pick<RuleAction>(["allow", "allow", "ask", "deny"]);
        const parsed = parseRule(text, action, { kind: "session" }, "/ws", "/home");
        if (parsed.ok) rules.push(parsed.rule);
      }
      const index = new CommandRules(rules);
      for (const [i, parsed] of readings.entries()) {
        const want = everyRuleHitting(rules, parsed);
        const got = index.hitting(parsed);
        const cover = everyRuleCovering(rules, parsed);
        if (got.size !== want.size || [...want].some((r) => !got.has(r)) || index.covering(parsed) !== cover) {
          const context = `${JSON.stringify(commands[i])} with ${rules.map((r) => r.text).join(", ")}`;
          expect([...got].map((r) => r.text).sort(), context).toEqual([...want].map((r) => r.text).sort());
          expect(index.covering(parsed)?.text, context).toBe(cover?.text);
        }
        hits += want.size;
        if (cover) covered++;
      }
    }
    // Both answers are exercised, not only the empty ones.
    expect(hits).toBeGreaterThan(1000);
    expect(covered).toBeGreaterThan(50);
  });
});
