/**
 * A list to choose from below the prompt (the `/resume` and `awl -r` session picker): typing filters it (every
 * word must appear, in any case), Up/Down move, Enter chooses, Esc or Ctrl-C leaves it. Drawn in place and
 * redrawn only when something changed; one row per item, cut to the width so nothing wraps.
 */
import type { KeyEvent } from "../editor/key-decoder.js";
import { fitWidth as fitToWidth } from "../output/width.js";
import { stripControls } from "../safe-text.js";

export interface PickerItem<T> {
  value: T;
  /** One line: what the item is. */
  label: string;
  /** Searched too, not shown (e.g. the whole first prompt). */
  search?: string;
  /** Marked as the one in use (e.g. the current session). */
  current?: boolean;
}

export interface PickerOptions {
  title: string;
  /** What follows the item in use (default "(current)"). */
  currentLabel?: string;
  /** Rows of items shown at once (the list scrolls). */
  rows?: number;
  columns(): number;
}

/** Draws the picker on `out` and resolves with the chosen value, or undefined when left without a choice. */
export class Picker<T> {
  private query = "";
  private selected = 0;
  private first = 0;
  private drawnRows = 0;
  private done: ((value: T | undefined) => void) | undefined;
  readonly result: Promise<T | undefined>;

  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly items: readonly PickerItem<T>[],
    private readonly options: PickerOptions,
  ) {
    this.result = new Promise((resolve) => (this.done = resolve));
    const current = items.findIndex((item) => item.current);
    this.selected = Math.max(0, current);
    this.draw();
  }

  /** The items the query leaves. */
  private get shown(): readonly PickerItem<T>[] {
    const words = this.query.toLowerCase().split(/\s+/).filter(Boolean);
    if (words.length === 0) return this.items;
    return this.items.filter((item) => {
      const text = `${item.label} ${item.search ?? ""}`.toLowerCase();
      return words.every((word) => text.includes(word));
    });
  }

  handle(event: KeyEvent): void {
    if (!this.done) return;
    const count = this.shown.length;
    if (event.kind === "text" || event.kind === "paste") {
      this.query += event.text.replace(/[\r\n]+/g, " ");
      this.selected = 0;
    } else {
      switch (event.name) {
        case "up":
          this.selected = count === 0 ? 0 : (this.selected - 1 + count) % count;
          break;
        case "down":
          this.selected = count === 0 ? 0 : (this.selected + 1) % count;
          break;
        case "backspace":
          this.query = [...this.query].slice(0, -1).join("");
          this.selected = 0;
          break;
        case "delete-to-start":
        case "delete-word-before":
          this.query = "";
          this.selected = 0;
          break;
        case "enter":
          return this.finish(this.shown[this.selected]?.value);
        case "escape":
        case "interrupt":
        case "eof":
          return this.finish(undefined);
        default:
          return;
      }
    }
    this.draw();
  }

  /** Leaves without a choice (e.g. the terminal closed). */
  cancel(): void {
    this.finish(undefined);
  }

  private finish(value: T | undefined): void {
    this.clear();
    const done = this.done;
    this.done = undefined;
    done?.(value);
  }

  private draw(): void {
    const columns = Math.max(10, this.options.columns() - 1);
    const rows = this.options.rows ?? 10;
    const shown = this.shown;
    if (this.selected < this.first) this.first = this.selected;
    if (this.selected >= this.first + rows) this.first = this.selected - rows + 1;
    this.first = Math.max(0, Math.min(this.first, Math.max(0, shown.length - rows)));
    const lines = [
      fitToWidth(`${this.options.title} · type to search, ↑↓ choose, Enter opens, Esc leaves`, columns),
      fitToWidth(`search: ${stripControls(this.query)}`, columns),
    ];
    if (shown.length === 0) lines.push(fitToWidth("  (nothing matches)", columns));
    for (let i = this.first; i < Math.min(shown.length, this.first + rows); i++) {
      const item = shown[i]!;
      const marker = i === this.selected ? "❯ " : "  ";
      lines.push(fitToWidth(`${marker}${stripControls(item.label)}${item.current ? `  ${this.options.currentLabel ?? "(current)"}` : ""}`, columns));
    }
    if (shown.length > rows) lines.push(fitToWidth(`  ${shown.length} in all; ${this.first + 1}–${Math.min(shown.length, this.first + rows)} shown`, columns));
    this.clear();
    this.out.write(lines.join("\n") + "\n");
    this.drawnRows = lines.length;
  }

  /** Erases what the last draw wrote: up that many rows, then clear to the end of the screen. */
  private clear(): void {
    if (this.drawnRows > 0) this.out.write(`\x1b[${this.drawnRows}A\r\x1b[J`);
    this.drawnRows = 0;
  }
}
