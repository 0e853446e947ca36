/**
 * Splits a shell command into the simple commands it runs, for matching command rules (`bash(git status)`).
 *
 * Conservative on purpose: this is not a shell parser, and every construct it cannot see through makes the
 * command `opaque`. An opaque command is never allowed by a command-prefix rule (only by a rule for the whole
 * tool), while deny and ask rules are still checked against every piece found, including those inside `$(...)`,
 * backticks and `( ... )`, so nesting cannot hide a denied command.
 */

/** The simple commands of one command line, and why it cannot be allowed piece by piece (if it cannot). */
export interface SplitCommand {
  /** Each simple command as its words (quotes and backslashes removed), joined by single spaces. */
  parts: string[];
  /**
   * The parts that begin with `NAME=value` assignments, once more without them (`X=1 rm -rf /` is `rm -rf /`):
   * deny and ask rules are also checked against these. Allow rules see only `parts`, so an assignment makes a command ask.
   */
  bare: string[];
  /** Set when the line holds something a prefix rule must not wave through: substitution, redirection, ... */
  opaque?: string;
}

/** Redirections that write nowhere and read nothing: `2>&1`, `>/dev/null`, `2>/dev/null`, `>&2`. */
const HARMLESS_REDIRECTION = /^(?:[0-9]?>>?\s*\/dev\/null|[0-9]?>&[0-9]|&>\s*\/dev\/null)(?![^\s;&|)])/;

/** Splits `command` on `&&`, `||`, `;`, `|`, `&` and newlines, outside quotes. */
export function splitCommand(command: string): SplitCommand {
  const parts: string[] = [];
  const bare: string[] = [];
  let opaque: string | undefined;
  const mark = (why: string): void => {
    opaque ??= why;
  };
  let words: string[] = [];
  let word: string | undefined;
  const endWord = (): void => {
    if (word !== undefined) words.push(word);
    word = undefined;
  };
  const endPart = (): void => {
    endWord();
    if (words.length > 0) {
      parts.push(words.join(" "));
      const first = words.findIndex((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
      if (first > 0) bare.push(words.slice(first).join(" "));
    }
    words = [];
  };
  const append = (text: string): void => {
    word = (word ?? "") + text;
  };

  let i = 0;
  const n = command.length;
  while (i < n) {
    const c = command[i]!;
    if (c === "\\") {
      if (command[i + 1] === "\n") {
        i += 2; // a line continuation
        continue;
      }
      append(command[i + 1] ?? "");
      i += 2;
      continue;
    }
    if (c === "'") {
      const close = command.indexOf("'", i + 1);
      if (close < 0) {
        mark("an unclosed quote");
        append(command.slice(i + 1));
        break;
      }
      append(command.slice(i + 1, close));
      i = close + 1;
      continue;
    }
    if (c === '"') {
      // Inside double quotes `$(...)`, backticks and `$VAR` still expand.
      let j = i + 1;
      let text = "";
      while (j < n && command[j] !== '"') {
        if (command[j] === "\\" && j + 1 < n) {
          text += command[j + 1];
          j += 2;
          continue;
        }
        if (command[j] === "`" || (command[j] === "$" && command[j + 1] === "(")) {
          mark("a command substitution");
          // The substitution's commands become parts of their own, so deny rules see them.
          const inner = command.slice(j + (command[j] === "`" ? 1 : 2));
          const end = inner.search(command[j] === "`" ? /`/ : /\)/);
          const body = end < 0 ? inner : inner.slice(0, end);
          const nested = splitCommand(body);
          parts.push(...nested.parts);
          bare.push(...nested.bare);
          j += (command[j] === "`" ? 1 : 2) + body.length + 1;
          continue;
        }
        text += command[j];
        j++;
      }
      if (j >= n) mark("an unclosed quote");
      append(text);
      i = j + 1;
      continue;
    }
    if (c === " " || c === "\t") {
      endWord();
      i++;
      continue;
    }
    if (c === "\n" || c === ";") {
      endPart();
      i++;
      continue;
    }
    if (c === "&" || c === "|") {
      if (c === "&" && command[i + 1] === ">") {
        // `&>file` (stdout and stderr to a file)
        const rest = command.slice(i);
        const harmless = HARMLESS_REDIRECTION.exec(rest);
        if (!harmless) mark("a redirection");
        endWord();
        i += harmless ? harmless[0].length : 2;
        continue;
      }
      endPart();
      i += command[i + 1] === c || (c === "|" && command[i + 1] === "&") ? 2 : 1;
      continue;
    }
    if (c === "`" || (c === "$" && command[i + 1] === "(") || ((c === "<" || c === ">") && command[i + 1] === "(")) {
      mark(c === "<" || c === ">" ? "a process substitution" : "a command substitution");
      endPart();
      i += c === "`" ? 1 : 2;
      continue;
    }
    if (c === "(" || c === ")" || c === "{" || c === "}") {
      // Subshells and groups: their commands are split out like the rest; `{` and `}` only as words of their own.
      if ((c === "{" || c === "}") && word !== undefined) {
        append(c);
        i++;
        continue;
      }
      mark(c === "(" || c === ")" ? "a subshell" : "a command group");
      endPart();
      i++;
      continue;
    }
    if (c === ">" || c === "<") {
      const start = word !== undefined && /^[0-9]$/.test(word) ? i - 1 : i;
      const harmless = c === ">" ? HARMLESS_REDIRECTION.exec(command.slice(start)) : null;
      if (harmless) {
        // Only the redirection's own digit belongs to it: `echo 2>/dev/null` drops nothing else.
        if (start < i) word = undefined;
        endWord();
        i = start + harmless[0].length;
        continue;
      }
      mark(command.startsWith("<<", i) ? "a here-document" : "a redirection");
      endWord();
      i += command[i + 1] === c ? 2 : 1;
      continue;
    }
    if (c === "$" && word === undefined && words.length === 0) {
      // The command name itself comes from a variable: nothing says what runs.
      mark("a command named by a variable");
    }
    append(c);
    i++;
  }
  endPart();
  return opaque === undefined ? { parts, bare } : { parts, bare, opaque };
}
