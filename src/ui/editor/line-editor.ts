/**
 * The prompt: a multi-line text editor drawn at the bottom of the output. Enter submits; Alt-Enter (or
 * Shift-Enter where the terminal reports it, or Ctrl-J) and a trailing `\` before Enter insert a newline; a
 * bracketed paste is inserted whole, newlines kept (one of more than {@link PASTE_FOLD_LINES} lines shows as
 * `[pasted N lines #K]`, one of more than {@link PASTE_FOLD_CHARS} characters on fewer lines as `[pasted N characters
 * #K]`; either is sent whole, and Ctrl-O puts its text in the prompt). Up and Down move between lines, and through the history
 * from the first or last line; Tab completes what `complete` offers (slash commands).
 *
 * The editor keeps editing while hidden (a turn is running): keys typed then change the text, which the caller
 * shows elsewhere meanwhile (`preview`, `onHiddenChange`), and it is at the prompt when the prompt is shown again. A `footer` (the status line) is drawn on the row under
 * the prompt while it is shown, and erased when the prompt is submitted or left, so it never scrolls into the
 * output. Ctrl-C, Ctrl-D on an empty prompt, Esc and Ctrl-Z are
 * actions for the caller (line-editor never exits, cancels or suspends by itself).
 */
import { stripControls } from "../safe-text.js";
import { EditBuffer } from "./edit-buffer.js";
import type { KeyEvent, KeyName } from "./key-decoder.js";
import { layoutPrompt, type PromptLayout } from "./prompt-layout.js";
import { displayWidth, graphemes, screenRows } from "../output/width.js";

export type EditorAction =
  | { type: "submit"; text: string }
  | { type: "interrupt" }
  | { type: "eof" }
  | { type: "escape" }
  | { type: "suspend" }
  /** Ctrl-R: the caller searches the history (the picker) and puts the choice in with `setText`. */
  | { type: "search-history" }
  /** Ctrl-O, Alt-O: the caller shows the last tool block (or all of the last turn's) expanded. */
  | { type: "expand-last" }
  | { type: "expand-all" }
  /** Ctrl-V: the caller reads the clipboard's image and puts it in with `insert`. */
  | { type: "paste-image" }
  /** Shift-Tab: the caller switches to the next permission mode. */
  | { type: "backtab" };

export interface EditorTerminal {
  write(text: string): unknown;
  columns?: number;
  rows?: number;
}

export interface LineEditorOptions {
  /** The whole texts Tab may complete `text` to (e.g. `/help ` for `/he`); none: Tab does nothing. */
  complete?(text: string): string[];
  historySize?: number;
  /** One line drawn under the prompt while it is shown (at most `columns - 1` wide, styling allowed). */
  footer?(columns: number): string;
  /** The text, its cursor or the footer's content changed while the prompt is hidden (see `preview`). */
  onHiddenChange?(): void;
}

/** A paste of more lines than this shows as one `[pasted N lines #K]` in the prompt. */
export const PASTE_FOLD_LINES = 10;
/** A paste of fewer lines but more characters than this (minified code, a long log line) shows as `[pasted N characters #K]`. */
export const PASTE_FOLD_CHARS = 2000;

const SYNC_START = "\x1b[?2026h";
const SYNC_END = "\x1b[?2026l";

export class LineEditor {
  private readonly buffer = new EditBuffer();
  private readonly history: string[] = [];
  /** Where Up/Down stand in the history (history.length: the text being typed), and that text meanwhile. */
  private historyIndex = 0;
  private draft = "";
  /** The layout on screen while shown, and the cursor's row in it. */
  private drawn: PromptLayout | undefined;
  /** The first layout row on screen (rows above scrolled out of a prompt taller than the screen). */
  private drawnTop = 0;
  /** The display width of the footer on screen (absent: none drawn). */
  private footerWidth: number | undefined;
  /** Long pastes shown folded in the text: each one's marker and text (sent in its place). */
  private readonly pastes = new Map<string, string>();

  constructor(
    private readonly terminal: EditorTerminal,
    private readonly options: LineEditorOptions = {},
  ) {}

  get text(): string {
    return this.buffer.text;
  }

  /** Replaces the text (the cursor at its end), redrawn if shown. */
  setText(text: string): void {
    this.buffer.set(text);
    this.redraw();
  }

