/**
 * Compound commands read without the parser (shell-commands.ts): the forms models write most — `for … in …; do
 * …; done`, `while`/`until`, `if/elif/else/fi`, `{ …; }`, `( … )`, `!`, `[ … ]`, `$(…)` at any depth, `$x`,
 * `${x}` and `"$x"`, redirections after a command (`>`, `>>`, `<`, `2>&1`, `&>`), globs, a quoted here-document
 * at the top level — read in one pass over the text into the steps the parser's reading is made of, in the order
 * its walk of the syntax tree meets them.
 *
 * It is a shortcut, never a second opinion: whatever it is not certain the parser reads the same way returns
 * undefined and the parser reads the command — `case`, functions, arithmetic, backticks, `$'…'`, `${x…}` forms,
 * process substitution, comments, line continuations, `&`, `|&`, here-strings, unquoted here-documents, a
 * redirection before a command's name or a word after one, declarations, `time`, `[[ … ]]`, a control or
 * non-ASCII character outside quotes. On everything it accepts its reading equals the parser's
 * (test/permissions/shell-compound.test.ts compares them on every shell-rule case and on generated commands).
 */
import { redirectWrites } from "./shell-redirects.js";
import type { Word } from "./shell-words.js";

/** What the parser's walk records, in its order: a simple command, or a statement of assignments alone. */
export type CompoundStep =
  | { kind: "command"; assignments: Word[]; words: Word[]; writes: boolean }
  | { kind: "assignments"; words: Word[]; writes: boolean };

/** Thrown (one instance) when the reader is not certain: the parser reads the command. */
class Unsure extends Error {}
const UNSURE = new Unsure("not read without the parser");

