/**
 * The tool blocks of a turn (src/ui/output/tool-block.ts draws one). Two ways to show them:
 * - `redraw` (a terminal): each block appears when its call starts and is redrawn in place as `ctx:show`,
 *   `ctx:title` and `ctx:progress` updates arrive, at most every {@link REDRAW_INTERVAL_MS} (updates in between
 *   are coalesced), each redraw bracketed by synchronized-output escapes so it never flickers. The blocks drawn
 *   since the last other output form a region that is redrawn as a unit (calls run in parallel); once
 *   something else was written below, or the region no longer fits the screen, blocks are no longer redrawn
 *   in place: each is printed once, when its call ends.
 * - otherwise (a pipe, print mode): each block is printed once, when its call and every call started before
 *   it have ended, so parallel calls print in the model's order whichever finishes first.
 * Bodies are rendered asynchronously; the shared output order (output-order.ts) keeps each block at its place.
 * Lines are fitted to the terminal's width in display columns (wide characters count two); after a resize
 * (`relayout`) the live region is erased as the terminal now shows it (re-wrapped to the new width) and drawn
 * again for the new width.
 */
import type { ToolResultBlock } from "../../model/blocks.js";
import type { ToolCall, ToolOutcome, ToolProgress, ToolSet } from "../../tools/types.js";
import { outputOrder } from "./output-order.js";
import { claimToolLogs } from "./tool-logs.js";
import type { LineSink } from "./sink.js";
import { drawBlock, LOG_LINES, renderBody, type BlockView, type RenderedBody, type ToolBlockData } from "./tool-block.js";
import { displayWidth, screenRows } from "./width.js";
import { changedCells } from "./cell-diff.js";
import { SPIN_MS, spinnerMark } from "./spinner.js";

/** Redraws of the live blocks happen at most this often. */
export const REDRAW_INTERVAL_MS = 50;
/** How long a running block's drawing waits for its body's render before it shows the body it has. */
const RENDER_GRACE_MS = 100;
/** Body lines of a block when the user did not ask for full output. */
const BODY_HEIGHT = 10;
const SYNC_START = "\x1b[?2026h";
const SYNC_END = "\x1b[?2026l";

export interface ToolBlockOptions {
  /** Renders bodies (`ToolSet.render`); without it, blocks show the fallback text. */
  tools?: ToolSet;
  /** Redraw blocks in place as updates arrive (the sink is a terminal). Default false: once, at the end. */
  redraw?: boolean;
  /** With `redraw`: running blocks show how long they have run, updated every second. */
  elapsed?: boolean;
  /** With `redraw`: running blocks' marks turn (spinner.ts; a terminal with colour). */
  spinner?: boolean;
  /** The terminal's size; default the process's stdout (read at every drawing), else 100 × 24. */
  columns?: number;
  /** The sink is not a terminal: lines are written whole, never cut to a width. */
  whole?: boolean;
  /** The rows the blocks may redraw in (a function: asked at every drawing). */
  rows?: number | (() => number);
}

interface Block {
  /** What the call has told so far. */
  data: ToolBlockData;
  /** The data a drawing shows (the header; the body as last rendered). */
  drawn: ToolBlockData;
  body: RenderedBody;
  /** What `body` was rendered from. */
  bodyFor: { shown: ToolBlockData["shown"]; status: ToolBlockData["status"]; view: BlockView };
  /** A render in flight (never awaited by a running block's drawing: its header stays live meanwhile). */
  rendering?: Promise<void>;
  /** The data changed since it was last drawn. */
  dirty: boolean;
  /** Its final form is on screen. */
  done: boolean;
  /** Print-once mode: the final drawing, once the call ended. */
  final?: Promise<() => string>;
  /** When the call started (Date.now()). */
  started: number;
}

