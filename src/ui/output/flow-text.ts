/**
 * Streamed text (the model's answer or thinking) laid out for a terminal as it arrives: made safe
 * (safe-text.ts), wrapped at word boundaries for the terminal's current width, wide characters counted by
 * their columns. A word is written once it is complete (the next space or newline shows where it ends), so a
 * word never breaks across lines unless it is wider than a whole line. An optional prefix marks every line
 * (`(thinking) ` when there is no colour to set thinking apart).
 */
import { SafeStream } from "../safe-text.js";
import { displayWidth, graphemes } from "./width.js";

const TAB_STOP = 8;

export class FlowText {
  private readonly safe = new SafeStream();
  /** Columns used on the current line, the prefix included; 0 before anything is written on it. */
  private column = 0;
  /** The word being received (not written yet), and its width. */
  private word = "";
  private wordWidth = 0;
  /** Spaces and tabs between the written text and the pending word. */
  private space = "";
  private readonly prefixWidth: number;

  constructor(
    /** The terminal's width now (read at every line decision: a resize applies from the next word on). */
    private readonly width: () => number,
    private readonly prefix = "",
  ) {
    this.prefixWidth = displayWidth(prefix);
  }

  /** The text to write for the next piece of the stream. */
  push(piece: string): string {
    const text = this.safe.push(piece);
    let out = "";
    for (const g of graphemes(text)) {
      if (g === "\n" || g === "\r\n") {
        out += this.placeWord() + "\n";
        this.column = 0;
        this.space = "";
      } else if (g === " " || g === "\t") {
        out += this.placeWord();
        this.space += g;
      } else {
        this.word += g;
        this.wordWidth += displayWidth(g);
        // A word wider than a line is cut at the edge as it arrives rather than held back.
        if (this.wordWidth >= this.lineWidth()) out += this.placeWord();
      }
    }
    return out;
  }

  /** The rest (a last word) once the stream ended; the next text starts a new line. */
  end(): string {
    this.safe.end();
    const out = this.placeWord();
    this.space = "";
    this.column = 0;
    return out;
  }

  private lineWidth(): number {
    return Math.max(this.prefixWidth + 10, this.width());
  }

  /** Writes the pending spaces and word: on this line when it fits, else on the next one (the spaces dropped). */
  private placeWord(): string {
    if (this.word === "") return "";
    const width = this.lineWidth();
    let out = "";
    const start = this.column === 0 ? this.prefixWidth : this.column;
    const spaces = expandTabs(this.space, start);
    if (this.column > 0 && start + spaces.length + this.wordWidth > width) {
      out += "\n";
      this.column = 0;
    } else {
      out += this.startLine() + spaces;
      this.column += spaces.length;
    }
    for (const g of graphemes(this.word)) {
      const w = displayWidth(g);
      if (this.column > this.prefixWidth && this.column + w > width) {
        out += "\n";
        this.column = 0;
      }
      out += this.startLine() + g;
      this.column += w;
    }
    this.word = "";
    this.wordWidth = 0;
    this.space = "";
    return out;
  }

  /** The prefix, when the current line is still empty. */
  private startLine(): string {
    if (this.column > 0) return "";
    this.column = this.prefixWidth;
    return this.prefix;
  }
}

/** Tabs as spaces up to the next tab stop, counted from `column`. */
function expandTabs(space: string, column: number): string {
  let out = "";
  for (const c of space) out += c === "\t" ? " ".repeat(TAB_STOP - ((column + out.length) % TAB_STOP)) : c;
  return out;
}
