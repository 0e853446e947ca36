/**
 * The model's thinking on a live terminal: dimmed (marked `(thinking) ` without colour), wrapped at words, its
 * last lines drawn as a region at the bottom of the output while it streams (at most one frame every
 * {@link FRAME_MS}; from the first changed line on, inside synchronized-output brackets), then collapsed to
 * one line, `▸ thought for 3s · ctrl-o to expand`, once it ends. The whole text is kept for the expand keys
 * (expanded-blocks.ts).
 */
import { FlowText } from "./flow-text.js";
import { outputOrder } from "./output-order.js";
import type { LineSink } from "./sink.js";
import { displayWidth, screenRows } from "./width.js";

export const FRAME_MS = 33;
const SYNC_START = "\x1b[?2026h";
const SYNC_END = "\x1b[?2026l";
const MARK = "(thinking) ";

/** A thinking block that ended: what the expand keys show again. */
export interface ThinkingData {
  kind: "thinking";
  text: string;
  seconds: number;
}

export interface ThinkingRegionOptions {
  /** The width its lines may take (keep a terminal's last column free: a full row leaves the cursor pending a wrap). */
  columns: () => number;
  /** The rows the output may redraw: the region shows at most half of them. */
  rows: () => number;
}

export class ThinkingRegion {
  private text = "";
  /** The text laid out at `width`: its complete lines, and the one being written. */
  private flow: FlowText;
  private width: number;
  private lines: string[] = [""];
  /** What is on screen: the region's lines. */
  private drawn: string[] = [];
  /** `outputOrder.writes` right after the last frame: redrawn in place only if nothing came since. */
  private writes = -1;
  private timer: NodeJS.Timeout | undefined;
  private readonly started = Date.now();

  constructor(
    private readonly sink: LineSink,
    private readonly options: ThinkingRegionOptions,
  ) {
    this.width = this.lineWidth();
    this.flow = this.newFlow();
  }

  push(delta: string): void {
    this.text += delta;
    this.add(this.flow.push(delta));
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.sink.writeLater(Promise.resolve(() => this.frame(this.region())));
    }, FRAME_MS);
  }

  /** The thinking ended: its region becomes the one-line summary (in the output order). Returns what it was. */
  end(): ThinkingData {
    this.stop();
    const seconds = Math.max(1, Math.round((Date.now() - this.started) / 1000));
    const summary = `▸ thought for ${seconds}s · ctrl-o to expand`;
    this.sink.writeLater(Promise.resolve(() => this.frame([this.sink.color ? `\x1b[2m${summary}\x1b[22m` : summary])));
    return { kind: "thinking", text: this.text, seconds };
  }

  /** No frame is drawn any more (awl is ending: the screen keeps the last one). */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private lineWidth(): number {
    return Math.max(20, this.options.columns());
  }

  private newFlow(): FlowText {
    return new FlowText(() => this.width, this.sink.color ? "" : MARK);
  }

  private add(out: string): void {
    const parts = out.split("\n");
    this.lines[this.lines.length - 1] += parts[0]!;
    this.lines.push(...parts.slice(1));
  }

  /** The region's lines now: the last ones laid out at the current width (all of it again after a resize). */
  private region(): string[] {
    if (this.lineWidth() !== this.width) {
      this.width = this.lineWidth();
      this.flow = this.newFlow();
      this.lines = [""];
      this.add(this.flow.push(this.text));
    }
    const lines = this.lines.at(-1) === "" ? this.lines.slice(0, -1) : this.lines;
    const shown = lines.slice(-Math.max(2, Math.floor(this.options.rows() / 2)));
    return this.sink.color ? shown.map((line) => `\x1b[2m${line}\x1b[22m`) : shown;
  }

  /** The text that turns the last frame on screen into `lines`. */
  private frame(lines: string[]): string {
    const inPlace = this.writes === outputOrder.writes;
    let from = 0;
    if (inPlace) while (from < lines.length && lines[from] === this.drawn[from]) from++;
    // The rows the lines below `from` take now (more than one each if the terminal was narrowed and re-wrapped them).
    const up = inPlace ? screenRows(this.drawn.slice(from).map(displayWidth), this.lineWidth() + 1) : 0;
    const unchanged = inPlace && from === lines.length && lines.length === this.drawn.length;
    this.drawn = lines;
    // `+ 1`: the write of this text, which follows (none when nothing changed).
    this.writes = outputOrder.writes + (unchanged ? 0 : 1);
    if (unchanged) return "";
    const body = lines.slice(from).map((line) => `${line}\x1b[K\n`).join("");
    return up > 0 ? `${SYNC_START}\x1b[${up}F${body}\x1b[J${SYNC_END}` : body;
  }
}
