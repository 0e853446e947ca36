/**
 * awl's own text (help, notices, errors, warnings, crash reports) wrapped for a terminal: at word boundaries,
 * by display width, each continuation line indented under the text it continues: under the second column of
 * a two-column line (`  /help   lists…`), after a leading `awl: ` or `→ `, else at the line's own indent. A
 * word longer than the line is never cut (a path or a URL stays whole for copying): the terminal wraps it.
 * Not a terminal: the text as it is.
 */
import { displayWidth } from "./width.js";

/**
 * One row of a two-column list (`--help`): `left` padded to `width`, then `text`; when `left` fills its column,
 * `text` goes on the next line under the second column, so every description starts in the same place.
 */
export function columnRow(left: string, text: string, width: number): string {
  return displayWidth(left) < width ? `${left.padEnd(width)} ${text}` : `${left}\n${" ".repeat(width + 1)}${text}`;
}

/** `text` wrapped for a terminal `columns` wide. */
export function wrapText(text: string, columns: number): string {
  const width = Math.max(10, columns);
  return text
    .split("\n")
    .map((line) => wrapLine(line, width))
    .join("\n");
}

/** `text` wrapped for `stream` when it is a terminal. */
export function forTerminal(stream: { isTTY?: boolean; columns?: number }, text: string): string {
  return stream.isTTY ? wrapText(text, stream.columns || 80) : text;
}

/** Writes awl's own `text` to `stream`, wrapped when it is a terminal. */
export function writeNotice(stream: NodeJS.WriteStream, text: string): void {
  stream.write(forTerminal(stream, text));
}

function wrapLine(line: string, width: number): string {
  if (displayWidth(line) <= width) return line;
  const indent = " ".repeat(hangingIndent(line, width));
  const parts = line.match(/ *[^ ]+| +$/g) ?? [];
  let out = "";
  let column = 0;
  for (const part of parts) {
    const word = part.trimStart();
    const partWidth = displayWidth(part);
    if (column > indent.length && column + partWidth > width && word !== "") {
      out += `\n${indent}${word}`;
      column = indent.length + displayWidth(word);
    } else {
      out += part;
      column += partWidth;
    }
  }
  return out;
}

/** The column continuation lines of `line` start at. */
function hangingIndent(line: string, width: number): number {
  const column = /^( *\S+(?: \S+)* {2,})\S/.exec(line);
  // A second column keeps its place while at least a third of the line (or 20 columns) is left for it.
  if (column && displayWidth(column[1]!) <= width - Math.max(20, width / 3)) return displayWidth(column[1]!);
  const marker = /^( *(?:awl: |→ |[-*•] ))/.exec(line);
  if (marker) return displayWidth(marker[1]!);
  return /^ */.exec(line)![0].length;
}