  /** Inserts `text` at the cursor, redrawn if shown. */
  insert(text: string): void {
    this.edit(() => this.buffer.insert(text));
  }

  get shown(): boolean {
    return this.drawn !== undefined;
  }

  addHistory(text: string): void {
    if (text.trim() === "" || this.history[this.history.length - 1] === text) return;
    // Up from the text being typed starts at the newest entry, also for entries added while the prompt is shown.
    const atDraft = this.historyIndex === this.history.length;
    this.history.push(text);
    if (this.history.length > (this.options.historySize ?? 1000)) {
      this.history.shift();
      if (!atDraft) this.historyIndex = Math.max(0, this.historyIndex - 1);
    }
    if (atDraft) this.historyIndex = this.history.length;
  }

  /** Draws the prompt (the cursor must be at the start of a line). */
  show(): void {
    this.drawn = undefined;
    this.historyIndex = this.history.length;
    this.render();
  }

  /**
   * The prompt's rows at `width` with the cursor drawn in reverse video, at most `height` of them (those around
   * the cursor): what is typed while the prompt is hidden, for the caller to show. None while the text is empty.
   */
  preview(width: number, height: number): string[] {
    if (this.buffer.text === "") return [];
    const layout = layoutPrompt(this.buffer.text, this.buffer.cursor, width);
    const top = Math.min(Math.max(0, layout.rows.length - height), Math.max(0, layout.cursorRow - height + 1));
    return layout.rows.slice(top, top + height).map((row, i) => (top + i === layout.cursorRow ? withCursor(row, layout.cursorColumn) : row));
  }

  /** Writes `text` (whole lines) where the prompt is and draws the prompt again below it. */
  printAbove(text: string): void {
    const shown = this.shown;
    this.terminal.write(`${this.toTop()}${text.replace(/\n/g, "\x1b[K\r\n")}\x1b[J`);
    this.drawn = undefined;
    if (shown) this.render();
  }

  /** The footer's content changed: drawn again if the prompt is shown. */
  refreshFooter(): void {
    this.redraw();
  }

