/**
 * A streamed answer drawn as Markdown (render-markdown.ts) while it arrives. The text so far is laid out
 * again at each frame (at most one every {@link FRAME_MS}) and drawn as a live region at the bottom of the
 * output, redrawn from its first changed line only (text that just grows the last line is appended), inside
 * synchronized-output brackets. The part before the last blank line outside a code fence is complete: it is
 * laid out once per width and kept. A resize lays everything of the answer still on screen out again at the
 * new width. Lines that scroll above the screen (or anything written after the region) are final.
 */
import { outputOrder } from "../output/output-order.js";
import { SafeStream } from "../safe-text.js";
import type { LineSink } from "../output/sink.js";
import { displayWidth, screenRows } from "../output/width.js";
import { whenLoaded } from "./highlight.js";
import { renderMarkdown } from "./render-markdown.js";

/** The region is drawn at most this often while text streams. */
export const FRAME_MS = 33;
const SYNC_START = "\x1b[?2026h";
const SYNC_END = "\x1b[?2026l";

export interface MarkdownStreamOptions {
  /** The terminal's width and height now (read at every frame). */
  columns: () => number;
  rows: () => number;
}

export class MarkdownStream {
  private readonly safe = new SafeStream();
  private source = "";
  /** The complete part laid out at a width (kept while the width stays the same; only what is added is laid out). */
  private head: Head | undefined;
  /** What the last frame drew: every line of the answer, from which one on it is on screen and live. */
  private drawn: string[] = [];
  private drawnWidths: number[] = [];
  private live = 0;
  private drawnColumns = 0;
  /** `outputOrder.writes` right after the last frame: the region is redrawn in place only if nothing came since. */
  private writes = -1;
  private timer: NodeJS.Timeout | undefined;
  /** The frame due, waiting for the input already there to be handled first. */
  private due: NodeJS.Immediate | undefined;
  /** The text is complete: its last line is shown even when unfinished. */
  private ended = false;
  /** The last frame left the cursor at the end of its last line (its newline not written yet). */
  private open = false;
  /** Lines before this one are final: something else was written after them. */
  private final = 0;
  private readonly stopListening: () => void;

  constructor(
    private readonly sink: LineSink,
    private readonly options: MarkdownStreamOptions,
  ) {
    // A code fence's language loaded: the region is drawn again, coloured.
    this.stopListening = whenLoaded(() => this.schedule());
  }

  push(piece: string): void {
    this.source += this.safe.push(piece);
    this.schedule();
  }

  /** The terminal was resized: the answer is laid out again at the new width. */
  resize(): void {
    this.schedule();
  }

  /** The text ended: its final frame is drawn (in the output order, before anything written after). */
  end(): void {
    this.ended = true;
    this.safe.end();
    this.stop();
    this.frame();
  }

  /** No frame is drawn any more (awl is ending: the screen keeps the last one). */
  stop(): void {
    this.stopListening();
    clearTimeout(this.timer);
    clearImmediate(this.due);
    this.timer = this.due = undefined;
  }

