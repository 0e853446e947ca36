/**
 * Rows kept under the live output while a turn runs (the interactive mode gives them: what is typed for the
 * next prompt, the status line). The terminal's cursor stays where the output goes on, so everything that
 * draws the output (streamed text, Markdown frames, tool blocks, each redrawing its own lines above the
 * cursor) works as without the pane; the pane is drawn on the rows below the cursor after each write that
 * needs it, inside synchronized-output brackets, and the cursor put back (DECSC/DECRC).
 *
 * Text that only stays on the cursor's row (a word added to a line, a spinner's cell), or comes back to it (a
 * Markdown frame redrawing its last line), leaves the pane as it is. The cursor's column is followed across writes
 * (from the line start where the pane is attached), so text that goes on where the last write left off (a Markdown
 * frame adding to the line it left open) is known not to wrap. A write that moves the output down by N rows
 * and no further (a frame adding lines) first moves the pane down N rows (lines inserted above it: a few bytes,
 * where drawing it again costs a status line at every frame, docs/benchmarks.md). Any other write that can
 * reach the rows below the cursor (an erase of the screen below, a move the pane cannot follow) is preceded by
 * erasing the pane and followed by drawing it again. Lines written here never fill the last column (the callers
 * lay out one column short), so no write leaves the cursor in the terminal's pending-wrap state.
 */
import type { Writer } from "./output-order.js";
import { displayWidth } from "./width.js";

const SYNC_START = "\x1b[?2026h";
const SYNC_END = "\x1b[?2026l";
const SAVE = "\x1b7";
const RESTORE = "\x1b8";
/** Index: down one row, scrolling at the bottom, the column kept. */
const INDEX = "\x1bD";
const ERASE_BELOW = "\x1b[J";
/**
 * What may move the cursor below its row or erase there: a newline, erase below, cursor down. (Cursor next line,
 * `ESC[nE`, only ever brings the cursor back to its row: a tool block's cell redraw, tool-blocks.ts.)
 */
