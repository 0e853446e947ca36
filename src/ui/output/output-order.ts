/**
 * One queue for everything the CLI's LineSinks write, so output keeps its order when part of it is not ready
 * yet: a tool block whose body comes from an extension's `render(state, view)` (asynchronous, in a Lua worker)
 * keeps its place, and the text written after it (the next answer, the turn's end) waits behind it.
 * When nothing is pending, writes go straight through.
 */

/** Where text goes: a terminal, a pipe, a file (a LineSink writes through one). */
export interface Writer {
  write(text: string): unknown;
}

type Step = { write: () => void } | { later: Promise<() => void> };

/** What every write goes through while it is set: rows kept below the output (turn-pane.ts). */
export interface OutputFrame {
  /** `lineOpen`: the write leaves the cursor at the end of a line whose newline is still to come (`OutputOrder.direct`). */
  write(writer: Writer, text: string, lineOpen: boolean): void;
}

export class OutputOrder {
  private readonly steps: Step[] = [];
  private draining: Promise<void> | undefined;
  /** Writes done so far: a live block redraws in place only when nothing else was written since it drew. */
  writes = 0;
  private ended = false;
  /** Set while a turn runs in the interactive mode. */
  frame: OutputFrame | undefined;
  /** Where a live region left the cursor at the end of its last line (see `direct`'s `leaveOpen`). */
  private openLine: Writer | undefined;

  write(writer: Writer, text: string): void {
    if (this.ended) return;
    if (!this.draining) return this.direct(writer, text);
    this.steps.push({ write: () => this.direct(writer, text) });
  }

  /** Runs what `later` resolves to at this point of the output; later writes wait for it. `later` must not reject. */
  writeLater(later: Promise<() => void>): void {
    if (this.ended) return;
    this.steps.push({ later });
    this.draining ??= this.drain();
  }

  /** Resolves once everything queued is written. */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  /**
   * Writes now, ahead of the queue (the queue's own steps). `leaveOpen`: the text leaves the cursor at the end of
   * its last line, its newline still to come (a live region's frame): whatever is written next, by anyone, first
   * ends that line, so a frame that only adds to it can write just what is new.
   */
  direct(writer: Writer, text: string, leaveOpen = false): void {
    if (this.ended) return;
    const open = this.openLine;
    this.openLine = leaveOpen ? writer : undefined;
    // The line a live region left open is ended first: what comes now starts on a line of its own.
    if (open && open !== writer) this.send(open, "\n", false);
    this.send(writer, open === writer ? `\n${text}` : text, leaveOpen);
    this.writes++;
  }

  /** The region that left its line open draws its next frame from the line's end (nothing was written since). */
  resumeLine(): void {
    this.openLine = undefined;
  }

  /** The line stays open after a frame that wrote nothing. */
  keepLineOpen(writer: Writer): void {
    this.openLine = writer;
  }

  /** awl is ending abruptly and the screen is final: nothing more is written, queued or not. */
  end(): void {
    this.ended = true;
    this.steps.length = 0;
  }

  private send(writer: Writer, text: string, lineOpen: boolean): void {
    if (this.frame) this.frame.write(writer, text, lineOpen);
    else writer.write(text);
  }

  private async drain(): Promise<void> {
    try {
      for (let step = this.steps.shift(); step; step = this.steps.shift()) {
        if ("write" in step) step.write();
        else (await step.later)();
      }
    } finally {
      this.draining = undefined;
    }
  }
}

/** The process has one terminal, so every sink shares one order. */
export const outputOrder = new OutputOrder();