/** Words that start a command the parser reads as more than a simple command, or that bash reserves. */
const KEYWORDS = new Set(["if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do", "done", "in", "function", "time", "coproc", "declare", "typeset", "local", "export", "readonly", "unset", "unsetenv", "[[", "]]", "!", "{", "}"]);
/** `[ … ]` operators between two operands. */
const TEST_BINARY = new Set(["=", "==", "!=", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef"]);
/** Substitutions inside substitutions (and compound commands inside those) read at most this deep. */
const MAX_NEST = 48;

const TAB = 9;
const NEWLINE = 10;
const SPACE = 32;
const BANG = 33;
const DOUBLE = 34;
const HASH = 35;
const DOLLAR = 36;
const AMPERSAND = 38;
const SINGLE = 39;
const OPEN_PAREN = 40;
const CLOSE_PAREN = 41;
const STAR = 42;
const SEMICOLON = 59;
const LESS = 60;
const GREATER = 62;
const QUESTION = 63;
const OPEN_BRACKET = 91;
const BACKSLASH = 92;
const CLOSE_BRACKET = 93;
const BACKTICK = 96;
const OPEN_BRACE = 123;
const PIPE = 124;
const CLOSE_BRACE = 125;

/** Where a word ends: blanks and operators. */
const ENDS_WORD = new Uint8Array(128);
for (const c of [TAB, NEWLINE, SPACE, SEMICOLON, PIPE, AMPERSAND, LESS, GREATER, OPEN_PAREN, CLOSE_PAREN]) ENDS_WORD[c] = 1;
/** Name characters (`\w`). */
const NAME = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") NAME[c.charCodeAt(0)] = 1;

/**
 * What a redirection that writes marks as writing: the command it follows with everything inside it, and (as the
 * parser nests them) every command before it in its `&&`/`||`/`|` list.
 */
interface Scope {
  writes: boolean;
  parent: Scope | undefined;
}

type Pending = { kind: "command"; assignments: Word[]; words: Word[]; scope: Scope } | { kind: "assignments"; words: Word[]; scope: Scope };

/** The steps of `source`, or undefined when the parser must read it. */
export function compoundCommands(source: string): CompoundStep[] | undefined {
  const reader = new Reader(source);
  try {
    reader.list(reader.root, []);
  } catch (error) {
    if (error === UNSURE) return undefined;
    throw error;
  }
  return reader.steps.map((step) => {
    let writes = false;
    for (let scope: Scope | undefined = step.scope; scope && !writes; scope = scope.parent) writes = scope.writes;
    return step.kind === "command" ? { kind: "command", assignments: step.assignments, words: step.words, writes } : { kind: "assignments", words: step.words, writes };
  });
}

class Reader {
  readonly root: Scope = { writes: false, parent: undefined };
  readonly steps: Pending[] = [];
  private i = 0;
  private readonly end: number;
  /** Inside a compound command or substitution (here-documents are read only outside). */
  private nest = 0;
  /** A here-document whose body starts at the next newline, and the command it belongs to. */
  private heredoc: { delimiter: string; scope: Scope } | undefined;

  constructor(private readonly src: string) {
    this.end = src.length;
  }

  private code(at = this.i): number {
    return at < this.end ? this.src.charCodeAt(at) : -1;
  }

  /**
   * Statements up to one of `closers` (a keyword at a command's start, or ")"), which it consumes and returns; at
   * the top level (no closers) up to the end. At least one statement.
   */
  list(scope: Scope, closers: readonly string[]): string {
    let count = 0;
    for (;;) {
      this.gap();
      if (this.i >= this.end) {
        if (closers.length > 0 || count === 0 || this.heredoc) throw UNSURE;
        return "";
      }
      if (closers.length > 0) {
        const closer = this.code() === CLOSE_PAREN ? ")" : this.keyword();
        if (closers.includes(closer)) {
          if (count === 0) throw UNSURE;
          this.i += closer.length;
          return closer;
        }
      }
      this.andOr(scope);
      count++;
      this.blanks();
      const c = this.code();
      if (c === SEMICOLON) {
        if (this.heredoc || this.code(this.i + 1) === SEMICOLON) throw UNSURE;
        this.i++;
      } else if (c !== NEWLINE && c !== CLOSE_PAREN && c !== -1) {
        throw UNSURE;
      }
    }
  }

  private blanks(): void {
    for (let c = this.code(); c === SPACE || c === TAB; c = this.code()) this.i++;
  }

  /** Blanks and newlines; a newline starts the body of a pending here-document (outside any nesting). */
  private gap(): void {
    for (;;) {
      const c = this.code();
      if (c === SPACE || c === TAB) {
        this.i++;
      } else if (c === NEWLINE) {
        if (this.heredoc) {
          if (this.nest > 0) throw UNSURE;
          this.heredocBody(this.heredoc.delimiter);
          this.heredoc = undefined;
        } else {
          this.i++;
        }
      } else {
        return;
      }
    }
  }

  /** The reserved word at the cursor (followed by a blank or an operator), or "". */
  private keyword(): string {
    let j = this.i;
    while (j < this.end) {
      const c = this.src.charCodeAt(j);
      if ((c >= 97 && c <= 122) || c === OPEN_BRACE || c === CLOSE_BRACE || c === BANG || c === OPEN_BRACKET || c === CLOSE_BRACKET) j++;
      else break;
    }
    if (j === this.i) return "";
    const after = this.code(j);
    if (after !== -1 && (after >= 128 || ENDS_WORD[after] !== 1)) return "";
    const word = this.src.slice(this.i, j);
    return KEYWORDS.has(word) ? word : "";
  }

  private andOr(outer: Scope): void {
    // The parser reads `a && b > f` as (a && b) > f: each command's scope leads to the next one's, then outward.
    let last: Scope | undefined;
    const link = (): Scope => {
      // The commands after a here-document's start, on its line, are inside its command (as the parser nests them).
      if (this.heredoc && this.nest === 0) return { writes: false, parent: this.heredoc.scope };
      const scope: Scope = { writes: false, parent: outer };
      if (last) last.parent = scope;
      last = scope;
      return scope;
    };
    this.pipeline(link);
    for (;;) {
      this.blanks();
      const c = this.code();
      if (!((c === AMPERSAND || c === PIPE) && this.code(this.i + 1) === c)) return;
      this.i += 2;
      this.newlines();
      this.pipeline(link);
    }
  }

  /** Blanks and newlines after `&&`, `||`, `|` (a pending here-document's body cannot start there). */
  private newlines(): void {
    for (let c = this.code(); c === SPACE || c === TAB || c === NEWLINE; c = this.code()) {
      if (c === NEWLINE && this.heredoc) throw UNSURE;
      this.i++;
    }
  }

  private pipeline(link: () => Scope): void {
    this.blanks();
    let simpleOnly = false;
    if (this.code() === BANG) {
      const next = this.code(this.i + 1);
      if (next !== SPACE && next !== TAB) throw UNSURE;
      this.i++;
      this.blanks();
      simpleOnly = true;
    }
    this.command(link(), simpleOnly);
    for (;;) {
      this.blanks();
      if (this.code() !== PIPE) return;
      const next = this.code(this.i + 1);
      if (next === PIPE) return;
      if (next === AMPERSAND) throw UNSURE;
      this.i++;
      this.newlines();
      this.command(link(), false);
    }
  }

  /** A simple or compound command, its redirections writing in `scope`. */
  private command(scope: Scope, simpleOnly: boolean): void {
    this.blanks();
    const c = this.code();
    if (c === OPEN_PAREN || c === OPEN_BRACE || c === OPEN_BRACKET) {
      const next = this.code(this.i + 1);
      if (simpleOnly || next === c || (c !== OPEN_PAREN && next !== SPACE && next !== TAB && next !== NEWLINE)) throw UNSURE;
      this.i++;
      if (c === OPEN_BRACKET) return this.test(scope);
      this.nested(() => this.list(scope, [c === OPEN_PAREN ? ")" : "}"]));
      return this.redirects(scope);
    }
    const keyword = this.keyword();
    if (keyword === "") return this.simple(scope, simpleOnly);
    if (simpleOnly || !["for", "while", "until", "if"].includes(keyword)) throw UNSURE;
    this.i += keyword.length;
    this.nested(() => {
      if (keyword === "for") this.forLoop(scope);
      else if (keyword === "if") this.ifStatement(scope);
      else {
        this.list(scope, ["do"]);
        this.list(scope, ["done"]);
      }
    });
    this.redirects(scope);
  }

  private nested(read: () => void): void {
    if (++this.nest > MAX_NEST) throw UNSURE;
    read();
    this.nest--;
  }

  /** `for NAME in WORDS; do LIST; done` (after `for`). */
  private forLoop(scope: Scope): void {
    this.blanks();
    const start = this.i;
    while (this.i < this.end && NAME[this.code()] === 1) this.i++;
    const next = this.code();
    if (this.i === start || (next !== SPACE && next !== TAB) || /^[0-9]/.test(this.src[start]!)) throw UNSURE;
    this.blanks();
    if (this.keyword() !== "in") throw UNSURE;
    this.i += 2;
    let values = 0;
    for (;;) {
      this.blanks();
      const c = this.code();
      if (c === SEMICOLON || c === NEWLINE) break;
      if (c === -1 || c >= 128 || ENDS_WORD[c] === 1) throw UNSURE;
      this.word(scope);
      values++;
    }
    if (values === 0) throw UNSURE;
    this.i++;
    this.gap();
    if (this.keyword() !== "do") throw UNSURE;
    this.i += 2;
    this.list(scope, ["done"]);
  }

  /** `if LIST; then LIST; [elif LIST; then LIST;]… [else LIST;] fi` (after `if`). */
  private ifStatement(scope: Scope): void {
    for (;;) {
      this.list(scope, ["then"]);
      const closer = this.list(scope, ["elif", "else", "fi"]);
      if (closer === "fi") return;
      if (closer === "else") {
        this.list(scope, ["fi"]);
        return;
      }
    }
  }

  /** `[ … ]` (after `[`): no command of its own; the shapes the parser reads as a test. */
  private test(scope: Scope): void {
    const raws: string[] = [];
    for (;;) {
      this.blanks();
      const c = this.code();
      if (c === -1 || c >= 128 || ENDS_WORD[c] === 1) throw UNSURE;
      const start = this.i;
      this.word(scope);
      const raw = this.src.slice(start, this.i);
      if (raw === "]") break;
      raws.push(raw);
    }
    const operand = (raw: string | undefined): boolean => raw !== undefined && !/^[-!=()\]]/.test(raw) && !raw.includes("]");
    const shape = raws[0] === "!" ? raws.slice(1) : raws;
    const ok =
      (shape.length === 1 && operand(shape[0])) ||
      (shape.length === 2 && /^-[a-zA-Z]$/.test(shape[0]!) && operand(shape[1])) ||
      (shape.length === 3 && operand(shape[0]) && TEST_BINARY.has(shape[1]!) && operand(shape[2]));
    if (!ok) throw UNSURE;
  }

  /** Redirections after a compound command. */
  private redirects(scope: Scope): void {
    for (;;) {
      this.blanks();
      if (!this.redirect(scope, false)) return;
    }
  }

  /**
   * A redirection at the cursor (`>`, `>>`, `<`, `>&`, `<&`, `&>`, `&>>`, one digit before), read into `scope`;
   * false when none starts there. `heredoc`: a quoted here-document may start here.
   */
  private redirect(scope: Scope, heredoc: boolean): boolean {
    let j = this.i;
    let c = this.code(j);
    const descriptor = c >= 48 && c <= 57;
    if (descriptor) {
      const next = this.code(j + 1);
      if (next !== LESS && next !== GREATER) return false;
      c = next;
      j++;
    }
    let op: string;
    const at = (k: number): number => this.code(j + k);
    if (c === GREATER) op = at(1) === GREATER ? ">>" : at(1) === AMPERSAND ? ">&" : ">";
    else if (c === LESS) op = at(1) === LESS ? "<<" : at(1) === AMPERSAND ? "<&" : "<";
    else if (c === AMPERSAND && at(1) === GREATER) op = at(2) === GREATER ? "&>>" : "&>";
    else return false;
    j += op.length;
    const after = this.code(j);
    // `>|`, `<>`, `>>&`, `<<<`, `<<-`, `>(…)`, `<(…)`: the parser reads those.
    if (after === PIPE || after === GREATER || after === LESS || after === AMPERSAND || after === OPEN_PAREN || after === 45) throw UNSURE;
    // On a here-document's line the parser nests the commands after it in it: their redirections are not proven
    // (the here-document's own command's are: `cat <<'EOF' > f`).
    if (this.heredoc && this.nest === 0 && this.heredoc.scope !== scope) throw UNSURE;
    this.i = j;
    if (op === "<<") {
      if (!heredoc || descriptor || this.nest > 0 || this.heredoc) throw UNSURE;
      this.heredocStart(scope);
      return true;
    }
    this.blanks();
    const d = this.code();
    if (d === -1 || d >= 128 || ENDS_WORD[d] === 1) throw UNSURE;
    const target = this.word(scope);
    if (redirectWrites(op, target)) scope.writes = true;
    return true;
  }

  /** `<<'DELIMITER'` (after `<<`): the body is read at the next newline. */
  private heredocStart(scope: Scope): void {
    this.blanks();
    const m = /^'([A-Za-z_][A-Za-z0-9_]*)'/.exec(this.src.slice(this.i, this.i + 66));
    if (!m) throw UNSURE;
    this.i += m[0].length;
    this.heredoc = { delimiter: m[1]!, scope };
  }

  /** A quoted here-document's body (at its newline), up to a line that is its delimiter. */
  private heredocBody(delimiter: string): void {
    let at = this.i + 1;
    for (;;) {
      const lineEnd = this.src.indexOf("\n", at);
      const line = this.src.slice(at, lineEnd < 0 ? this.end : lineEnd);
      if (line === delimiter) {
        this.i = lineEnd < 0 ? this.end : lineEnd;
        return;
      }
      if (lineEnd < 0 || line.includes(delimiter) || hasControl(line)) throw UNSURE;
      at = lineEnd + 1;
    }
  }

  /** A simple command: `NAME=value` prefixes, words, then redirections; `negated`: after `!`. */
  private simple(scope: Scope, negated: boolean): void {
    const assignments: Word[] = [];
    const words: Word[] = [];
    // Recorded before what its words hold: the parser's walk meets a command before its substitutions.
    const step: Pending = { kind: "command", assignments, words, scope };
    const index = this.steps.length;
    this.steps.push(step);
    let redirected = false;
    let first = -1;
    let firstEnd = -1;
    /** A redirection follows the command's here-document (`cat <<'EOF' > f`). */
    let afterHeredoc = false;
    for (;;) {
      this.blanks();
      const c = this.code();
      if (c === -1 || c === NEWLINE || c === SEMICOLON || c === PIPE || c === CLOSE_PAREN) break;
      if (c === AMPERSAND && this.code(this.i + 1) !== GREATER) break;
      const pending = this.heredoc;
      if (this.redirect(scope, words.length > 0)) {
        if (words.length === 0) throw UNSURE;
        redirected = true;
        afterHeredoc ||= pending !== undefined;
        continue;
      }
      if (redirected || c === OPEN_PAREN || c >= 128) throw UNSURE;
      const start = this.i;
      if (words.length === 0 && this.assignment(scope, assignments)) continue;
      const word = this.word(scope);
      const next = this.code();
      // A redirection glued to a word (`a2>f`, `12>f`, `{fd}>f`): the parser reads those.
      if (next === LESS || next === GREATER) throw UNSURE;
      if (words.length === 0) {
        first = start;
        firstEnd = this.i;
      }
      words.push(word);
    }
    // `cat <<'EOF' > f | wc`: the parser reads what follows a here-document's redirections on its line as an error.
    if (afterHeredoc && this.code() !== NEWLINE) throw UNSURE;
    if (words.length === 0) {
      // Two assignments and a newline: the parser reads the next line's command as theirs (`a=1 b=2⏎ls`).
      if (assignments.length === 0 || redirected || negated || (assignments.length > 1 && this.code() === NEWLINE)) throw UNSURE;
      this.steps[index] = { kind: "assignments", words: assignments, scope };
      return;
    }
    const name = words[0]!;
    const raw = this.src.slice(first, firstEnd);
    // A reserved word, or one glued to quotes (`fi"x"`), as the name: the parser may read it as the keyword. A
    // name with brackets or braces (`a[1]`) or `=` it may read as an assignment, one with `@ % ? *` as an error.
    const lead = /^[a-z]+/.exec(raw)?.[0];
    if ((!name.open && (KEYWORDS.has(name.text) || name.text.includes("="))) || /[!{}[\]=@%?*#]/.test(raw) || (lead !== undefined && KEYWORDS.has(lead) && lead.length < raw.length && NAME[raw.charCodeAt(lead.length)] !== 1)) throw UNSURE;
  }

  /** `NAME=value` or `NAME+=value` at the cursor, read into `assignments`; false when none starts there. */
  private assignment(scope: Scope, assignments: Word[]): boolean {
    const m = /^[A-Za-z_][A-Za-z0-9_]*\+?=/.exec(this.src.slice(this.i, this.i + 256));
    if (!m) return false;
    this.i += m[0].length;
    const c = this.code();
    // `a=(…)` is an array; an empty value the parser reads only before a blank (`a=|`, `a=;` are errors to it).
    if (c === OPEN_PAREN || c === -1 || (c < 128 && ENDS_WORD[c] === 1 && c !== SPACE && c !== TAB)) throw UNSURE;
    const value = c === SPACE || c === TAB ? { text: "", open: false } : this.word(scope);
    assignments.push({ text: m[0] + value.text, open: value.open });
    return true;
  }

  /** One word at the cursor (it starts there), its value as shell-words.ts gives it; substitutions inside are read. */
  private word(scope: Scope): Word {
    const start = this.i;
    let text = "";
    let open = false;
    while (this.i < this.end) {
      const c = this.code();
      if (c < 128 && ENDS_WORD[c] === 1) break;
      switch (c) {
        case OPEN_BRACE: {
          // Only the word `{}` (find's): the parser reads `{ {}` as one word, `-f{1..3}` as less than bash.
          const after = this.code(this.i + 2);
          if (this.i !== start || this.code(this.i + 1) !== CLOSE_BRACE || (after !== -1 && (after >= 128 || ENDS_WORD[after] !== 1))) throw UNSURE;
          open = true;
          this.i += 2;
          break;
        }
        case OPEN_BRACKET:
          // `[ab]` globs: the parser reads `[` in words in ways of its own (`[ [ab]`).
          throw UNSURE;
        case STAR:
        case QUESTION:
          open = true;
          this.i++;
          break;
        case CLOSE_BRACE:
        case CLOSE_BRACKET:
          if (this.i === start && c === CLOSE_BRACE) throw UNSURE;
          if (!open) text += this.src[this.i];
          this.i++;
          break;
        case BACKSLASH: {
          const next = this.code(this.i + 1);
          const before = this.code(this.i - 1);
          // The parser reads a line's first word starting with `\` as part of the line before (`ls⏎\rm x`).
          if (next <= SPACE || next >= 127 || (this.i === start && before !== SPACE && before !== TAB)) throw UNSURE;
          if (!open) text += this.src[this.i + 1];
          this.i += 2;
          break;
        }
        case SINGLE: {
          const close = this.src.indexOf("'", this.i + 1);
          if (close < 0) throw UNSURE;
          const body = this.src.slice(this.i + 1, close);
          if (hasControl(body)) throw UNSURE;
          if (!open) text += body;
          this.i = close + 1;
          break;
        }
        case DOUBLE: {
          const inside = this.doubleQuoted(scope);
          if (!open) text += inside.text;
          open ||= inside.open;
          break;
        }
        case DOLLAR:
          this.dollar(scope);
          open = true;
          break;
        default:
          // `#` starts a comment at a word's start and the parser reads it so elsewhere too (`a#b` as a name).
          if (c <= SPACE || c >= 127 || c === BACKTICK || c === HASH) throw UNSURE;
          if (!open) text += this.src[this.i];
          this.i++;
      }
    }
    if (this.i === start) throw UNSURE;
    return { text, open };
  }

  /** `"…"` at the cursor: `\$ \` \" \\` decoded, other backslashes kept; an expansion opens it. */
  private doubleQuoted(scope: Scope): Word {
    let text = "";
    let open = false;
    this.i++;
    for (;;) {
      const c = this.code();
      switch (c) {
        case -1:
        case BACKTICK:
          throw UNSURE;
        case DOUBLE:
          this.i++;
          return { text, open };
        case DOLLAR:
          // `" $x"`: the parser's `$` takes the blanks after the quote with it (its reading drops them).
          if (!open && text !== "" && text.trim() === "") throw UNSURE;
          this.dollar(scope);
          open = true;
          break;
        case BACKSLASH: {
          const next = this.code(this.i + 1);
          if (next === DOLLAR || next === BACKTICK || next === DOUBLE || next === BACKSLASH) {
            if (!open) text += this.src[this.i + 1];
            this.i += 2;
            break;
          }
          if (next === -1 || next === NEWLINE) throw UNSURE;
          if (!open) text += "\\";
          this.i++;
          break;
        }
        default:
          if ((c < SPACE && c !== TAB && c !== NEWLINE) || c === 127) throw UNSURE;
          if (!open) text += this.src[this.i];
          this.i++;
      }
    }
  }

  /** `$name`, `${name}`, `$1`, `$@ $* $? $$ $!`, or `$(LIST)` at the cursor (the commands inside read). */
  private dollar(scope: Scope): void {
    const next = this.code(this.i + 1);
    if (next === OPEN_PAREN) {
      if (this.code(this.i + 2) === OPEN_PAREN) throw UNSURE;
      this.i += 2;
      this.nested(() => this.list(scope, [")"]));
      return;
    }
    if (next === OPEN_BRACE) {
      const m = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}/.exec(this.src.slice(this.i, this.i + 260));
      if (!m) throw UNSURE;
      this.i += m[0].length;
      return;
    }
    if (next >= 48 && next <= 57) {
      this.i += 2;
      return;
    }
    if (next === 64 || next === STAR || next === QUESTION || next === DOLLAR || next === BANG) {
      this.i += 2;
      return;
    }
    if (next < 0 || next >= 128 || NAME[next] !== 1) throw UNSURE;
    this.i++;
    while (this.i < this.end && NAME[this.code()] === 1) this.i++;
  }
}

/** A control character but tab and newline (the parser's reading of those is not proven here). */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < SPACE && c !== TAB && c !== NEWLINE) || c === 127) return true;
  }
  return false;
}