export class ToolBlocks {
  private readonly blocks = new Map<string, Block>();
  /** The blocks whose calls ended, in that order (what an expand key shows again). */
  readonly ended: ToolBlockData[] = [];
  /** Print-once mode: blocks in the order their calls started, waiting for their turn to be printed. */
  private printQueue: Block[] = [];
  /** Live blocks drawn together at the bottom of the output, and how many lines they took. */
  private region: Block[] = [];
  /** The region's last drawing: its lines, the display width of each, and the terminal width it was drawn at. */
  private regionLines: string[] = [];
  private regionWidths: number[] = [];
  private regionColumns = 0;
  /** `outputOrder.writes` right after the region was drawn; -1: not drawn yet. */
  private regionWrites = -1;
  private timer: NodeJS.Timeout | undefined;
  private flushing = 0;
  private lastFlush = 0;
  /** Redraws the running blocks' elapsed time and spinner (options `elapsed`, `spinner`). */
  private ticker: NodeJS.Timeout | undefined;
  /** The spinner's frame. */
  private frame = 0;
  private closed = false;
  /** A question is on screen: nothing is drawn (`hold`). */
  private held = false;
  /** The region's drawing was erased (`hold`): its next drawing is all of it, below what came since. */
  private erased = false;
  private view: BlockView;
  /** A body finished rendering since the last drawing. */
  private rendered = false;
  /** Gives back what tool calls print (redraw mode claims it while the turn runs). */
  private readonly unclaim: (() => void) | undefined;

  constructor(
    private readonly sink: LineSink,
    private readonly options: ToolBlockOptions = {},
  ) {
    this.view = this.currentView();
    if (options.redraw) this.unclaim = claimToolLogs((callId, text) => this.log(callId, text));
  }

  /** Lines the call printed, kept inside its block while it runs; false when it has no live block. */
  private log(callId: string, text: string): boolean {
    const block = this.blocks.get(callId);
    if (!block || !this.region.includes(block)) return false;
    const printed = (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n");
    const logs = block.data.logs ?? { lines: [], total: 0 };
    block.data = { ...block.data, logs: { lines: [...logs.lines, ...printed].slice(-LOG_LINES), total: logs.total + printed.length } };
    block.dirty = true;
    this.flushSoon();
    return true;
  }

  /** Asked of the terminal at each drawing (not the size at the last resize event, which may lag behind). */
  private get columns(): number {
    return this.options.columns ?? ((process.stdout.isTTY ? process.stdout.getWindowSize()[0] : 0) || 100);
  }

  private get rows(): number {
    const rows = this.options.rows;
    return (typeof rows === "function" ? rows() : rows) ?? (process.stdout.isTTY ? process.stdout.rows : undefined) ?? 24;
  }

  private currentView(): BlockView {
    return { width: Math.max(20, this.columns - 3), height: BODY_HEIGHT, expand: false };
  }

  /** The terminal was resized: the live blocks are drawn again for its new width. */
  relayout(): void {
    const view = this.currentView();
    if (view.width === this.view.width) return;
    this.view = view;
    if (!this.options.redraw || this.region.length === 0) return;
    for (const block of this.region) block.dirty = true;
    this.flushSoon();
  }

  /**
   * A question is about to be written below the output (a permission prompt): the live blocks are taken off the
   * screen and not drawn again until {@link release}, so no spinner is drawn into what the user types and no
   * frozen copy of a block stays above the question.
   */
  hold(): void {
    if (!this.options.redraw || this.held) return;
    this.held = true;
    clearTimeout(this.ticker);
    this.ticker = undefined;
    this.sink.writeLater(Promise.resolve(() => this.eraseRegion()));
  }

  /** The question was answered: the live blocks are drawn again below it. */
  release(): void {
    if (!this.held) return;
    this.held = false;
    for (const block of this.region) block.dirty = true;
    this.flushSoon();
  }

  /** Erases the region's last drawing while it is still the last thing on screen. */
  private eraseRegion(): string {
    if (this.regionWrites !== outputOrder.writes || this.regionLines.length === 0) return "";
    const rows = screenRows(this.regionWidths, this.regionColumns);
    this.regionWrites = -1;
    this.erased = true;
    return `${SYNC_START}\x1b[${rows}F\x1b[J${SYNC_END}`;
  }

  /** Stops redrawing elapsed times (the turn is over). */
  close(): void {
    this.closed = true;
    this.unclaim?.();
    clearTimeout(this.ticker);
    this.ticker = undefined;
  }

  /**
   * awl is ending abruptly: the live blocks are drawn at once in their final form, the running ones marked
   * stopped with `note` (their renders are not waited for).
   */
  interrupt(note: string): void {
    this.close();
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.options.redraw || this.region.length === 0) return;
    for (const block of this.region) {
      if (block.data.status === "running") block.data = { ...block.data, status: "cancelled", result: note };
      block.drawn = block.data;
    }
    this.sink.writeNow(this.drawRegion());
  }