  /** Leaves the prompt as it is on screen, the footer erased, and moves below it (awl is exiting). */
  leave(): void {
    if (!this.drawn) return;
    const footer = this.footerRows();
    const erase = footer > 0 ? `${"\x1b[2K\r\n".repeat(footer - 1)}\x1b[2K${footer > 1 ? `\x1b[${footer - 1}A` : ""}` : "";
    this.terminal.write(`${SYNC_START}${this.moveToEnd()}\r\n${erase}${SYNC_END}`);
    this.drawn = undefined;
    this.footerWidth = undefined;
  }

  /** The terminal's width changed: the prompt as the terminal re-wrapped it is erased and drawn again. */
  resize(): void {
    if (!this.drawn) return;
    const columns = this.columns();
    const rowsAbove = this.drawn.widths
      .slice(this.drawnTop, this.drawn.cursorRow)
      .reduce((rows, width) => rows + Math.max(1, Math.ceil(width / columns)), 0);
    this.drawn = { ...this.drawn, cursorRow: this.drawnTop + rowsAbove + Math.floor(this.drawn.cursorColumn / columns) };
    this.render();
  }

  /** Applies one key; returns what the caller must do, if anything. */
  handle(event: KeyEvent): EditorAction | undefined {
    if (event.kind === "text") this.edit(() => this.buffer.insert(event.text));
    else if (event.kind === "paste") this.edit(() => this.buffer.insert(this.pasted(stripControls(event.text.replace(/\r\n?/g, "\n")))));
    else if ((event.name === "expand-last" || event.name === "expand-all") && this.foldedPastes().length > 0) this.edit(() => this.buffer.set(this.unfolded(this.buffer.text)));
    else return this.key(event.name);
    return undefined;
  }

  private key(name: KeyName): EditorAction | undefined {
    const b = this.buffer;
    switch (name) {
      case "enter":
        // A trailing backslash continues the prompt on a new line, as in a shell.
        if (b.cursor === b.text.length && b.text.endsWith("\\")) return this.edit(() => b.set(`${b.text.slice(0, -1)}\n`));
        return this.submit();
      case "newline":
        return this.edit(() => b.insert("\n"));
      case "interrupt":
      case "escape":
      case "suspend":
      case "search-history":
      case "expand-last":
      case "expand-all":
      case "paste-image":
      case "backtab":
        return { type: name };
      case "eof":
        if (b.text === "") return { type: "eof" };
        return this.edit(() => b.deleteForward());
      case "up":
        return this.edit(() => b.up() || this.recall(-1));
      case "down":
        return this.edit(() => b.down() || this.recall(1));
      case "tab":
        return this.complete();
      case "clear-screen":
        if (this.drawn) {
          this.terminal.write("\x1b[H\x1b[2J");
          this.drawn = undefined;
          this.render();
        }
        return undefined;
      default:
        return this.edit(() => EDITS[name]?.(b));
    }
  }

  private edit(change: () => unknown): undefined {
    change();
    this.redraw();
    return undefined;
  }

  /** What a paste puts in the prompt: itself, or the marker of a long one. */
  private pasted(text: string): string {
    const lines = text.replace(/\n$/, "").split("\n").length;
    if (lines <= PASTE_FOLD_LINES && text.length <= PASTE_FOLD_CHARS) return text;
    const marker = `[pasted ${lines > PASTE_FOLD_LINES ? `${lines} lines` : `${text.length} characters`} #${this.pastes.size + 1}]`;
    this.pastes.set(marker, text);
    return marker;
  }

  /** The markers of long pastes still in the prompt as they were put there. */
  private foldedPastes(): string[] {
    return [...this.pastes.keys()].filter((marker) => this.buffer.text.includes(marker));
  }

  /** `text` with each long paste's marker replaced by what was pasted. */
  private unfolded(text: string): string {
    let whole = text;
    for (const [marker, pasted] of this.pastes) whole = whole.split(marker).join(pasted);
    return whole;
  }

  private submit(): EditorAction {
    // The prompt stays on screen as typed (a long paste as its marker); what is sent has the pastes whole.
    const shownText = this.buffer.text;
    const text = this.unfolded(shownText);
    this.pastes.clear();
    this.buffer.set("");
    if (this.drawn) {
      // The prompt stays on screen as typed, whole, with the output below it.
      const layout = layoutPrompt(shownText, shownText.length, this.layoutWidth());
      this.terminal.write(`${SYNC_START}${this.toTop()}${this.overwrite(layout.rows)}\r\n${SYNC_END}`);
      this.drawn = undefined;
      this.footerWidth = undefined;
    }
    this.addHistory(text);
    this.historyIndex = this.history.length;
    return { type: "submit", text };
  }

  /** Up (-1) or Down (+1) through the history; the text being typed is kept as the entry after the last. */
  private recall(step: -1 | 1): void {
    const index = this.historyIndex + step;
    if (index < 0 || index > this.history.length) return;
    if (this.historyIndex === this.history.length) this.draft = this.buffer.text;
    this.historyIndex = index;
    this.buffer.set(index === this.history.length ? this.draft : this.history[index]!);
  }

  private complete(): undefined {
    const choices = this.options.complete?.(this.buffer.text) ?? [];
    if (choices.length === 0 || this.buffer.cursor !== this.buffer.text.length) return undefined;
    const common = commonPrefix(choices);
    if (common.length > this.buffer.text.length) return this.edit(() => this.buffer.set(common));
    // Each choice by its last word: the part that differs (`/help`, `@src/cli/`).
    if (choices.length > 1 && this.drawn) this.printAbove(`${choices.map((c) => c.trim().split(/\s+/).at(-1)).join("  ")}\n`);
    return undefined;
  }

  private redraw(): void {
    if (this.drawn) this.render();
    else this.options.onHiddenChange?.();
  }

  private render(): void {
    const layout = layoutPrompt(this.buffer.text, this.buffer.cursor, this.layoutWidth());
    const footer = this.options.footer?.(this.columns());
    // A prompt taller than the screen shows the rows around the cursor (the footer keeps its row).
    const height = Math.max(1, this.height() - (footer === undefined ? 0 : 1));
    const top = Math.min(Math.max(0, layout.rows.length - height), Math.max(0, layout.cursorRow - height + 1));
    const rows = layout.rows.slice(top, top + height);
    let out = `${SYNC_START}${this.toTop()}${this.overwrite(footer === undefined ? rows : [...rows, footer])}`;
    const up = rows.length - 1 - (layout.cursorRow - top) + (footer === undefined ? 0 : 1);
    if (up > 0) out += `\x1b[${up}A`;
    out += "\r";
    if (layout.cursorColumn > 0) out += `\x1b[${layout.cursorColumn}C`;
    this.terminal.write(`${out}${SYNC_END}`);
    this.drawn = layout;
    this.drawnTop = top;
    this.footerWidth = footer === undefined ? undefined : displayWidth(footer);
  }

  /** Moves to the start of the drawn prompt's first row on screen (nowhere when it is not drawn). */
  private toTop(): string {
    if (!this.drawn) return "";
    const up = this.drawn.cursorRow - this.drawnTop;
    return `${up > 0 ? `\x1b[${up}A` : ""}\r`;
  }

  /**
   * Rows written over what is on screen, each clearing the rest of its row. (Clearing to the end of the screen in
   * one go instead would make tmux push the whole screen into its history whenever the prompt starts at the top
   * of the screen.)
   */
  private overwrite(rows: string[]): string {
    let out = rows.map((row) => `${row}\x1b[K`).join("\r\n");
    // Rows of the previous drawing below the new one are cleared one by one, and the cursor comes back.
    const left = this.drawnRows() - rows.length;
    if (left > 0) out += `${"\r\n\x1b[2K".repeat(left)}\x1b[${left}A`;
    return out;
  }

  /** The screen rows the drawn prompt takes now (as the terminal re-wrapped them, if it was narrowed). */
  private drawnRows(): number {
    if (!this.drawn) return 0;
    return screenRows(this.drawn.widths.slice(this.drawnTop, this.drawnTop + this.promptHeight()), this.columns()) + this.footerRows();
  }

  /** The screen rows the drawn footer takes now (as the terminal re-wrapped it, if it was narrowed). */
  private footerRows(): number {
    return this.footerWidth === undefined ? 0 : screenRows([this.footerWidth], this.columns());
  }

  /** The rows the drawn prompt may take (the screen's but one, and the footer's). */
  private promptHeight(): number {
    return Math.max(1, this.height() - (this.footerWidth === undefined ? 0 : 1));
  }

  /** The screen's rows but one; a terminal that reports 0 rows (a pseudo-terminal nobody sized) is taken as 24. */
  private height(): number {
    return Math.max(1, (this.terminal.rows || 24) - 1);
  }

  /** Moves from the cursor to the end of the drawn prompt's last row on screen. */
  private moveToEnd(): string {
    if (!this.drawn) return "";
    const last = Math.min(this.drawn.rows.length, this.drawnTop + this.promptHeight()) - 1;
    const down = last - this.drawn.cursorRow;
    return down > 0 ? `\x1b[${down}B` : "";
  }

  private columns(): number {
    return Math.max(10, this.terminal.columns || 80);
  }

  /**
   * The prompt's rows leave the last column free: a row that fills the screen's width leaves the cursor in the
   * terminal's pending-wrap state, where terminals differ (and tmux may join such rows when it is widened).
   */
  private layoutWidth(): number {
    return this.columns() - 1;
  }
}

const EDITS: Partial<Record<KeyName, (b: EditBuffer) => void>> = {
  backspace: (b) => b.backspace(),
  delete: (b) => b.deleteForward(),
  left: (b) => b.left(),
  right: (b) => b.right(),
  home: (b) => b.home(),
  end: (b) => b.end(),
  "word-left": (b) => b.wordLeft(),
  "word-right": (b) => b.wordRight(),
  "delete-word-before": (b) => b.deleteWordBefore(),
  "delete-word-after": (b) => b.deleteWordAfter(),
  "delete-to-start": (b) => b.deleteToStart(),
  "delete-to-end": (b) => b.deleteToEnd(),
};

/** `row` with the cell at display column `column` in reverse video (a space past its end): a drawn cursor. */
function withCursor(row: string, column: number): string {
  let at = 0;
  let out = "";
  for (const g of graphemes(row)) {
    if (at === column) return `${out}\x1b[7m${g}\x1b[27m${row.slice(out.length + g.length)}`;
    out += g;
    at += displayWidth(g);
  }
  return `${row}\x1b[7m \x1b[27m`;
}

function commonPrefix(texts: string[]): string {
  let prefix = texts[0] ?? "";
  for (const text of texts) while (!text.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}
