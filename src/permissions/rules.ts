/**
 * Permission rules: `tool` or `tool(pattern)` in an `allow`, `ask` or `deny` list (docs/permissions.md).
 *
 * - `bash` (no pattern, or `bash(*)`): every call of the tool.
 * - For a tool with a `command` argument the pattern is a command: `git status` is exactly that command,
 *   `npm run test:*` (or `npm run test *`) that command and anything after it, `*` elsewhere any text.
 * - For a tool with a `path` argument it is a path glob (paths.ts): `edit(src/**)`, `write(~/notes/**)`.
 * - The tool name may hold `*`: `*` is every tool, `github_*` every tool whose name starts so.
 *
 * A rule is compiled once, when the rules are read: a check per call is a few regex tests.
 */
import { compilePathGlob, escapeRegex } from "./paths.js";
import { hostMatches, parseHostPattern } from "./host-rules.js";
import type { CommandPart } from "./shell-commands.js";

export type RuleAction = "allow" | "ask" | "deny";

/** Where a rule comes from, for `awl permissions` and for messages. */
export type RuleSource =
  | { kind: "user" | "project"; file: string; line: number }
  | { kind: "flag"; flag: "--allow" | "--deny" }
  | { kind: "session" };

export interface Rule {
  action: RuleAction;
  /** The rule as written. */
  text: string;
  source: RuleSource;
  tool: string;
  /** Undefined: every call of the tool. */
  pattern?: string;
  /** Internal: compiled matchers. */
  matchTool: (name: string) => boolean;
  matchCommand?: (part: CommandPart, surely?: boolean) => boolean;
  /** The first word (up to a blank or `:`) of every command `matchCommand` may match, when the pattern fixes it. */
  commandWord?: string;
  matchPath?: (path: string) => boolean;
  /** Set when the pattern reads as a host (host-rules.ts): `network(api.github.com)`. */
  matchHost?: (host: string, port: number) => boolean;
  /** Why the pattern is no path glob (e.g. `[` never closed): then it never allows a path, and denies or asks any. */
  pathError?: string;
}

/** A rule, or why it is none (with the tool name when it could be read, so a bad deny still denies that tool). */
export type ParsedRule = { ok: true; rule: Rule } | { ok: false; message: string; tool?: string };

const RULE = /^([A-Za-z0-9_*-]{1,64})(?:\((.*)\))?$/s;