const REACHES_BELOW = /\n|\x1b\[\d*[JB]/;

export interface TurnPaneTerminal extends Writer {
  readonly columns?: number;
}

export class TurnPane {
  /** The rows on screen now (0: none drawn). */
  private shown = 0;
  private attached = false;
  /** The output cursor's column, as far as the writes so far tell (undefined: not known). */
  private column: number | undefined = 0;
  /** Empty rows between the cursor's row and the pane: 1 while the output's line is open (see `write`). */
  private gap = 0;

  constructor(
    private readonly terminal: TurnPaneTerminal,
    /** The pane's rows for a terminal this wide, each at most `columns - 1` wide (styling allowed). */
    private readonly rows: (columns: number) => string[],
  ) {}

  /** How many rows the pane takes (the output has the screen's height less these). */
  get height(): number {
    return this.shown;
  }

  /** Draws the pane below the cursor (at the start of a line), and from now on around each write. */
  attach(): void {
    this.attached = true;
    this.column = 0;
    this.gap = 0;
    this.terminal.write(`${SYNC_START}${this.draw()}${SYNC_END}`);
  }

  /** Erases the pane; the cursor stays where the output goes on. */
  detach(): void {
    if (!this.attached) return;
    this.attached = false;
    if (this.shown > 0) this.terminal.write(ERASE_BELOW);
    this.shown = 0;
  }

  /** The pane's rows changed (a key typed, usage arrived): drawn again. */
  refresh(): void {
    if (this.attached) this.terminal.write(`${SYNC_START}${this.shown > 0 ? ERASE_BELOW : ""}${this.draw()}${SYNC_END}`);
  }

  /**
   * Writes `text` of the output to `writer` (the terminal, or another stream on it) with the pane kept below.
   * `lineOpen`: the write leaves the cursor at the end of a line whose newline is still to come (a streamed Markdown
   * answer, output-order.ts): the row below it is kept empty, as it will be once the newline is written.
   */
  write(writer: Writer, text: string, lineOpen = false): void {
    if (!this.attached) {
      writer.write(text);
      return;
    }
    const gap = lineOpen ? 1 : 0;
    const before = this.gap;
    this.gap = gap;
    const move = followWrite(text, this.columns(), this.column);
    this.column = move.column;
    if (!REACHES_BELOW.test(text) && gap === before) {
      writer.write(text);
      return;
    }
    // The output's own brackets would end the frame early: this one holds the whole of it.
    const body = text.replaceAll(SYNC_START, "").replaceAll(SYNC_END, "");
    const moved = writer === this.terminal && this.shown > 0 && move.down !== undefined ? move.down + gap - before : undefined;
    if (moved === 0) {
      writer.write(text);
      return;
    }
    if (moved !== undefined && moved > 0) {
      // Room for the pane's rows and the new ones (the screen scrolls if it must), then lines inserted above the pane.
      const room = before + this.shown + moved;
      const shift = `${INDEX.repeat(room)}\x1b[${room}A${SAVE}\x1b[${before > 0 ? before + 1 : ""}B\x1b[${moved}L${RESTORE}`;
      writer.write(text.includes(SYNC_START) ? `${SYNC_START}${shift}${body}${SYNC_END}` : `${shift}${body}`);
      return;
    }
    const erase = this.shown > 0 ? ERASE_BELOW : "";
    if (writer === this.terminal) {
      writer.write(`${SYNC_START}${erase}${body}${this.draw()}${SYNC_END}`);
      return;
    }
    this.terminal.write(`${SYNC_START}${erase}`);
    writer.write(body);
    this.terminal.write(`${this.draw()}${SYNC_END}`);
  }

  private columns(): number {
    return Math.max(10, this.terminal.columns || 80);
  }

  /** The pane drawn below the cursor, which comes back where it was. */
  private draw(): string {
    const rows = this.rows(this.columns());
    this.shown = rows.length;
    if (rows.length === 0) return "";
    // Room below first (the screen scrolls if it must), then back up to the same column.
    const down = this.gap + rows.length;
    const room = `${INDEX.repeat(down)}\x1b[${down}A`;
    return `${room}${SAVE}${"\r\n".repeat(this.gap)}${rows.map((row) => `\r\n${row}\x1b[K`).join("")}${RESTORE}`;
  }
}

/** One piece of a write: a control sequence (an OSC 8 hyperlink's brackets move nothing), a line end, or text. */
const PIECES = /\x1b\[([\d;?]*)([@-~])|\x1b\]8;[^\x07\x1b]*(?:\x07|\x1b\\)|\x1b(.)|(\r)|(\n)|([^\x1b\r\n]+)/gy;

/** Where a write leaves the cursor, as far as the pane is concerned. */
export interface WriteMove {
  /**
   * How many rows below the cursor's row the write leaves it, when that is also the lowest row it reaches (0: it
   * comes back to its row): a pane below only has to move down that much. Undefined when the pane cannot just
   * follow: the write erases below, saves or restores the cursor, moves it in another way, ends above where it
   * went, or writes text that may wrap (at a column not known, or up to the last one of `columns`).
   */
  down: number | undefined;
  /** The column the write leaves the cursor at (undefined: not known). */
  column: number | undefined;
}

/** How `text`, written with the cursor at `column` (undefined: not known) of a terminal `columns` wide, moves it. */
export function followWrite(text: string, columns: number, column: number | undefined): WriteMove {
  let row = 0;
  let lowest = 0;
  let followed = true;
  let saved: number | undefined;
  let read = 0;
  PIECES.lastIndex = 0;
  for (let piece = PIECES.exec(text); piece; piece = PIECES.exec(text)) {
    read = PIECES.lastIndex;
    const [, params, final, escape, cr, lf, chars] = piece;
    const n = Math.max(1, Number.parseInt(params ?? "", 10) || 1);
    if (chars !== undefined) {
      const end = column === undefined ? undefined : column + displayWidth(chars);
      // Text that may wrap leaves the cursor where the pane cannot tell.
      if (end === undefined || end > columns - 1) followed = false;
      column = end !== undefined && end <= columns - 1 ? end : undefined;
    } else if (cr !== undefined) column = 0;
    else if (lf !== undefined) {
      row++;
      // The terminal returns the carriage too (onlcr: on in the raw mode Node sets, as all of awl's output expects).
      column = 0;
    } else if (escape !== undefined) {
      if (escape === "D") row++;
      else if (escape === "M") row--;
      else {
        followed = false;
        if (escape === "7") saved = column;
        else if (escape === "8") column = saved;
        else column = undefined;
      }
    } else if (final === "A" || final === "F") {
      row -= n;
      if (final === "F") column = 0;
    } else if (final === "B" || final === "E") {
      row += n;
      if (final === "E") column = 0;
    } else if (final === "G") column = n - 1;
    else if (final === "C") column = column === undefined ? undefined : Math.min(columns - 1, column + n);
    else if (final === "D") column = column === undefined ? undefined : Math.max(0, column - n);
    else if (final === "J") followed = false;
    else if (final !== undefined && !"mKhlX".includes(final)) {
      followed = false;
      column = undefined;
    }
    lowest = Math.max(lowest, row);
  }
  if (read !== text.length) return { down: undefined, column: undefined };
  return { down: followed && row === lowest ? row : undefined, column };
}
