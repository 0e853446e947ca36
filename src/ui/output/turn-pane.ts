/**
 * Rows kept under the live output while a turn runs (the interactive mode gives them: what is typed for the
 * next prompt, the status line). The terminal's cursor stays where the output goes on, so everything that
 * draws the output (streamed text, Markdown frames, tool blocks, each redrawing its own lines above the
 * cursor) works as without the pane; the pane is drawn on the rows below the cursor after each write that
 * needs it, inside synchronized-output brackets, and the cursor put back (DECSC/DECRC).
 *
 * A write that can reach the rows below the cursor (a newline, an erase of the screen below) is preceded by
 * erasing the pane and followed by drawing it again; text that only stays on the cursor's row (a word added
 * to a line, a spinner's cell) leaves the pane as it is. Lines written here never fill the last column (the
 * callers lay out one column short), so no write leaves the cursor in the terminal's pending-wrap state.
 */
import type { Writer } from "./output-order.js";

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

  /** Writes `text` of the output to `writer` (the terminal, or another stream on it) with the pane kept below. */
  write(writer: Writer, text: string): void {
    if (!this.attached || !REACHES_BELOW.test(text)) {
      writer.write(text);
      return;
    }
    // The output's own brackets would end the frame early: this one holds the whole of it.
    const body = text.replaceAll(SYNC_START, "").replaceAll(SYNC_END, "");
    const erase = this.shown > 0 ? ERASE_BELOW : "";
    if (writer === this.terminal) {
      writer.write(`${SYNC_START}${erase}${body}${this.draw()}${SYNC_END}`);
      return;
    }
    this.terminal.write(`${SYNC_START}${erase}`);
    writer.write(body);
    this.terminal.write(`${this.draw()}${SYNC_END}`);
  }

  /** The pane drawn below the cursor, which comes back where it was. */
  private draw(): string {
    const rows = this.rows(Math.max(10, this.terminal.columns || 80));
    this.shown = rows.length;
    if (rows.length === 0) return "";
    // Room below first (the screen scrolls if it must), then back up to the same column.
    const room = `${INDEX.repeat(rows.length)}\x1b[${rows.length}A`;
    return `${room}${SAVE}${rows.map((row) => `\r\n${row}\x1b[K`).join("")}${RESTORE}`;
  }
}