/** Parses one rule; paths in patterns are relative to `workspace`, `~` is `home`. */
export function parseRule(text: string, action: RuleAction, source: RuleSource, workspace: string, home: string): ParsedRule {
  if (typeof text !== "string") return { ok: false, message: `a rule must be a string like "bash(git status)", got ${JSON.stringify(text)}` };
  const trimmed = text.trim();
  const match = RULE.exec(trimmed);
  if (!match) {
    const tool = /^([A-Za-z0-9_*-]{1,64})\(/.exec(trimmed)?.[1];
    const why = trimmed === "" ? "is empty" : trimmed.includes("(") && !trimmed.endsWith(")") ? 'has a "(" that is never closed with ")" at the end' : 'is not "tool" or "tool(pattern)"';
    return { ok: false, message: `the rule ${JSON.stringify(text)} ${why}`, ...(tool && { tool }) };
  }
  const tool = match[1]!;
  const raw = match[2];
  const pattern = raw === undefined || raw.trim() === "*" ? undefined : raw.trim();
  if (raw !== undefined && raw.trim() === "") return { ok: false, message: `the rule ${JSON.stringify(text)} has an empty pattern; write "${tool}" for every call`, tool };
  const rule: Rule = { action, text: trimmed, source, tool, matchTool: compileName(tool) };
  if (pattern === undefined) return { ok: true, rule };
  rule.pattern = pattern;
  try {
    rule.matchPath = compilePathGlob(pattern, workspace, home);
  } catch (error) {
    // A command pattern may hold what no glob would (`test [ -f x`): that only matters for a path argument.
    rule.pathError = `the pattern of rule ${JSON.stringify(text)} is not a valid path glob: ${(error as Error).message}`;
  }
  rule.matchCommand = compileCommand(pattern);
  const word = commandWordOf(pattern);
  if (word !== undefined) rule.commandWord = word;
  const host = parseHostPattern(pattern);
  if (host) rule.matchHost = (name, port) => hostMatches(host, name, port);
  return { ok: true, rule };
}

function compileName(name: string): (tool: string) => boolean {
  if (name === "*") return () => true;
  if (!name.includes("*")) return (tool) => tool === name;
  const regex = new RegExp(`^${name.split("*").map(escapeRegex).join(".*")}$`);
  return (tool) => regex.test(tool);
}

/**
 * A command pattern as a matcher of one simple command (words joined by single spaces, shell-commands.ts).
 * `X:*` and `X *` at the end: `X` alone or followed by a space or `:`; any other `*`: any text.
 *
 * For an open part (its known beginning, then text known only when it runs) the matcher answers whether the
 * pattern *may* match (some text could follow that matches: what deny and ask rules go by), or with `surely`
 * whether it matches whatever follows (what an allow rule needs: only a prefix rule whose words are all known,
 * `ls:*` for `ls $dir`).
 */
export function compileCommand(pattern: string): (part: CommandPart, surely?: boolean) => boolean {
  const { normal, prefix, head } = commandHead(pattern);
  const exact = exactMatcher(normal, prefix ? head : undefined);
  const lead = head.split("*")[0]!;
  const literal = !head.includes("*");
  const trailingStar = !prefix && normal.indexOf("*") === normal.length - 1;
  return (part, surely = false) => {
    if (!part.open) return exact(part.text);
    const known = part.text;
    const afterHead = known.startsWith(`${head} `) || known.startsWith(`${head}:`);
    if (surely) return (prefix && literal && afterHead) || (trailingStar && known.startsWith(lead));
    if (!literal) return lead.startsWith(known) || known.startsWith(lead);
    return prefix ? head.startsWith(known) || afterHead : normal.startsWith(known);
  };
}

/** A command pattern with its blanks made single spaces; `prefix`: it ends in `:*` or ` *`; `head`: the part before that. */
function commandHead(pattern: string): { normal: string; prefix: boolean; head: string } {
  const normal = pattern.replace(/\s+/g, " ");
  const prefix = /^(.*?)(?::\*| \*)$/s.exec(normal);
  return { normal, prefix: prefix !== null, head: prefix ? prefix[1]! : normal };
}

/**
 * The first word of every command a pattern may match (command-rules.ts finds rules by it): whatever a match
 * starts with is the text before the pattern's first `*`, so that text's first word when a blank or `:` ends it
 * there, or all of it when the pattern has no `*` before its end. Undefined when the pattern leaves it open (`ls*`).
 */
export function commandWordOf(pattern: string): string | undefined {
  const { head } = commandHead(pattern);
  const star = head.indexOf("*");
  const lead = star < 0 ? head : head.slice(0, star);
  const end = lead.search(/[ :]/);
  if (end >= 0) return end > 0 ? lead.slice(0, end) : undefined;
  return star < 0 && lead !== "" ? lead : undefined;
}

/** The matcher of a whole command's text; `head` set for a prefix pattern (`X:*`). */
function exactMatcher(normal: string, head: string | undefined): (text: string) => boolean {
  if (head !== undefined) {
    if (!head.includes("*")) return (text) => text === head || (text.startsWith(head) && (text[head.length] === " " || text[head.length] === ":"));
    const regex = new RegExp(`^${head.split("*").map(escapeRegex).join(".*")}(?:[ :].*)?$`, "s");
    return (text) => regex.test(text);
  }
  if (!normal.includes("*")) return (text) => text === normal;
  const regex = new RegExp(`^${normal.split("*").map(escapeRegex).join(".*")}$`, "s");
  return (text) => regex.test(text);
}

/** How a rule's source reads in a list or a message: `~/.config/awl/config.json:12`, `--allow`, `this session`. */
export function describeSource(source: RuleSource): string {
  switch (source.kind) {
    case "user":
    case "project":
      return `${source.file}:${source.line}`;
    case "flag":
      return source.flag;
    case "session":
      return "this session";
  }
}