  private schedule(): void {
    if (this.timer || this.due) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // Drawn after the input waiting now (a key typed): a keystroke is never held behind a frame due at the same time.
      this.due = setImmediate(() => {
        this.due = undefined;
        this.frame();
      });
    }, FRAME_MS);
  }

  /** Draws a frame at this point of the output (after what is waiting to be written, a tool block's render). */
  private frame(): void {
    this.sink.writeFrame(() => ({ text: this.frameText(), open: this.open }));
  }

  /**
   * The escape sequences and text that turn the screen's last frame into this one ("" when nothing changed). While
   * the text streams a frame leaves the cursor at the end of its last line (`open`), so the next one that only adds
   * to that line writes just what is new; the final frame ends the line.
   */
  frameText(): string {
    const text = this.nextFrame();
    // `+ 1`: the write of this text, which follows (none when nothing changed).
    this.writes = outputOrder.writes + (text === "" ? 0 : 1);
    return text;
  }

  private nextFrame(): string {
    const columns = this.options.columns();
    const { lines, widths } = this.layout(Math.max(10, columns - 1));
    const inPlace = this.writes === outputOrder.writes && this.drawn.length > 0;
    // Where the cursor is: at the end of the last line drawn (open), else at the start of the row below it.
    const open = inPlace && this.open;
    if (!inPlace) this.live = this.final = this.drawn.length;
    // Lines still on screen: the region is at most the screen's height.
    const rows = Math.max(2, this.options.rows() - 1);
    let from = Math.min(this.live, lines.length);
    // A last line taller than the screen is out of reach as a whole, but it can still grow: appended below.
    const end = this.drawn.length - 1;
    const sameWidth = inPlace && columns === this.drawnColumns;
    const grows = end >= 0 && lines.length > end && lines[end] !== this.drawn[end] && addedText(this.drawn[end]!, lines[end]!) !== undefined;
    if (sameWidth && this.live > end && end >= this.final && grows) from = end;
    if (columns === this.drawnColumns) while (from < lines.length && from < this.drawn.length && lines[from] === this.drawn[from]) from++;
    const unchanged = from === lines.length && lines.length === this.drawn.length;
    // Lines past the ones drawn go on rows nothing is on (below the region): no erase to the line's end needed.
    const fresh = inPlace ? this.drawn.length : lines.length;
    const added = sameWidth && !unchanged && from === end ? addedText(this.drawn[end]!, lines[from]!) : undefined;
    let out = "";
    if (added !== undefined) {
      // Only the end of the last line is new: written where it left off, on its last row (a line wider than the
      // screen ends on its last row); when it filled that row exactly, the row below the cursor is where it goes on.
      const filled = this.drawnWidths[end]! % columns;
      const move = open || (filled === 0 && this.drawnWidths[end]! > 0) ? "" : `\x1b[1F\x1b[${filled + 1}G`;
      // Text added after what is on screen cannot flicker: no synchronized-output brackets (they would be a
      // third of the bytes of a streamed paragraph).
      out = `${move}${added}${from + 1 < lines.length ? "\n" : ""}${body(lines, widths, from + 1, fresh, columns)}`;
    } else if (!unchanged) {
      // The rows from the first one redrawn down to the cursor's.
      const below = inPlace ? screenRows(this.drawnWidths.slice(from), columns) - (open ? 1 : 0) : 0;
      const up = Math.min(rows, below);
      // After a resize everything below the first redrawn row is cleared first: rows the terminal re-wrapped keep
      // their "wrapped" mark otherwise, and would be joined again at the next resize.
      const clear = inPlace && columns !== this.drawnColumns ? "\x1b[J" : "";
      out = body(lines, widths, from, fresh, columns);
      // Rows left below the new lines are erased (the region shrank): when it did not, every row was written over.
      const shrank = inPlace && screenRows(widths.slice(from), columns) < below + (open ? 1 : 0) ? "\x1b[J" : "";
      if (below < 0) out = `\n${out}`;
      // Only what overwrites lines on screen is bracketed: lines added below them cannot flicker.
      else if (below > 0 || open) out = `${SYNC_START}${up > 0 ? `\x1b[${up}F` : "\r"}${clear}${out}${shrank}${SYNC_END}`;
    }
    // While the text streams the cursor stays at the end of the last line, unless that line filled its row exactly
    // (the cursor waits on the row's last column then): the newline is written when something comes after it.
    const lastWidth = widths.at(-1) ?? 0;
    const keepOpen = !this.ended && lines.length > 0 && !(lastWidth > 0 && lastWidth % columns === 0);
    if (lines.length > 0 && !keepOpen && (out !== "" || open)) out += "\n";
    // A frame that wrote nothing left the cursor where it was.
    this.open = keepOpen && (out !== "" || open);
    this.drawn = lines;
    this.drawnWidths = widths;
    this.drawnColumns = columns;
    // Lines above the screen's top are out of reach from now on.
    let onScreen = 0;
    let top = lines.length;
    while (top > this.live && onScreen + screenRows([this.drawnWidths[top - 1]!], columns) <= rows) onScreen += screenRows([this.drawnWidths[--top]!], columns);
    this.live = top;
    return out;
  }

  /**
   * The answer's lines at `width` and their widths: the complete part (laid out as it grows, kept) and the part still
   * arriving (laid out anew).
   */
  private layout(width: number): { lines: string[]; widths: number[] } {
    if (this.head?.width !== width || this.source.length < this.head.end) this.head = { width, end: 0, segments: [], lines: [], widths: [] };
    const head = this.head;
    // The complete part ends outside any code fence, at the start of a line: the text after it is scanned alone.
    const source = this.ended ? this.source : shownSoFar(this.source, head.end);
    const { complete, fenceBody } = scanFences(source, head.end);
    if (complete > head.end) this.grow(head, source.slice(head.end, complete), width);
    head.end = complete;
    const tailText = source.slice(complete);
    let tail = tailText.trim() === "" ? [] : renderMarkdown(tailText, { width, color: this.sink.color });
    // A code block still arriving has no closing fence yet (nor, while empty, a blank line for its code): each code
    // line is then added below the last one, not drawn again with the fence under it.
    if (!this.ended && fenceBody !== undefined) tail = tail.slice(0, fenceBody === "" ? -2 : -1);
    const tailWidths = tail.map(displayWidth);
    if (head.lines.length === 0 || tail.length === 0) return tail.length === 0 ? head : { lines: tail, widths: tailWidths };
    return { lines: [...head.lines, "", ...tail], widths: [...head.widths, 0, ...tailWidths] };
  }

  /**
   * `text` (from a blank line to a blank line, outside code fences) added to the complete part: laid out alone when
   * nothing before can go on in it, else together with the part before it (a list's next item, an indented block).
   */
  private grow(head: Head, text: string, width: number): void {
    const first = /^.*\S.*$/m.exec(text)?.[0];
    if (first === undefined && head.segments.length > 0) return void (head.segments.at(-1)!.text += text);
    if (head.segments.length > 0 && first !== undefined && GOES_ON.test(first)) text = head.segments.pop()!.text + text;
    const lines = text.trim() === "" ? [] : renderMarkdown(text, { width, color: this.sink.color });
    head.segments.push({ text, lines, widths: lines.map(displayWidth) });
    // As renderMarkdown joins blocks: a blank line between two parts that have lines.
    head.lines = [];
    head.widths = [];
    for (const segment of head.segments) {
      if (segment.lines.length === 0) continue;
      if (head.lines.length > 0) {
        head.lines.push("");
        head.widths.push(0);
      }
      head.lines.push(...segment.lines);
      head.widths.push(...segment.widths);
    }
  }
}

