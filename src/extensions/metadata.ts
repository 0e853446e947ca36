/**
 * A capability's metadata (label, description, version, license, homepage), read from its entry point's text
 * without running any Lua (SPEC §4 "Capabilities"; AWORG reads a capability's constants the same way). The form:
 *
 * ```lua
 * awl.capability {
 *   label = "Weather",
 *   description = "Looking up the weather anywhere by name.",
 *   version = "1.0.0", license = "MIT", homepage = "https://example.com/weather",
 * }
 * ```
 *
 * The first `awl.capability` call in the file counts; its fields must be plain string literals (short or long
 * strings), because a value computed by code (a call, a concatenation, a variable) could only be known by running
 * it. At run time `awl.capability` checks the same table and does nothing else (runtime/awl.lua).
 */

/** The fields awl reads, each optional. */
export interface CapabilityMetadata {
  label?: string;
  description?: string;
  version?: string;
  license?: string;
  homepage?: string;
}

export const METADATA_FIELDS = ["label", "description", "version", "license", "homepage"] as const;

export type MetadataResult = { ok: true; metadata: CapabilityMetadata | undefined } | { ok: false; line: number; message: string };

interface Token {
  kind: "name" | "string" | "number" | "symbol" | "eof";
  text: string;
  value?: string;
  line: number;
}

/** The metadata `awl.capability { ... }` declares in `source`; undefined when it declares none. Never throws. */
export function readMetadata(source: string): MetadataResult {
  let tokens: Token[];
  try {
    tokens = tokenize(source);
  } catch (error) {
    return { ok: false, ...(error as { line: number; message: string }) };
  }
  for (let i = 0; i + 2 < tokens.length; i++) {
    const [a, dot, b] = [tokens[i]!, tokens[i + 1]!, tokens[i + 2]!];
    if (a.text !== "awl" || dot.text !== "." || b.text !== "capability" || a.kind !== "name") continue;
    if (i > 0 && (tokens[i - 1]!.text === "." || tokens[i - 1]!.text === ":")) continue; // x.awl.capability
    let at = i + 3;
    const paren = tokens[at]?.text === "(";
    if (paren) at++;
    if (tokens[at]?.text !== "{") {
      return { ok: false, line: b.line, message: "awl.capability takes one table written out in place: awl.capability { label = \"...\", description = \"...\" }" };
    }
    return parseTable(tokens, at + 1, paren);
  }
  return { ok: true, metadata: undefined };
}

function parseTable(tokens: Token[], start: number, paren: boolean): MetadataResult {
  const metadata: Record<string, string> = {};
  let at = start;
  for (;;) {
    const token = tokens[at]!;
    if (token.text === "}") break;
    if (token.kind !== "name" || tokens[at + 1]?.text !== "=") {
      return { ok: false, line: token.line, message: `awl.capability: expected a field such as label = "..." (got ${describe(token)})` };
    }
    const field = token.text;
    if (!(METADATA_FIELDS as readonly string[]).includes(field)) {
      return { ok: false, line: token.line, message: `awl.capability: unknown field \`${field}\`; the fields are ${METADATA_FIELDS.join(", ")}` };
    }
    const value = tokens[at + 2]!;
    const after = tokens[at + 3]!;
    if (value.kind !== "string" || ![",", ";", "}"].includes(after.text)) {
      const what = value.kind === "string" ? `an expression (${describe(after)} after the string)` : describe(value);
      return {
        ok: false,
        line: value.line,
        message: `awl.capability: \`${field}\` must be a plain string literal, because awl reads it without running your code; found ${what}`,
      };
    }
    if (field in metadata) return { ok: false, line: token.line, message: `awl.capability: \`${field}\` is given twice` };
    metadata[field] = value.value!;
    at += 3;
    if (tokens[at]!.text === "," || tokens[at]!.text === ";") at++;
  }
  if (paren && tokens[at + 1]?.text !== ")") return { ok: false, line: tokens[at]!.line, message: "awl.capability: expected `)` after the table" };
  return { ok: true, metadata };
}

function describe(token: Token): string {
  if (token.kind === "eof") return "the end of the file";
  if (token.kind === "name") return tokenIsCall(token) ? `a function call or variable \`${token.text}\`` : `\`${token.text}\``;
  if (token.kind === "number") return `a number (${token.text}); write it as a string, e.g. "${token.text}"`;
  return `\`${token.text}\``;
}

