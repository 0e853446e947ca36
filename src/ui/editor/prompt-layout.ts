/**
 * Lays the prompt's text out in screen rows for a terminal width: `> ` before the first line, two spaces before
 * the others, long lines wrapped by display columns (wide characters take two), and where the cursor goes.
 */
import { displayWidth, graphemes } from "../output/width.js";

export const PROMPT = "> ";
const CONTINUATION = "  ";
/** How a tab in the text is shown (its real width depends on the column). */
const TAB = "    ";

export interface PromptLayout {
  /** The rows to draw, each at most `width` columns. */
  rows: string[];
  /** The display width of each row. */
  widths: number[];
  cursorRow: number;
  cursorColumn: number;
}

export function layoutPrompt(text: string, cursor: number, width: number): PromptLayout {
  const rows: string[] = [];
  const widths: number[] = [];
  let row = "";
  let column = 0;
  let cursorRow = 0;
  let cursorColumn = 0;
  const breakRow = (): void => {
    rows.push(row);
    widths.push(column);
    row = "";
    column = 0;
  };
  let offset = 0;
  text.split("\n").forEach((line, index) => {
    if (index > 0) {
      breakRow();
      offset++; // the newline
    }
    row = index === 0 ? PROMPT : CONTINUATION;
    column = displayWidth(row);
    for (const g of graphemes(line)) {
      const shown = g === "\t" ? TAB : g;
      const w = displayWidth(shown);
      if (column + w > width && column > 0) breakRow();
      if (offset === cursor) [cursorRow, cursorColumn] = [rows.length, column];
      row += shown;
      column += w;
      offset += g.length;
    }
    if (offset === cursor) [cursorRow, cursorColumn] = [rows.length, column];
  });
  breakRow();
  // A cursor just past a full row stands at the start of the next one.
  if (cursorColumn >= width) {
    cursorRow++;
    cursorColumn = 0;
    if (cursorRow === rows.length) {
      rows.push("");
      widths.push(0);
    }
  }
  return { rows, widths, cursorRow, cursorColumn };
}