  start(call: ToolCall): void {
    const data: ToolBlockData = { name: call.name, input: call.input, status: "running", ...(this.options.spinner && { spinner: spinnerMark(this.frame, true) }) };
    const block: Block = { data, drawn: data, body: {}, bodyFor: { shown: undefined, status: "running", view: this.view }, dirty: false, done: false, started: Date.now() };
    this.blocks.set(call.id, block);
    if (!this.options.redraw) {
      this.printQueue.push(block);
      return;
    }
    this.region.push(block);
    this.flushSoon();
  }

  update(call: ToolCall, update: ToolProgress): void {
    const block = this.blocks.get(call.id);
    if (!block) return;
    if (update.kind === "show") block.data = { ...block.data, shown: { state: update.state } };
    else if (update.kind === "title") block.data = { ...block.data, title: update.text };
    else block.data = { ...block.data, progress: { fraction: update.fraction, ...(update.detail !== undefined && { detail: update.detail }) } };
    block.dirty = true;
    if (this.options.redraw) this.flushSoon();
  }

  end(call: ToolCall, outcome: ToolOutcome, result: ToolResultBlock): void {
    const block = this.blocks.get(call.id);
    if (!block) return;
    this.blocks.delete(call.id);
    const snapshot = outcome.status === "result" && outcome.snapshot !== undefined && !block.data.shown ? { shown: { state: outcome.snapshot } } : {};
    const status = outcome.status === "cancelled" ? "cancelled" : result.is_error ? "error" : "ok";
    block.data = { ...block.data, ...snapshot, status, result: resultText(outcome, result), full: result.content };
    this.ended.push(block.data);
    block.dirty = true;
    if (!this.options.redraw) {
      block.done = true;
      const data = block.data;
      const body = renderBody(this.options.tools, data, this.view);
      block.final = body.then((rendered) => () => lineText(drawBlock(data, rendered, this.view, this.sink.color, this.options.whole)));
      while (this.printQueue[0]?.final) this.sink.writeLater(this.printQueue.shift()!.final!);
      return;
    }
    // The final form is drawn without the coalescing delay.
    clearTimeout(this.timer);
    this.timer = undefined;
    this.flush();
  }

  /**
   * A call that had ended before awl heard of it (a tool the provider ran itself, its web search): printed once, in
   * the output's order, after any block printed before it.
   */
  printEnded(data: ToolBlockData): void {
    this.ended.push(data);
    const final = Promise.resolve(() => lineText(drawBlock(data, {}, this.view, this.sink.color, this.options.whole)));
    if (this.options.redraw) return this.sink.writeLater(final);
    this.printQueue.push({ data, drawn: data, body: {}, bodyFor: { shown: undefined, status: data.status, view: this.view }, dirty: false, done: true, final, started: Date.now() });
    while (this.printQueue[0]?.final) this.sink.writeLater(this.printQueue.shift()!.final!);
  }

  /** Coalesces updates: a flush at most every REDRAW_INTERVAL_MS, and none while one is rendering. */
  private flushSoon(): void {
    if (this.timer || this.flushing > 0 || this.held) return;
    const wait = Math.max(0, this.lastFlush + REDRAW_INTERVAL_MS - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, wait);
  }

