import { outputOrder, type Writer } from "./output-order.js";
import { changedCells } from "./cell-diff.js";
import { stripControls } from "../safe-text.js";
import { displayWidth } from "./width.js";

/** A text stream that remembers whether it sits at the start of a line, so renderers can separate parts cleanly. */
export class LineSink {
  private lineStart = true;
  private wroteAnything = false;
  /** The transient status line on screen (see `showStatus`), if any. */
  private status: string | undefined;

  constructor(
    private readonly writer: Writer,
    /** ANSI styling allowed (a terminal, and NO_COLOR unset). */
    readonly color: boolean,
  ) {}

  write(text: string): void {
    if (text === "") return;
    this.clearStatus();
    outputOrder.write(this.writer, text);
    this.wroteAnything = true;
    this.lineStart = text.endsWith("\n");
  }

  /** Writes `text` at once, ahead of anything waiting in the output order (awl is ending: it will never come). */
  writeNow(text: string): void {
    this.clearStatus();
    if (text !== "") outputOrder.direct(this.writer, text);
    // Escape sequences after the last newline (a synchronized-output end) leave the line empty.
    const shown = stripControls(text);
    if (shown !== "") this.lineStart = shown.endsWith("\n");
  }

  /** Writes escape sequences that show nothing (a style reset): the line state stays as it is. */
  control(sequence: string): void {
    outputOrder.write(this.writer, sequence);
  }

  /**
   * Shows `text` (one short line, no newline) on the current line while it is empty, e.g. "waiting for the
   * model"; the next write, or `clearStatus`, erases it first. Showing another status replaces it (only the
   * cells that changed are written when the rest stays in place: a spinner that turned).
   */
  showStatus(text: string): void {
    if (!this.lineStart || text === this.status) return;
    const change = this.status !== undefined ? changedCells(this.status, text) : undefined;
    outputOrder.write(this.writer, change ? `\x1b[${change.column + 1}G${change.text}\x1b[${displayWidth(text) + 1}G` : `\r\x1b[2K${text}`);
    this.status = text;
  }

  clearStatus(): void {
    if (this.status === undefined) return;
    this.status = undefined;
    outputOrder.write(this.writer, "\r\x1b[2K");
  }

  /**
   * Writes whole lines that are not ready yet (a tool block being rendered) at this point of the output: what
   * is written after waits for them (src/ui/output/output-order.ts). Called at the start of a line; the lines
   * end with a newline, so the line state stays as it is. `lines` resolves to a function called at that point
   * (so it sees what was written before it) and must not reject; what it returns is written unless empty.
   */
  writeLater(lines: Promise<() => string>): void {
    this.clearStatus();
    this.wroteAnything = true;
    outputOrder.writeLater(
      lines.then((draw) => () => {
        const text = draw();
        if (text !== "") outputOrder.direct(this.writer, text);
      }),
    );
  }

  /**
   * Draws a live region's next frame at this point of the output, as `writeLater` does: `draw` gives the frame's
   * text and whether it leaves the cursor at the end of its last line (the line kept open: a frame that only adds
   * to it writes only what is new). Whatever anyone writes next first ends that line (output-order.ts).
   */
  writeFrame(draw: () => { text: string; open: boolean }): void {
    this.clearStatus();
    this.wroteAnything = true;
    outputOrder.writeLater(
      Promise.resolve(() => {
        outputOrder.resumeLine();
        const { text, open } = draw();
        if (text !== "") outputOrder.direct(this.writer, text, open);
        else if (open) outputOrder.keepLineOpen(this.writer);
      }),
    );
  }

  /** Ends the current line if something is on it. */
  endLine(): void {
    if (!this.lineStart) this.write("\n");
  }

  /** Nothing is on the current line yet. */
  get atLineStart(): boolean {
    return this.lineStart;
  }

  /** Writes `text` dimmed when styling is allowed. */
  dim(text: string): void {
    if (!this.color) return this.write(text);
    // The newline stays outside the styling, so `endLine` knows the line is done.
    const body = text.endsWith("\n") ? text.slice(0, -1) : text;
    this.write(`\x1b[2m${body}\x1b[22m${body === text ? "" : "\n"}`);
  }

  get started(): boolean {
    return this.wroteAnything;
  }
}

/** Whether to style output for this stream (https://no-color.org). */
export function wantsColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return Boolean(stream.isTTY) && !env.NO_COLOR && env.TERM !== "dumb";
}
