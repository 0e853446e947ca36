/**
 * An append buffer for streamed text: amortised O(1) appends, joined once when read.
 * (The seed's TextualBlock.) Never re-copies the whole string per delta.
 */
export class TextBuffer {
  private parts: string[] = [];
  private joined = "";
  private dirty = false;
  private size = 0;

  append(delta: string): void {
    if (delta.length === 0) return;
    this.parts.push(delta);
    this.size += delta.length;
    this.dirty = true;
  }

  /** Length in UTF-16 code units. */
  get length(): number {
    return this.size;
  }

  toString(): string {
    if (this.dirty) {
      this.joined = this.joined + this.parts.join("");
      this.parts = [];
      this.dirty = false;
    }
    return this.joined;
  }
}
