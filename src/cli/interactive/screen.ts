/**
 * The interactive mode's terminal: the output sink, the prompt (line-editor.ts), the keyboard (terminal-input.ts)
 * and the size. Opened by the main command as soon as the configuration is read, before the tools, skills, hooks,
 * sub-agents and the provider open (issue 30): the prompt is drawn and takes keys while they do. Until the mode
 * adopts the screen (repl.ts, {@link InteractiveScreen.adopt}), what is typed is edited at once, and every key that
 * needs the rest of awl (Enter, Tab's completions, Up and Down through the history, Ctrl-C, Ctrl-D, Esc, Shift-Tab,
 * Ctrl-R…) is held, with every key after it, and handled in order once the mode is there: nothing typed is lost
 * and nothing runs half-ready.
 */
import type { ProviderSettings } from "../../providers/types.js";
import { idleSnapshot } from "../../usage/meter.js";
import type { EditorAction } from "../../ui/editor/line-editor.js";
import { LineEditor } from "../../ui/editor/line-editor.js";
import type { KeyEvent, KeyName } from "../../ui/editor/key-decoder.js";
import { TerminalInput } from "../../ui/editor/terminal-input.js";
import { LineSink, wantsColor } from "../../ui/output/sink.js";
import { statusLine } from "../../ui/output/status-line.js";
import { wrapText } from "../../ui/output/wrap-text.js";

/** What the interactive mode does with the screen's input once it has adopted it. */
export interface ScreenHandlers {
  onKey(event: KeyEvent): void;
  /** An action the prompt returned for a key handled before the mode adopted the screen. */
  onAction(action: EditorAction): void;
  /** The terminal closed. */
  onEnd(): void;
  onFocus(focused: boolean): void;
  onResize(): void;
  /** Tab's completions of the prompt's text. */
  complete(text: string): string[];
  /** The status line under the prompt. */
  footer(width: number): string;
  /** The prompt's text changed while it is hidden (a turn runs). */
  onHiddenChange(): void;
  /** A line awl has to say (a warning, a reload), placed where it does not break the prompt or a turn's output. */
  notice(text: string): void;
}

/** Keys whose effect depends on what is still opening: held until the mode adopts the screen. */
const HELD_KEYS: ReadonlySet<KeyName> = new Set(["tab", "up", "down"]);

type Held = { event: KeyEvent } | { action: EditorAction } | { end: true };

/** The interactive mode's terminal, before and after the mode adopts it. */
export class InteractiveScreen {
  readonly out = process.stdout;
  readonly sink: LineSink;
  readonly editor: LineEditor;
  readonly input: TerminalInput;
  private handlers: ScreenHandlers | undefined;
  /** What came in before the mode adopted the screen, in order. */
  private readonly held: Held[] = [];
  /** The terminal's last focus report before then (handed over, not held: it never waits for a key). */
  private focused: boolean | undefined;
  private readonly onResize = (): void => (this.handlers ? this.handlers.onResize() : this.editor.resize());

  /** `mode`: the permission mode shown in the status line until the mode adopts the screen (it draws its own). */
  constructor(
    private readonly settings: ProviderSettings,
    mode: () => string | undefined = () => undefined,
  ) {
    this.sink = new LineSink(this.out, wantsColor(this.out, process.env));
    const starting = (width: number): string => statusLine({ snapshot: idleSnapshot(settings.provider, settings.model), ...(mode() && { mode: mode()! }) }, width, this.sink.color);
    this.editor = new LineEditor(this.out, {
      complete: (text) => this.handlers?.complete(text) ?? [],
      footer: (width) => (this.handlers ? this.handlers.footer(width) : starting(width)),
      onHiddenChange: () => this.handlers?.onHiddenChange(),
    });
    this.input = new TerminalInput(process.stdin, this.out, {
      onKey: (event) => (this.handlers ? this.handlers.onKey(event) : this.early(event)),
      onEnd: () => (this.handlers ? this.handlers.onEnd() : this.held.push({ end: true })),
      onFocus: (focused) => (this.handlers ? this.handlers.onFocus(focused) : (this.focused = focused)),
    });
  }

  /** The first line: awl, the provider and model, and where help is. */
  greet(): void {
    this.sink.dim(wrapText(`awl · ${this.settings.provider} ${this.settings.model} · /help for commands and keys · Ctrl-D exits\n`, this.columns()));
  }

  /** Reads keys (raw mode) and follows the terminal's size. */
  start(): void {
    this.input.start();
    this.out.on("resize", this.onResize);
  }

  /** The greeting, the keyboard and the prompt, before the rest of awl has opened. */
  open(): void {
    this.greet();
    this.start();
    this.sink.endLine();
    this.editor.show();
  }

  /** Says `text` above the prompt while it is shown (else as a line), or where the mode places it once it has adopted the screen. */
  notice(text: string): void {
    if (this.handlers) return this.handlers.notice(text);
    const wrapped = `${wrapText(text.replace(/\n+$/, ""), this.columns() - 1)}\n`;
    if (this.editor.shown) this.editor.printAbove(wrapped);
    else {
      this.sink.endLine();
      this.sink.write(wrapped);
    }
  }

  /** The mode takes the input over; what was held is handled now, in the order it came. */
  adopt(handlers: ScreenHandlers): void {
    this.handlers = handlers;
    if (this.focused !== undefined) handlers.onFocus(this.focused);
    for (const item of this.held.splice(0)) {
      if ("event" in item) handlers.onKey(item.event);
      else if ("action" in item) handlers.onAction(item.action);
      else handlers.onEnd();
    }
    this.editor.refreshFooter();
  }

  /** Leaves the prompt as it is on screen and gives the terminal back (awl exits, or failed before the mode began). */
  close(): void {
    this.editor.leave();
    this.out.off("resize", this.onResize);
    this.input.stop();
  }

  /** The terminal's width, asked each time: the size at the last resize event can lag behind a resize in progress. */
  columns(): number {
    return (this.out.isTTY ? this.out.getWindowSize()[0] : 0) || this.out.columns || 80;
  }

  rows(): number {
    return (this.out.isTTY ? this.out.getWindowSize()[1] : 0) || this.out.rows || 24;
  }

  /** A key before the mode adopted the screen: text is edited at once; the rest is held (see the module's comment). */
  private early(event: KeyEvent): void {
    if (this.held.length > 0 || (event.kind === "key" && HELD_KEYS.has(event.name))) {
      this.held.push({ event });
      return;
    }
    const action = this.editor.handle(event);
    if (action) this.held.push({ action });
  }
}
