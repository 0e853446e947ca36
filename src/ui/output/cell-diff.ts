/**
 * What changed between two drawings of one line, as the few cells to write over it: a spinner's mark that
 * turned, an elapsed second that ticked. Lines are compared as styling sequences and user-perceived characters.
 */
import { displayWidth, graphemes } from "./width.js";

const STYLE = /\x1b\[[0-9;]*m/y;

/** Where the change starts (in columns from the line's start) and what to write there, styles in force first. */
export interface CellChange {
  column: number;
  text: string;
}

/**
 * The cells of `before` (on screen) to overwrite to make it `after`, when the changed part keeps its width (so
 * what follows stays where it is); undefined when it does not (the line must be drawn again) or nothing changed.
 * Both lines hold only text and SGR styling, and start unstyled.
 */
export function changedCells(before: string, after: string): CellChange | undefined {
  if (before === after) return undefined;
  const a = tokens(before);
  const b = tokens(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  const removed = a.slice(start, a.length - end);
  const added = b.slice(start, b.length - end);
  if (width(removed) !== width(added)) return undefined;
  const prefix = b.slice(0, start);
  // The styles in force where the change starts, set again; whatever it sets is reset after it.
  const styles = prefix.filter(isStyle).join("");
  const styled = styles !== "" || added.some(isStyle);
  return { column: width(prefix), text: `${styles}${added.join("")}${styled ? "\x1b[0m" : ""}` };
}

function tokens(line: string): string[] {
  const out: string[] = [];
  let text = "";
  for (let i = 0; i < line.length; ) {
    STYLE.lastIndex = i;
    const style = STYLE.exec(line);
    if (!style) {
      const next = line.indexOf("\x1b", i + 1);
      text += line.slice(i, next < 0 ? line.length : next);
      i = next < 0 ? line.length : next;
      continue;
    }
    if (text !== "") out.push(...graphemes(text));
    text = "";
    out.push(style[0]);
    i += style[0].length;
  }
  if (text !== "") out.push(...graphemes(text));
  return out;
}

function isStyle(token: string): boolean {
  return token.startsWith("\x1b[");
}

function width(tokens: readonly string[]): number {
  return tokens.reduce((sum, token) => sum + (isStyle(token) ? 0 : displayWidth(token)), 0);
}
