/**
 * Finds where a JSON text first goes wrong, as a line and column, because Node 20's `JSON.parse`
 * messages only sometimes carry a position ("Unexpected end of JSON input" has none).
 */

export interface TextPosition {
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units. */
  column: number;
}

/** The offset of the first syntax error in `text`, or -1 if it is valid JSON. */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const literal = (word: string): void => {
    if (text.startsWith(word, i)) i += word.length;
    else fail();
  };
  const string = (): void => {
    i++; // opening quote
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return;
      }
      if (c < 0x20) fail();
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
            i += 2;
            fail();
          }
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else {
          i++;
          fail();
        }
      } else i++;
    }
    fail();
  };
  const number = (): void => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!match || match[0] === "-") fail();
    i += match![0].length;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      if (text[i] === "}") {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        string();
        ws();
        if (text[i] !== ":") fail();
        i++;
        value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "}") {
          i++;
          return;
        } else fail();
      }
    } else if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") {
        i++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "]") {
          i++;
          return;
        } else fail();
      }
    } else if (c === '"') string();
    else if (c === "t") literal("true");
    else if (c === "f") literal("false");
    else if (c === "n") literal("null");
    else if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) number();
    else fail();
  };
  try {
    value();
    ws();
    return i < text.length ? i : -1;
  } catch (offset) {
    return offset as number;
  }
}

/** Line and column of `offset` in `text`. */
export function positionOf(text: string, offset: number): TextPosition {
  let line = 1;
  let lineStart = 0;
  for (let k = 0; k < offset && k < text.length; k++) {
    if (text[k] === "\n") {
      line++;
      lineStart = k + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Where each object member's key starts in a valid JSON `text`, by JSON Pointer (RFC 6901, as ajv's
 * `instancePath`: `/providers/openai/model`); array items are found by index (`/rules/0`). The root is `""`.
 */
export function memberPositions(text: string): Map<string, TextPosition> {
  const positions = new Map<string, TextPosition>();
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const ws = (): void => {
    for (; i < text.length; i++) {
      const c = text[i];
      if (c === "\n") {
        line++;
        lineStart = i + 1;
      } else if (c !== " " && c !== "\t" && c !== "\r") return;
    }
  };
  const here = (): TextPosition => ({ line, column: i - lineStart + 1 });
  const string = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (pointer: string): void => {
    ws();
    const c = text[i];
    if (c === "{" || c === "[") {
      const close = c === "{" ? "}" : "]";
      i++;
      for (let index = 0; ; index++) {
        ws();
        if (text[i] === close) break;
        if (c === "{") {
          const at = here();
          const key = string();
          const child = `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
          positions.set(child, at);
          ws();
          i++; // ':'
          value(child);
        } else {
          const child = `${pointer}/${index}`;
          ws();
          positions.set(child, here());
          value(child);
        }
        ws();
        if (text[i] === ",") i++;
      }
      i++;
    } else if (c === '"') string();
    else while (i < text.length && !",}] \t\r\n".includes(text[i]!)) i++;
  };
  positions.set("", { line: 1, column: 1 });
  value("");
  return positions;
}