  /**
   * Redraws the region at its place in the output, and renders (in the background) the bodies whose state
   * changed: a running block is drawn at once with the body it has, so its title, progress and elapsed time
   * stay live however long a render takes; a block that ended is drawn once its final body is rendered.
   */
  private flush(): void {
    this.flushing++;
    this.lastFlush = Date.now();
    this.rendered = false;
    for (const block of this.region) {
      if (!block.dirty) continue;
      block.dirty = false;
      block.drawn = block.data;
      this.renderIfStale(block);
    }
    // A running block's render gets a moment (usually enough: one drawing); a block that ended waits for its own.
    let grace: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (grace = setTimeout(resolve, RENDER_GRACE_MS)));
    const waits = this.region.map((b) => (b.drawn.status === "running" ? Promise.race([settled(b), late]) : settled(b)));
    const drawing = Promise.all(waits).then(() => {
      clearTimeout(grace);
      return () => this.drawRegion();
    });
    this.sink.writeLater(
      drawing.finally(() => {
        this.flushing--;
        if (this.rendered || this.region.some((b) => b.dirty)) this.flushSoon();
        this.tickSoon();
      }),
    );
  }

  /** Starts rendering the block's body unless it is current or a render is in flight (which checks again when done). */
  private renderIfStale(block: Block): void {
    const { shown, status } = block.drawn;
    const view = this.view;
    if (block.rendering || bodyIsCurrent(block, view)) return;
    const data = block.drawn;
    block.rendering = renderBody(this.options.tools, data, view).then((body) => {
      block.body = body;
      block.bodyFor = { shown, status, view };
      block.rendering = undefined;
      this.renderIfStale(block);
      this.rendered = true;
      this.flushSoon();
    });
  }

  /**
   * With `elapsed`: the running blocks' headers are redrawn when their elapsed second changes; with `spinner`,
   * every time it turns (only the cells that changed are written: see `drawRegion`).
   */
  private tickSoon(): void {
    const { elapsed, spinner } = this.options;
    if (!(elapsed || spinner) || this.ticker || this.closed || this.held) return;
    const running = this.region.filter((b) => b.data.status === "running");
    if (running.length === 0) return;
    this.ticker = setTimeout(() => {
      this.ticker = undefined;
      const now = Date.now();
      const mark = spinnerMark(++this.frame, true);
      for (const block of running) {
        if (block.data.status !== "running") continue;
        block.data = { ...block.data, ...(elapsed && { elapsedMs: now - block.started }), ...(spinner && { spinner: mark }) };
        block.dirty = true;
      }
      this.flushSoon();
    }, spinner ? SPIN_MS : 1000 - ((Date.now() - running[0]!.started) % 1000));
    this.ticker.unref();
  }

  /** The region's text: erases its last drawing (when still the last thing on screen) and draws it again. */
  private drawRegion(): string {
    if (this.held) return "";
    const columns = this.columns;
    const inPlace = this.regionWrites === outputOrder.writes;
    if (!inPlace && !this.erased) {
      // Something else was written below it (or it was never drawn): what is on screen stays.
      this.region = this.region.filter((b) => !b.done);
    }
    this.erased = false;
    if (this.region.length === 0) return "";
    const lines = this.region.flatMap((b) => drawBlock(b.drawn, b.body, this.view, this.sink.color, this.options.whole));
    if (lines.length >= this.rows) {
      // Too tall to redraw in place: the screen stays as it is; blocks that ended are printed once.
      const ended = this.region.filter((b) => hasEnded(b, this.view));
      for (const b of ended) b.done = true;
      this.region = this.region.filter((b) => !b.done);
      this.regionWrites = -1;
      return lineText(ended.flatMap((b) => drawBlock(b.drawn, b.body, this.view, this.sink.color, this.options.whole)));
    }
    // A drawing that was waiting for a running block's body may find the block ended meanwhile: it is drawn
    // with the body it has and stays in place until the drawing that waits for its final body.
    for (const b of this.region) b.done = hasEnded(b, this.view);
    const previous = this.regionLines;
    // Only cells changed (a spinner turned, a second ticked): just those are written.
    const cells = inPlace && columns === this.regionColumns ? cellChanges(previous, lines, this.regionWidths, columns) : undefined;
    // Drawn again in place from the first line that changed (all of it when the width changed).
    let from = 0;
    if (inPlace && columns === this.regionColumns) while (from < lines.length && lines[from] === previous[from]) from++;
    const rowsUp = inPlace ? screenRows(this.regionWidths.slice(from), columns) : 0;
    this.regionLines = lines;
    this.regionColumns = columns;
    this.regionWidths = lines.map(displayWidth);
    // A region whose blocks all ended is final: the next block starts a new one.
    const final = this.region.every((b) => b.done);
    if (final) this.region = [];
    // Nothing changed: nothing is written (the region stays the last thing on screen).
    if (inPlace && from === lines.length && lines.length === previous.length) {
      this.regionWrites = final ? -1 : outputOrder.writes;
      return "";
    }
    // `+ 1`: the write of this text, which follows.
    this.regionWrites = final ? -1 : outputOrder.writes + 1;
    if (cells !== undefined) return `${SYNC_START}${cells}${SYNC_END}`;
    return `${SYNC_START}${rowsUp > 0 ? overwrite(rowsUp, lines.slice(from)) : lineText(lines.slice(from))}${SYNC_END}`;
  }
}

