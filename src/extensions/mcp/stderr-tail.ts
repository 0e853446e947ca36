/** The last lines a server wrote to stderr, kept for the message when it fails (`awl extensions` shows them). */

const MAX_LINES = 20;
const MAX_LINE_CHARS = 500;

export class StderrTail {
  private lines: string[] = [];
  private partial = "";

  push(chunk: Buffer | string): void {
    const text = this.partial + chunk.toString();
    const parts = text.split(/\r?\n/);
    this.partial = parts.pop()!.slice(-MAX_LINE_CHARS);
    for (const line of parts) if (line.trim() !== "") this.lines.push(line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line);
    if (this.lines.length > MAX_LINES) this.lines = this.lines.slice(-MAX_LINES);
  }

  /** The last `count` lines (the unterminated last one included). */
  last(count = 5): string[] {
    const all = this.partial.trim() !== "" ? [...this.lines, this.partial] : this.lines;
    return all.slice(-count);
  }
}
