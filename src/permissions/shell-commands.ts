/**
 * What a shell command runs, read with a real bash parser (shell-parser.ts) for matching command rules
 * (docs/permissions.md, "How commands are read"): every simple command at every depth — lists, pipelines,
 * loops, conditionals, functions, subshells, groups, command and process substitutions, here-documents,
 * redirections — each as its words (quotes removed, escapes decoded, shell-words.ts), and the commands that
 * wrappers run (shell-wrappers.ts: `env rm x`, `bash -c 'rm x'`, `xargs rm`, `find -exec rm {} ;`).
 *
 * What cannot be known before the command runs is kept as such: a word with an expansion is *open* (its known
 * beginning, then anything), and what cannot be resolved at all (a parse error, `eval "$x"`, a shell reading
 * its script from stdin, arithmetic that can run commands) adds the command "anything" and says why.
 */
import { compoundCommands } from "./shell-compound.js";
import { parseShell, shellParserSettled, type ShellNode } from "./shell-parser.js";
import { plainCommands } from "./shell-plain.js";
import { redirectWrites } from "./shell-redirects.js";
import { groupWords, wordOf, type Word } from "./shell-words.js";
import { assignedCommands, commandName, innerCommands, type Inner } from "./shell-wrappers.js";

/** One simple command as text (its words joined by single spaces); `open`: followed by text known only when it runs. */
export interface CommandPart {
  text: string;
  open: boolean;
}

/** A simple command as written; `writes`: its output goes to a file (`> file`), which no command pattern allows. */
export interface ShellCommand extends CommandPart {
  writes: boolean;
}

export interface ParsedCommand {
  /** Each simple command as written, assignments included: what allow rules must cover and the rules offered name. */
  readonly commands: readonly Readonly<ShellCommand>[];
  /**
   * Every form deny and ask rules check: the commands as written, without their `NAME=value` prefixes, with a
   * path's last part as the name (`/bin/rm` is also `rm`), and the commands wrappers and nested scripts run.
   */
  readonly checked: readonly Readonly<CommandPart>[];
  /** Why part of it cannot be resolved before it runs; `checked` then holds "anything" (`""`, open). */
  readonly unresolved?: string;
}

/** Anything at all: what an unresolved piece may run. */
const ANYTHING: CommandPart = { text: "", open: true };
/** Scripts inside scripts (`bash -c "eval '…'"`), and wrappers inside wrappers (`env nice …`), read at most this deep. */
const MAX_NESTING = 8;
/** Bash's reserved words but `time` and `coproc` (which the grammar reads as commands, and shell-wrappers.ts sees through). */
const RESERVED = new Set(["if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do", "done", "in", "function", "{", "}", "!", "[[", "]]"]);
/** Builtins that set the variables named by their arguments. */
const NAME_SETTERS = new Set(["read", "mapfile", "readarray", "printf", "getopts", "declare", "typeset", "local", "export", "readonly", "let", "unset", "wait"]);
/** Where a lone `variable_assignment` is a statement of its own (`a=1; …`), not part of a command. */
const ASSIGNMENT_OWNERS = new Set(["command", "declaration_command", "variable_assignments", "c_style_for_statement"]);
/** `[[ … ]]` operators that evaluate their operands as arithmetic. */
const ARITHMETIC_TESTS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-v"]);

/** Readings kept (bounded): the same command is checked several times per call (hooks, the check, a question, the sandbox). */
const cache = new Map<string, ParsedCommand>();
const CACHE_ENTRIES = 64;
/** Longer commands are read every time: the cache holds at most CACHE_ENTRIES × this many characters. */
const CACHE_TEXT = 16_384;

/**
 * Reads `command` (the parser must be loaded, command-reading.ts; else what neither shortcut reads is unresolved).
 * The reading is shared (frozen): a later check of the same text gets the same object. `parser: true` reads it
 * with the parser alone, without the shortcuts (what the tests compare theirs with); `plain: false` skips the
 * plain shortcut (so the compound one reads plain commands too); both uncached.
 */
export function parseCommand(command: string, options: { parser?: boolean; plain?: boolean } = {}): ParsedCommand {
  if (options.parser) return read(command, { plain: false, compound: false });
  if (options.plain === false) return readFast(command, false);
  const kept = cache.get(command);
  if (kept) {
    cache.delete(command);
    cache.set(command, kept);
    return kept;
  }
  const parsed = readFast(command);
  // A reading made before the parser loaded is not kept: it would stay unresolved.
  if (command.length <= CACHE_TEXT && shellParserSettled()) {
    cache.set(command, freeze(parsed));
    if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
  }
  return parsed;
}

