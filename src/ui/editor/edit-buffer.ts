/**
 * The text being typed at the prompt and the cursor in it: insertion, deletion and movement by characters
 * (grapheme clusters, so an emoji is one), words and lines. The text may hold newlines (a multi-line prompt).
 * Pure state; the editor (line-editor.ts) draws it.
 */
import { graphemes } from "../output/width.js";

/** Enough context to find the grapheme next to the cursor (a cluster is far shorter). */
const CONTEXT = 64;

export class EditBuffer {
  text = "";
  /** An index into `text`, always at a character boundary. */
  cursor = 0;

  /** Replaces the whole text; the cursor goes to its end. */
  set(text: string): void {
    this.text = text;
    this.cursor = text.length;
  }

  insert(text: string): void {
    this.text = this.text.slice(0, this.cursor) + text + this.text.slice(this.cursor);
    this.cursor += text.length;
  }

  backspace(): void {
    this.deleteRange(this.previousBoundary(), this.cursor);
  }

  deleteForward(): void {
    this.deleteRange(this.cursor, this.nextBoundary());
  }

  left(): void {
    this.cursor = this.previousBoundary();
  }

  right(): void {
    this.cursor = this.nextBoundary();
  }

  wordLeft(): void {
    this.cursor = this.wordStartBefore();
  }

  wordRight(): void {
    this.cursor = this.wordEndAfter();
  }

  deleteWordBefore(): void {
    this.deleteRange(this.wordStartBefore(), this.cursor);
  }

  deleteWordAfter(): void {
    this.deleteRange(this.cursor, this.wordEndAfter());
  }

  /** To the start / end of the cursor's line. */
  home(): void {
    this.cursor = this.lineStart();
  }

  end(): void {
    this.cursor = this.lineEnd();
  }

  deleteToStart(): void {
    this.deleteRange(this.lineStart(), this.cursor);
  }

  deleteToEnd(): void {
    this.deleteRange(this.cursor, this.lineEnd());
  }

  /** To the previous line, at the same offset where it is long enough; false on the first line. */
  up(): boolean {
    const start = this.lineStart();
    if (start === 0) return false;
    const previousStart = start < 2 ? 0 : this.text.lastIndexOf("\n", start - 2) + 1;
    this.cursor = Math.min(previousStart + (this.cursor - start), start - 1);
    return true;
  }

  /** To the next line, at the same offset where it is long enough; false on the last line. */
  down(): boolean {
    const end = this.lineEnd();
    if (end === this.text.length) return false;
    const nextEnd = this.text.indexOf("\n", end + 1);
    this.cursor = Math.min(end + 1 + (this.cursor - this.lineStart()), nextEnd === -1 ? this.text.length : nextEnd);
    return true;
  }

  private lineStart(): number {
    return this.cursor === 0 ? 0 : this.text.lastIndexOf("\n", this.cursor - 1) + 1;
  }

  private lineEnd(): number {
    const end = this.text.indexOf("\n", this.cursor);
    return end === -1 ? this.text.length : end;
  }

  private previousBoundary(): number {
    if (this.cursor === 0) return 0;
    const before = graphemes(this.text.slice(Math.max(0, this.cursor - CONTEXT), this.cursor));
    return this.cursor - (before[before.length - 1]?.length ?? 1);
  }

  private nextBoundary(): number {
    if (this.cursor === this.text.length) return this.cursor;
    return this.cursor + (graphemes(this.text.slice(this.cursor, this.cursor + CONTEXT))[0]?.length ?? 1);
  }

  private wordStartBefore(): number {
    const match = /\S*\s*$/u.exec(this.text.slice(0, this.cursor));
    return this.cursor - (match?.[0].length ?? 0);
  }

  private wordEndAfter(): number {
    const match = /^\s*\S*/u.exec(this.text.slice(this.cursor));
    return this.cursor + (match?.[0].length ?? 0);
  }

  private deleteRange(from: number, to: number): void {
    if (from >= to) return;
    this.text = this.text.slice(0, from) + this.text.slice(to);
    this.cursor = from;
  }
}
