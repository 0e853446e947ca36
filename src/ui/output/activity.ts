/**
 * A one-line "waiting for the model… 3s" indicator with a spinner (spinner.ts: turning with colour, a still `…`
 * without, redrawn then only as the seconds change), shown while nothing else shows that awl is working
 * (between sending a request and its first token). Drawn as the sink's transient status, so any other output
 * erases it first; only used on a terminal.
 */
import type { LineSink } from "./sink.js";
import { SPIN_MS, spinnerMark } from "./spinner.js";

export class ActivityLine {
  private timer: NodeJS.Timeout | undefined;
  private since = 0;
  private frame = 0;

  constructor(
    private readonly sink: LineSink,
    private readonly label = "waiting for the model…",
  ) {}

  /** Shows the indicator (from now) unless it is showing already. */
  start(): void {
    if (this.timer) return;
    this.since = Date.now();
    this.frame = 0;
    this.draw();
    this.timer = setInterval(() => this.draw(), this.sink.color ? SPIN_MS : 1000);
    this.timer.unref();
  }

  /** Erases it. */
  stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.sink.clearStatus();
  }

  private draw(): void {
    const seconds = Math.floor((Date.now() - this.since) / 1000);
    const text = `${spinnerMark(this.frame++, this.sink.color)} ${this.label}${seconds > 0 ? ` ${seconds}s` : ""}`;
    this.sink.showStatus(this.sink.color ? `\x1b[2m${text}\x1b[22m` : text);
  }
}