/**
 * The escape sequences that turn the region on screen (`before`, each line's display width in `widths`, the
 * cursor on the row below it) into `after` by writing only the cells that changed, the cursor back below it;
 * undefined when a line changed more than that (or the lines are not the same count).
 */
function cellChanges(before: readonly string[], after: readonly string[], widths: readonly number[], columns: number): string | undefined {
  if (before.length !== after.length) return undefined;
  let out = "";
  // Rows from the line's first row to the row below the region.
  let below = screenRows(widths, columns);
  let up = 0; // rows the cursor stands above the row below the region
  for (let i = 0; i < after.length; i++) {
    const rows = screenRows([widths[i]!], columns);
    if (before[i] !== after[i]) {
      const change = changedCells(before[i]!, after[i]!);
      if (!change || change.column >= columns) return undefined;
      const move = below - up;
      out += `${move > 0 ? `\x1b[${move}F` : move < 0 ? `\x1b[${-move}E` : ""}\x1b[${change.column + 1}G${change.text}`;
      up = below;
    }
    below -= rows;
  }
  return out === "" ? undefined : `${out}\x1b[${up}E`;
}

/** The block's body was rendered from what it draws, at this view. */
function bodyIsCurrent(block: Block, view: BlockView): boolean {
  return block.bodyFor.shown === block.drawn.shown && block.bodyFor.status === block.drawn.status && block.bodyFor.view === view;
}

/** The block ended and its final body is rendered: its drawing is final. */
function hasEnded(block: Block, view: BlockView): boolean {
  return block.drawn.status !== "running" && bodyIsCurrent(block, view);
}

/** Resolves once the block's body is rendered from its current data. */
async function settled(block: Block): Promise<void> {
  while (block.rendering) await block.rendering;
}

/**
 * The lines drawn over the `rows` rows above the cursor: each line clears the rest of its row, and what is left
 * below the last is cleared. (Clearing from the top row in one go would make tmux push the whole screen into its
 * history when the region starts at the top of the screen.)
 */
function overwrite(rows: number, lines: string[]): string {
  return `\x1b[${rows}F${lines.map((l) => `${l}\x1b[K\n`).join("")}\x1b[J`;
}

function lineText(lines: string[]): string {
  return lines.map((l) => `${l}\n`).join("");
}

/** The block's end line: the summary, or the text the model got; a crash is reported at the end of the turn. */
function resultText(outcome: ToolOutcome, result: ToolResultBlock): string {
  if (outcome.status === "crash") return "the extension crashed (reported below)";
  if (outcome.status === "result" && outcome.summary) return outcome.summary;
  return result.content;
}