/** The complete part of a streamed answer at one width: its parts, each laid out alone, and their lines joined. */
interface Head {
  width: number;
  /** Where the complete part ends in the text. */
  end: number;
  segments: { text: string; lines: string[]; widths: number[] }[];
  lines: string[];
  widths: number[];
}

/**
 * A first line after a blank line that may belong to a block before it: indented (a list item's next paragraph, an
 * indented code block) or a list item (the next item of a loose list).
 */
const GOES_ON = /^(?:\s|(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$))/;

const TRAILING_STYLES = /(?:\x1b\[[0-9;]*m)+$/;
const STYLE = /\x1b\[[0-9;]*m/g;

/**
 * What to write after `drawn` (on screen, its styles closed at its end) to make it `next`, when `next` only
 * adds text: the added part, or, when the last styled word grew (`**Part 1**` → `**Part 12**`), the styles in
 * force there set again and the rest. Undefined when `next` changes what is drawn.
 */
export function addedText(drawn: string, next: string): string | undefined {
  if (next.startsWith(drawn)) return next.slice(drawn.length);
  const kept = drawn.replace(TRAILING_STYLES, "");
  if (kept === drawn || !next.startsWith(kept)) return undefined;
  // Lines start unstyled: replaying the line's style changes so far gives the styles in force where it goes on.
  return `${(kept.match(STYLE) ?? []).join("")}${next.slice(kept.length)}`;
}

/**
 * `lines` from `from` on, one a row, the newline after the last one left out. Each line is cleared to its end (what
 * an earlier frame left there) unless it is `fresh` or later (a row nothing was drawn on), or fills its last row
 * exactly (the cursor waits on that row's last column, which a clear would erase).
 */
function body(lines: readonly string[], widths: readonly number[], from: number, fresh: number, columns: number): string {
  let out = "";
  for (let i = from; i < lines.length; i++) {
    const width = widths[i]!;
    const clear = i < fresh && !(width > 0 && width % columns === 0) ? "\x1b[K" : "";
    out += `${i > from ? "\n" : ""}${lines[i]}${clear}`;
  }
  return out;
}

/**
 * The streamed text to lay out now: all of it, except what would be drawn once and then taken back: an
 * unfinished last line of a table or a code block waits for its newline (drawn piece by piece it would redraw the
 * whole table, or recolour the code line, at every frame), a table's first row waits for the row under it (alone it
 * is a paragraph), and an unfinished line's trailing inline construct
 * (`` `code ``, `**bold`, `*em`, `[link](…`) waits until it closes, so its marks never flash raw.
 */
export function shownSoFar(text: string, from = 0): string {
  const cut = text.lastIndexOf("\n") + 1;
  const partial = text.slice(cut);
  if (partial === "") return heldHeader(text, from);
  if (TABLE_ROW.test(partial) || (cut >= from && scanFences(text.slice(0, cut), from).fenceBody !== undefined)) return heldHeader(text.slice(0, cut), from);
  return text.slice(0, cut + closedPart(partial));
}

const TABLE_ROW = /^ {0,3}\|/;

/**
 * `text` (whole lines) without its last line when that line may be a table's header row whose separator row has not
 * come yet: drawn now it would be a paragraph, drawn again as a table a moment later.
 */
function heldHeader(text: string, from: number): string {
  const lines = text.split("\n");
  // The last line is empty (`text` ends with its newline): the header candidate is the one before.
  const last = lines.at(-2);
  const before = lines.at(-3);
  if (last === undefined || !TABLE_ROW.test(last) || (before !== undefined && TABLE_ROW.test(before))) return text;
  if (scanFences(text, from).fenceBody !== undefined) return text;
  return text.slice(0, text.length - last.length - 1);
}

/** How much of an unfinished line shows: up to its first inline construct still open. */
function closedPart(line: string): number {
  let end = line.length;
  const ticks = [...line.matchAll(/`+/g)];
  if (ticks.length % 2 === 1) end = ticks.at(-1)!.index;
  const link = line.lastIndexOf("[", end);
  if (link >= 0 && !/\]\([^)]*\)/.test(line.slice(link, end))) end = link;
  // A list's own marker (`* item`) is not emphasis.
  const from = /^\s*\* /.exec(line)?.[0].length ?? 0;
  for (const mark of [/\*\*/g, /(?<!\*)\*(?!\*)/g]) {
    const marks = [...line.slice(from, end).matchAll(mark)];
    if (marks.length % 2 === 1) end = from + marks.at(-1)!.index;
  }
  return end;
}

/** Where the complete part of streamed Markdown ends: after its last blank line outside a code fence (0: none). */
export function completePart(text: string): number {
  return scanFences(text).complete;
}

/**
 * One pass over the lines from `from` (a line's start outside any code fence): where the last blank line outside a
 * code fence ends (`from` when there is none), and, when `text` ends inside a code fence, what that fence holds so
 * far (undefined: no fence open at the end).
 */
function scanFences(text: string, from = 0): { complete: number; fenceBody: string | undefined } {
  let fence: string | undefined;
  let end = from;
  let at = from;
  let opened = 0;
  for (const line of text.slice(from).split("\n")) {
    const next = at + line.length + 1;
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker) {
      fence = marker;
      opened = Math.min(next, text.length);
    } else if (fence !== undefined && marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined;
    else if (fence === undefined && line.trim() === "" && next <= text.length) end = next;
    at = next;
  }
  return { complete: end, fenceBody: fence === undefined ? undefined : text.slice(opened) };
}