function tokenIsCall(token: Token): boolean {
  return !["true", "false", "nil", "function", "not"].includes(token.text);
}

/** Lua 5.4's lexical grammar, enough to find literals (comments, short and long strings, names, numbers). */
function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  const fail = (message: string): never => {
    throw { line, message };
  };
  const longBracket = (at: number): number => {
    // `[` `=`* `[`: the level, or -1.
    let j = at + 1;
    while (src[j] === "=") j++;
    return src[j] === "[" ? j - at - 1 : -1;
  };
  const readLong = (level: number): string => {
    const close = `]${"=".repeat(level)}]`;
    const begin = i + level + 2;
    const end = src.indexOf(close, begin);
    if (end < 0) fail("unfinished long string or comment");
    let text = src.slice(begin, end);
    line += (src.slice(i, end).match(/\n/g) ?? []).length;
    i = end + close.length;
    if (text.startsWith("\r\n")) text = text.slice(2);
    else if (text.startsWith("\n")) text = text.slice(1);
    return text;
  };
  if (src.startsWith("#")) while (i < src.length && src[i] !== "\n") i++;
  while (i < src.length) {
    const c = src[i]!;
    if (c === "\n") {
      line++;
      i++;
    } else if (/\s/.test(c)) {
      i++;
    } else if (src.startsWith("--", i)) {
      i += 2;
      const level = src[i] === "[" ? longBracket(i) : -1;
      if (level >= 0) readLong(level);
      else while (i < src.length && src[i] !== "\n") i++;
    } else if (c === "[" && longBracket(i) >= 0) {
      const start = line;
      tokens.push({ kind: "string", text: "[[", value: readLong(longBracket(i)), line: start });
    } else if (c === '"' || c === "'") {
      const start = line;
      let value = "";
      i++;
      for (;;) {
        const d = src[i];
        if (d === undefined || d === "\n") fail("unfinished string");
        i++;
        if (d === c) break;
        if (d !== "\\") {
          value += d;
          continue;
        }
        const e = src[i++]!;
        const simple: Record<string, string> = { n: "\n", t: "\t", r: "\r", a: "\x07", b: "\b", f: "\f", v: "\v", "\\": "\\", '"': '"', "'": "'", "\n": "\n" };
        if (e in simple) {
          if (e === "\n") line++;
          value += simple[e];
        } else if (e === "z") {
          while (i < src.length && /\s/.test(src[i]!)) if (src[i++] === "\n") line++;
        } else if (e === "x") {
          value += String.fromCharCode(parseInt(src.slice(i, i + 2), 16));
          i += 2;
        } else if (e === "u") {
          const m = /^\{([0-9a-fA-F]+)\}/.exec(src.slice(i));
          if (!m) fail("bad \\u escape in a string");
          value += String.fromCodePoint(parseInt(m![1]!, 16));
          i += m![0].length;
        } else if (/\d/.test(e)) {
          const m = /^\d{0,2}/.exec(src.slice(i))!;
          value += String.fromCharCode(Number(e + m[0]));
          i += m[0].length;
        } else fail(`bad escape \\${e} in a string`);
      }
      tokens.push({ kind: "string", text: '"', value, line: start });
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i, i + 256))!;
      tokens.push({ kind: "name", text: m[0], line });
      i += m[0].length;
    } else if (/\d/.test(c) || (c === "." && /\d/.test(src[i + 1] ?? ""))) {
      const m = /^(0[xX][0-9a-fA-F.]+([pP][+-]?\d+)?|[0-9.]+([eE][+-]?\d+)?)/.exec(src.slice(i, i + 256))!;
      tokens.push({ kind: "number", text: m[0], line });
      i += m[0].length;
    } else {
      const three = src.slice(i, i + 3);
      const two = src.slice(i, i + 2);
      const text = three === "..." ? three : ["..", "==", "~=", "<=", ">=", "//", "::", "<<", ">>"].includes(two) ? two : c;
      tokens.push({ kind: "symbol", text, line });
      i += text.length;
    }
  }
  tokens.push({ kind: "eof", text: "", line });
  return tokens;
}