/** Which readers without the parser are tried first (shell-plain.ts, shell-compound.ts). */
interface Shortcuts {
  plain: boolean;
  compound: boolean;
}

function read(command: string, shortcuts: Shortcuts): ParsedCommand {
  const reader = new CommandReader(shortcuts);
  reader.script(command, 0, false);
  return reader.finish();
}

/**
 * Reads `command` with the shortcuts. Arithmetic makes the reading depend on the variables the command sets,
 * which only the parser's walk tracks: a reading with arithmetic that took the compound shortcut is made again
 * without it.
 */
function readFast(command: string, plain = true): ParsedCommand {
  const reader = new CommandReader({ plain, compound: true });
  reader.script(command, 0, false);
  if (reader.readCompound && reader.hasArithmetic) return read(command, { plain, compound: false });
  return reader.finish();
}

/** A kept reading is shared: its lists cannot change (its parts are typed read-only). */
function freeze(parsed: ParsedCommand): ParsedCommand {
  Object.freeze(parsed.commands);
  Object.freeze(parsed.checked);
  return Object.freeze(parsed);
}

/** An arithmetic expression found: the variables it reads, and whether it can run commands whatever they hold. */
interface Arithmetic {
  names: Set<string>;
  hazard: boolean;
}

class CommandReader {
  private readonly commands: ShellCommand[] = [];
  private readonly checked: CommandPart[] = [];
  private unresolved: string | undefined;
  /** Variables the command sets to something but an integer: bash evaluates their value in arithmetic. */
  private readonly tainted = new Set<string>();
  /** Some variable is set in a way not seen (`read "$name"`, `source file`). */
  private taintedAll = false;
  private readonly arithmetic: Arithmetic[] = [];

  /** Some script was read by the compound shortcut (shell-compound.ts). */
  readCompound = false;

  constructor(private readonly shortcuts: Shortcuts) {}

  /** Arithmetic was found (its reading depends on what the command sets, which only the parser's walk follows). */
  get hasArithmetic(): boolean {
    return this.arithmetic.length > 0;
  }

  finish(): ParsedCommand {
    for (const a of this.arithmetic) {
      if (a.hazard || (a.names.size > 0 && (this.taintedAll || [...a.names].some((n) => this.tainted.has(n))))) {
        this.unresolve("it has arithmetic that reads a value set in the command or a quoted text with [ ], and bash runs a $(…) found in an array index there");
        break;
      }
    }
    return this.unresolved === undefined ? { commands: this.commands, checked: this.checked } : { commands: this.commands, checked: this.checked, unresolved: this.unresolved };
  }

  private unresolve(reason: string): void {
    this.unresolved ??= reason;
    this.checked.push(ANYTHING);
  }

  /** Reads one script; `inner`: it runs inside another command (`bash -c`), so only deny and ask rules see it. */
  script(source: string, depth: number, inner: boolean): void {
    if (depth > MAX_NESTING) return this.unresolve(`it nests scripts in scripts more than ${MAX_NESTING} deep`);
    // A plain command (words, quotes, `&&`, `|`, `;`) is read without the parser, as the parser would read it.
    const plain = this.shortcuts.plain ? plainCommands(source) : undefined;
    if (plain) {
      for (const words of plain) this.words([], words, false, depth, inner);
      return;
    }
    // The compound forms models write most (loops, conditionals, substitutions, redirections), likewise.
    const compound = this.shortcuts.compound ? compoundCommands(source) : undefined;
    if (compound) {
      this.readCompound = true;
      for (const step of compound) {
        if (step.kind === "command") this.words(step.assignments, step.words, step.writes, depth, inner);
        else this.assignments(step.words, step.writes, depth, inner);
      }
      return;
    }
    const parsed = parseShell(source);
    if (!parsed.ok) return this.unresolve(parsed.reason);
    this.walk(parsed.root, source, depth, inner);
  }

