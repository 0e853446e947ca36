/**
 * The value of a shell word as bash would see it before it runs, as far as that is known without running
 * anything: quotes removed, backslashes and `$'…'` escapes decoded. Whatever only the run can tell (a `$x`,
 * a `$(…)`, a glob `*`, a brace expansion `{a,b}`) makes the word *open*: its value is `text` followed by
 * anything, possibly more words.
 */
import type { ShellNode } from "./shell-parser.js";

/** A word's known beginning, and whether anything unknown follows it. */
export interface Word {
  text: string;
  open: boolean;
}

/** Characters that make an unquoted word expand (globs, brace expansion). */
const EXPANDING = new Set(["*", "?", "[", "{"]);

/**
 * The nodes of a command's children grouped into words: bash splits words at blanks, tree-sitter gives the
 * pieces; two pieces with nothing but line continuations (`\` newline) between them are one word (`r\⏎m` is
 * `rm`). Undefined when a gap holds anything else: the parse cannot be trusted then.
 */
export function groupWords(nodes: readonly ShellNode[], source: string): ShellNode[][] | undefined {
  const words: ShellNode[][] = [];
  let last: ShellNode | undefined;
  for (const node of nodes) {
    const gap = last ? source.slice(last.endIndex, node.startIndex).replace(/\\\n/g, "") : " ";
    if (gap === "" && last) words[words.length - 1]!.push(node);
    else if (/^[ \t]+$/.test(gap)) words.push([node]);
    else return undefined;
    last = node;
  }
  return words;
}

/** The value of one word made of `nodes` (adjacent pieces). */
export function wordOf(nodes: readonly ShellNode[], source: string): Word {
  let text = "";
  for (const node of nodes) {
    const piece = pieceOf(node, source);
    text += piece.text;
    if (piece.open) return { text, open: true };
  }
  return { text, open: false };
}

function pieceOf(node: ShellNode, source: string): Word {
  const raw = source.slice(node.startIndex, node.endIndex);
  switch (node.type) {
    case "word":
    case "number":
      return unquoted(raw);
    case "raw_string":
      return { text: raw.slice(1, -1), open: false };
    case "ansi_c_string":
      return ansiC(raw.slice(2, -1));
    case "string":
      return doubleQuoted(node, source);
    case "concatenation":
      return wordOf(node.children, source);
    default:
      // Expansions, substitutions, `$"…"` and anything unforeseen: known only when it runs.
      return { text: "", open: true };
  }
}

/** An unquoted piece: `\x` is `x`, `\` newline nothing; a glob or brace character opens the word. */
function unquoted(raw: string): Word {
  let text = "";
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === "\\") {
      if (raw[i + 1] !== "\n") text += raw[i + 1] ?? "";
      i++;
    } else if (EXPANDING.has(c)) {
      return { text, open: true };
    } else {
      text += c;
    }
  }
  return { text, open: false };
}

/** `"…"`: literal text with `\$ \` \" \\` and `\` newline decoded; an expansion inside opens the word. */
function doubleQuoted(node: ShellNode, source: string): Word {
  let text = "";
  let at = node.startIndex + 1;
  const end = node.endIndex - 1;
  const literal = (raw: string): string => raw.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === "\n" ? "" : c));
  for (const child of node.children) {
    if (child.startIndex < at || child.endIndex > end) continue; // the quotes
    text += literal(source.slice(at, child.startIndex));
    if (child.type !== "string_content") return { text, open: true };
    text += literal(source.slice(child.startIndex, child.endIndex));
    at = child.endIndex;
  }
  return { text: text + literal(source.slice(at, end)), open: false };
}

const SIMPLE_ESCAPES: Record<string, string> = { a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "\\": "\\", "'": "'", '"': '"', "?": "?" };

/** The body of `$'…'` decoded as bash does; bash ends the string at a NUL. */
function ansiC(body: string): Word {
  let text = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\") {
      text += c;
      continue;
    }
    const e = body[i + 1] ?? "";
    let code: number | undefined;
    let used = 1;
    if (e in SIMPLE_ESCAPES) {
      text += SIMPLE_ESCAPES[e];
    } else if (/[0-7]/.test(e)) {
      const digits = /^[0-7]{1,3}/.exec(body.slice(i + 1))![0];
      code = parseInt(digits, 8) & 0xff;
      used = digits.length;
    } else if (e === "x" || e === "u" || e === "U") {
      const digits = new RegExp(`^[0-9a-fA-F]{1,${e === "x" ? 2 : e === "u" ? 4 : 8}}`).exec(body.slice(i + 2))?.[0];
      if (digits === undefined) {
        text += `\\${e}`;
      } else {
        code = parseInt(digits, 16);
        used = digits.length + 1;
      }
    } else if (e === "c" && i + 2 < body.length) {
      code = body.charCodeAt(i + 2) & 0x1f;
      used = 2;
    } else {
      text += `\\${e}`;
    }
    if (code !== undefined) {
      if (code === 0) return { text, open: false };
      // A \xHH byte above 0x7f is a raw byte in bash, not a character: what it becomes is not known here.
      if (e !== "u" && e !== "U" && e !== "c" && code > 0x7f) return { text, open: true };
      text += code > 0x10ffff ? "\ufffd" : String.fromCodePoint(code);
    }
    i += used;
  }
  return { text, open: false };
}
