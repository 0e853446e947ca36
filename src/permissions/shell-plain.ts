/**
 * Plain commands read without the parser (shell-commands.ts): most commands a model runs are words, quotes
 * without expansions, and `&&`, `||`, `;`, `|` or newlines between simple commands (`git status && npm test |
 * tail -n 20`). This tokenizer splits such a command into its simple commands' words in one pass over the text,
 * without starting tree-sitter. Whatever else it meets returns undefined and the parser reads the command: an
 * expansion (`$`, a backtick), a redirection, a glob or brace, a comment, a backslash, `~`, `!`, `&` alone,
 * parentheses, a control character or a non-ASCII one outside quotes, a keyword or an assignment where a command
 * starts, an empty command. On everything it accepts it gives what the parser's reading gives
 * (test/permissions/shell-plain.test.ts compares the two on every shell-rule case and on generated commands).
 */
import type { Word } from "./shell-words.js";

/** Character classes by code: what may stand in an unquoted word. */
const WORD = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:@,+=-") WORD[c.charCodeAt(0)] = 1;

/**
 * Words that start a command the parser reads as more than a simple command (reserved words, declarations,
 * `time`, `coproc`, tests): the parser reads a command that starts so.
 */
const KEYWORDS = new Set(["if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do", "done", "in", "function", "time", "coproc", "declare", "typeset", "local", "export", "readonly", "unset", "unsetenv", "[[", "]]", "!", "{", "}"]);

const SPACE = 32;
const TAB = 9;
const NEWLINE = 10;
const SEMICOLON = 59;
const PIPE = 124;
const AMPERSAND = 38;
const SINGLE = 39;
const DOUBLE = 34;

/**
 * The simple commands of `source` as their words (quotes removed), left to right; undefined when it is not a
 * plain command.
 */
export function plainCommands(source: string): Word[][] | undefined {
  const commands: Word[][] = [];
  let words: Word[] = [];
  /** After `&&`, `||` or `|` a command must follow (newlines may come first). */
  let owed = false;
  let i = 0;
  const end = source.length;
  const close = (): boolean => {
    if (words.length === 0) return false;
    const name = words[0]!.text;
    if (KEYWORDS.has(name) || name.includes("=")) return false;
    commands.push(words);
    words = [];
    return true;
  };
  while (i < end) {
    const c = source.charCodeAt(i);
    if (c === SPACE || c === TAB) {
      i++;
      continue;
    }
    if (c === NEWLINE || c === SEMICOLON) {
      if (words.length > 0) {
        if (!close()) return undefined;
      } else if (c === SEMICOLON) {
        // `;` with no command before it (or after `&&`): bash rejects it. A newline there is a blank line.
        return undefined;
      }
      i++;
      continue;
    }
    if (c === PIPE || c === AMPERSAND) {
      const next = source.charCodeAt(i + 1);
      const double = next === c;
      // `&` alone runs in the background, `|&` pipes stderr too: the parser reads those.
      if (c === AMPERSAND && !double) return undefined;
      if (!double && next === AMPERSAND) return undefined;
      if (!close()) return undefined;
      owed = true;
      i += double ? 2 : 1;
      continue;
    }
    // A word: unquoted characters and quoted pieces, up to a blank or an operator.
    const start = i;
    let text = "";
    while (i < end) {
      const d = source.charCodeAt(i);
      if (d < 128 && WORD[d] === 1) {
        text += source[i];
        i++;
      } else if (d === SINGLE || d === DOUBLE) {
        const closing = source.indexOf(d === SINGLE ? "'" : '"', i + 1);
        if (closing < 0) return undefined;
        const body = source.slice(i + 1, closing);
        if (!quotedPlain(body, d === DOUBLE)) return undefined;
        text += body;
        i = closing + 1;
      } else {
        break;
      }
    }
    if (i < end) {
      const d = source.charCodeAt(i);
      if (d !== SPACE && d !== TAB && d !== NEWLINE && d !== SEMICOLON && d !== PIPE && d !== AMPERSAND) return undefined;
    }
    // A reserved word glued to a quote (`export'x'`): the parser reads the keyword, then a word; a name with `@`
    // (`a@b`) it reads as an error.
    if (words.length === 0 && (source.slice(start, i).includes("@") || (/^[a-z]+['"]/.test(source.slice(start, i)) && KEYWORDS.has(/^[a-z]+/.exec(source.slice(start, i))![0])))) return undefined;
    words.push({ text, open: false });
    owed = false;
  }
  if (owed) return undefined;
  if (words.length > 0 && !close()) return undefined;
  return commands.length > 0 ? commands : undefined;
}

/** Whether a quoted text is plain: no control character but tab and newline; in double quotes no `$`, backtick or `\`. */
function quotedPlain(body: string, double: boolean): boolean {
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    if (c < 32 ? c !== TAB && c !== NEWLINE : c === 127) return false;
    if (double && (c === 36 || c === 96 || c === 92)) return false;
  }
  return true;
}