  private walk(root: ShellNode, source: string, depth: number, inner: boolean): void {
    const stack: { node: ShellNode; writes: boolean }[] = [{ node: root, writes: false }];
    while (stack.length > 0) {
      const { node, writes: outerWrites } = stack.pop()!;
      let writes = outerWrites;
      if (node.type === "ERROR" || node.isMissing) {
        const before = source.slice(0, node.startIndex).split("\n");
        this.unresolve(`the shell parser cannot read it (line ${before.length}, column ${before.at(-1)!.length + 1})`);
      }
      // `echo > f x`: the grammar reads x as a second target, bash as the command's argument.
      if (node.type === "file_redirect" && (redirectTargets(node, source)?.length ?? 2) > 1) {
        this.unresolve("it has a word after a redirection's target, which the shell parser reads as a second target");
      }
      switch (node.type) {
        case "command":
          this.simpleCommand(node, source, writes || node.children.some((c) => redirectionWrites(c, source)), depth, inner);
          break;
        case "declaration_command":
        case "unset_command":
          this.builtin(node, source, writes, inner);
          break;
        case "variable_assignments":
          this.assignments(node.children.filter((c) => c.isNamed).map((a) => assignmentWord(a, source)), writes, depth, inner);
          break;
        case "variable_assignment":
          this.taintAssignment(node, source);
          if (!ASSIGNMENT_OWNERS.has(node.parent?.type ?? "")) this.assignments([assignmentWord(node, source)], writes, depth, inner);
          break;
        case "redirected_statement":
          writes ||= node.children.some((c) => redirectionWrites(c, source));
          break;
        case "command_substitution": {
          // Inside backticks bash first turns \` \$ \\ into ` $ \ and then parses the text: `echo \`rm x\``.
          const body = source.slice(node.startIndex + 1, node.endIndex - 1);
          if (node.children[0]?.type === "`" && body.includes("\\")) this.script(body.replace(/\\([$`\\])/g, "$1"), depth + 1, inner);
          break;
        }
        case "for_statement":
          this.taintLoop(node, source);
          break;
        case "arithmetic_expansion":
        case "c_style_for_statement":
          this.readArithmetic(node, source);
          break;
        case "compound_statement":
          if (node.children[0]?.type === "((") this.readArithmetic(node, source);
          break;
        case "test_command":
          if (node.children[0]?.type === "[[" && hasDescendant(node, (n) => n.type === "test_operator" && ARITHMETIC_TESTS.has(source.slice(n.startIndex, n.endIndex)))) this.readArithmetic(node, source);
          break;
        case "subscript": {
          const index = fieldOf(node, "index");
          if (index) this.readArithmetic(index, source);
          break;
        }
      }
      const children = node.children;
      for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i]!, writes });
    }
  }

  /** A statement of assignments alone (`a=1`, `a=1 b=2`). */
  private assignments(words: Word[], writes: boolean, depth: number, inner: boolean): void {
    this.statement(words, writes, inner);
    // `GIT_SSH_COMMAND=...; export GIT_SSH_COMMAND`: what it names may run later in the command.
    this.follow(assignedCommands(words), depth, 0);
  }

  /** A simple command: its words as written, then what deny and ask rules also see in it. */
  private simpleCommand(node: ShellNode, source: string, writes: boolean, depth: number, inner: boolean): void {
    const assignments: Word[] = [];
    const pieces: ShellNode[] = [];
    for (const child of node.children) {
      if (child.type === "variable_assignment") assignments.push(assignmentWord(child, source));
      else if (child.type === "command_name") pieces.push(...child.children);
      else if (!isRedirect(child) && child.type !== "comment") pieces.push(child);
    }
    const groups = groupWords(pieces, source);
    if (!groups) return this.unresolve("the shell parser read its words in a way awl cannot check");
    // `a=1 b=2⏎ls`: the grammar reads the next line's command as the assignments' own; bash runs the two apart.
    const at = node.children.findIndex((c) => c.type === "command_name");
    if (at > 0 && source.slice(node.children[at - 1]!.endIndex, node.children[at]!.startIndex).replace(/\\\n/g, "").includes("\n")) {
      this.unresolve("the shell parser read two lines as one command");
    }
    this.words(assignments, groups.map((group) => wordOf(group, source)), writes, depth, inner);
  }

  /** A simple command's `NAME=value` prefixes and words: recorded, then what it runs besides itself. */
  private words(assignments: Word[], words: Word[], writes: boolean, depth: number, inner: boolean): void {
    // The grammar differs from bash in corners (`! while …` reads as a command named `while`): a reserved word
    // as a command's name means the parser read it otherwise than bash will.
    if (words[0] && !words[0].open && RESERVED.has(words[0].text)) this.unresolve(`the shell parser read "${words[0].text}" as a command, which bash would not`);
    this.statement([...assignments, ...words], writes, inner);
    this.seeThrough(words, depth, assignments.length > 0);
    this.follow(assignedCommands(assignments), depth, 0);
  }

  /** A command's other forms for deny and ask rules, and the commands it runs. */
  private seeThrough(words: Word[], depth: number, prefixed: boolean, level = 0): void {
    const name = words[0];
    if (!name) return;
    if (level > MAX_NESTING) return this.unresolve(`it nests wrappers in wrappers more than ${MAX_NESTING} deep`);
    if (prefixed) this.checked.push(partOf(words));
    if (name.open) return this.unresolve("the name of a command it runs is known only when it runs");
    const base = commandName(name.text);
    const named = base === name.text ? words : [{ text: base, open: false }, ...words.slice(1)];
    if (named !== words) this.checked.push(partOf(named));
    this.taintNames(base, words.slice(1));
    this.follow(innerCommands(named), depth, level);
  }

  /** What a command runs besides itself: commands seen through, scripts read, the rest unresolved. */
  private follow(inners: readonly Inner[], depth: number, level: number): void {
    for (const inner of inners) {
      if (inner.kind === "command") {
        this.checked.push(partOf(inner.words));
        this.seeThrough(inner.words, depth, false, level + 1);
      } else if (inner.kind === "script") {
        this.script(inner.source, depth + 1, true);
      } else {
        this.unresolve(inner.reason);
      }
    }
  }

  /** `declare`, `export`, `local`, `readonly`, `typeset`, `unset`: a command of their own words. */
  private builtin(node: ShellNode, source: string, writes: boolean, inner: boolean): void {
    const words: Word[] = [];
    const pieces: ShellNode[] = [];
    for (const child of node.children) {
      if (!child.isNamed && words.length === 0 && pieces.length === 0) words.push({ text: child.type, open: false });
      else if (child.type === "variable_assignment") words.push(assignmentWord(child, source));
      else if (!isRedirect(child) && child.type !== "comment") pieces.push(child);
    }
    for (const group of groupWords(pieces, source) ?? []) words.push(wordOf(group, source));
    this.statement(words, writes, inner);
    this.taintNames(words[0]?.text ?? "", words.slice(1));
    // `export GIT_SSH_COMMAND=...` makes the commands after it run that.
    this.follow(assignedCommands(words.slice(1)), 0, 0);
  }

  /** Records one simple command. */
  private statement(words: Word[], writes: boolean, inner: boolean): void {
    if (words.length === 0) return;
    const part = partOf(words);
    if (!inner) this.commands.push({ text: part.text, open: part.open, writes });
    this.checked.push(part);
  }

  /** Variables a builtin sets (`read x`, `printf -v x`), and arithmetic it does (`let`, `declare -i`). */
  private taintNames(command: string, args: readonly Word[]): void {
    if (command === "source" || command === ".") this.taintedAll = true;
    if (!NAME_SETTERS.has(command)) return;
    for (const variable of ["REPLY", "MAPFILE", "OPTARG"]) this.tainted.add(variable);
    // printf sets only the variable after -v; the others may name one in any argument (`name=value` for declare).
    const at = args.findIndex((a) => a.text.startsWith("-v"));
    const named = command !== "printf" ? args : at < 0 ? [] : args[at]!.text.length > 2 ? [{ ...args[at]!, text: args[at]!.text.slice(2) }] : args.slice(at + 1, at + 2);
    const intOrRef = /^(?:declare|typeset|local|export|readonly)$/.test(command) && args.some((a) => /^[-+][a-zA-Z]*[in]/.test(a.text));
    const hazard = intOrRef || named.some((a) => a.text.split("=")[0]!.includes("[") || (command === "let" && a.open));
    const names = new Set<string>();
    for (const arg of named) {
      if (arg.open) this.taintedAll = true;
      for (const id of arg.text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []) {
        if (command === "let") names.add(id);
        else this.tainted.add(id);
      }
    }
    if (hazard || command === "let") this.arithmetic.push({ names, hazard });
  }

  private taintAssignment(node: ShellNode, source: string): void {
    const name = fieldOf(node, "name");
    const value = fieldOf(node, "value");
    if (!name) return;
    const id = source.slice(name.startIndex, name.endIndex).replace(/\[.*$/s, "");
    if (!value || !/^-?[0-9]+$/.test(source.slice(value.startIndex, value.endIndex))) this.tainted.add(id);
  }

  private taintLoop(node: ShellNode, source: string): void {
    const variable = fieldOf(node, "variable");
    if (!variable) return;
    const values = node.children.filter((c) => c.field === "value");
    if (values.length === 0 || values.some((v) => v.type !== "number")) this.tainted.add(source.slice(variable.startIndex, variable.endIndex));
  }

  /** An arithmetic expression: the variables it reads; quoted text with `[`, a substitution or `$1` can run commands. */
  private readArithmetic(node: ShellNode, source: string): void {
    const found: Arithmetic = { names: new Set(), hazard: false };
    const stack = [...node.children];
    while (stack.length > 0) {
      const n = stack.pop()!;
      const text = source.slice(n.startIndex, n.endIndex);
      switch (n.type) {
        case "raw_string":
        case "ansi_c_string":
          if (text.includes("[") || text.includes("\\")) found.hazard = true;
          continue;
        case "string":
        case "translated_string":
          if (text.includes("[")) found.hazard = true;
          break;
        case "do_group":
        case "compound_statement":
          // A `for ((…))` loop's body: its commands are read as commands.
          if (n.parent?.type === "c_style_for_statement") continue;
          break;
        case "command_substitution":
        case "process_substitution":
          found.hazard = true;
          continue;
        case "special_variable_name":
          if (!/^[#?$!]$/.test(text)) found.hazard = true;
          continue;
        case "variable_name":
        case "word":
          if (/^[0-9]+$/.test(text)) found.hazard ||= n.parent?.type === "simple_expansion" || n.parent?.type === "expansion";
          else for (const id of text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []) found.names.add(id);
          continue;
      }
      stack.push(...n.children);
    }
    this.arithmetic.push(found);
  }
}

/** Words joined: the text up to the first unknown piece, and whether one comes. */
function partOf(words: readonly Word[]): CommandPart {
  let text = "";
  for (let i = 0; i < words.length; i++) {
    text += (i > 0 ? " " : "") + words[i]!.text;
    if (words[i]!.open) return { text, open: true };
  }
  return { text, open: false };
}

/** `NAME=value` (or `NAME+=value`, `NAME[i]=value`) as one word. */
function assignmentWord(node: ShellNode, source: string): Word {
  const value = fieldOf(node, "value");
  if (!value) return { text: source.slice(node.startIndex, node.endIndex), open: false };
  const head = source.slice(node.startIndex, value.startIndex);
  const word = value.type === "array" ? { text: "", open: true } : wordOf([value], source);
  return { text: head + word.text, open: word.open || head.includes("[") };
}

function isRedirect(node: ShellNode): boolean {
  return node.type === "file_redirect" || node.type === "heredoc_redirect" || node.type === "herestring_redirect";
}

/** Whether a redirection writes to a file: `> f`, `>> f`, `&> f`, `<> f`, `>&f` (not `/dev/null`, not `2>&1`). */
/**
 * Whether a redirection node writes to a file; a here-document's node holds the redirections written after it on
 * its line (`cat <<'EOF' > f`).
 */
function redirectionWrites(node: ShellNode, source: string): boolean {
  return fileRedirectWrites(node, source) || (node.type === "heredoc_redirect" && node.children.some((c) => fileRedirectWrites(c, source)));
}

function fileRedirectWrites(node: ShellNode, source: string): boolean {
  if (node.type !== "file_redirect") return false;
  const op = node.children.find((c) => !c.isNamed)?.type ?? "";
  const target = redirectTargets(node, source)?.[0];
  return redirectWrites(op, target ? wordOf(target, source) : { text: "", open: true });
}

/** A redirection's target pieces grouped into words (`>/dev/null$x` is one word of two pieces); bash takes one. */
function redirectTargets(node: ShellNode, source: string): ShellNode[][] | undefined {
  return groupWords(node.children.filter((c) => c.field === "destination"), source);
}

function fieldOf(node: ShellNode, field: string): ShellNode | undefined {
  return node.children.find((c) => c.field === field);
}

function hasDescendant(node: ShellNode, test: (n: ShellNode) => boolean): boolean {
  const stack = [...node.children];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (test(n)) return true;
    stack.push(...n.children);
  }
  return false;
}
