/**
 * The terminal's keyboard for the interactive mode: stdin in raw mode (no echo: awl draws what is typed, and
 * keys typed during a turn never land in the answer), bracketed paste and focus reports on, input decoded into keys. The
 * terminal's modes are restored when input stops, and also if the process exits any other way.
 */
import type { ReadStream } from "node:tty";
import { KeyDecoder, PASTE_START, type InputEvent, type KeyEvent } from "./key-decoder.js";

/** Bracketed paste, and focus reports (`ESC[I` / `ESC[O`) for notifications (ui/notify.ts). */
const MODES_ON = "\x1b[?2004h\x1b[?1004h";
const MODES_OFF = "\x1b[?2004l\x1b[?1004l";
/** A lone ESC is the Esc key when nothing follows it this soon (an escape sequence arrives in one piece). */
const ESCAPE_WAIT_MS = 40;

export interface KeyboardHandlers {
  onKey(event: KeyEvent): void;
  /** The terminal's window gained or lost focus (terminals that report it). */
  onFocus?(focused: boolean): void;
  /** The input ended (the terminal closed). */
  onEnd(): void;
}

export class TerminalInput {
  private readonly decoder = new KeyDecoder();
  private escapeTimer: NodeJS.Timeout | undefined;
  private started = false;
  /** No key read yet since raw mode was set: the first read holds what was typed before (see `typedAhead`). */
  private firstRead = false;
  private readonly onData = (chunk: string): void => {
    clearTimeout(this.escapeTimer);
    if (this.firstRead) {
      this.firstRead = false;
      chunk = typedAhead(chunk);
    }
    this.emit(this.decoder.feed(chunk));
    if (this.decoder.waiting) this.escapeTimer = setTimeout(() => this.emit(this.decoder.flush()), ESCAPE_WAIT_MS);
  };
  private readonly onEnd = (): void => {
    this.stop();
    this.handlers.onEnd();
  };
  private readonly restore = (): void => this.restoreModes();

  constructor(
    private readonly input: ReadStream,
    private readonly output: { write(text: string): unknown },
    private readonly handlers: KeyboardHandlers,
  ) {}

  start(): void {
    if (this.started) return;
    this.started = true;
    this.firstRead = true;
    this.input.setRawMode(true);
    this.input.setEncoding("utf8");
    this.output.write(MODES_ON);
    this.input.on("data", this.onData);
    this.input.on("end", this.onEnd);
    // A terminal that went away may report an error (EIO) instead of an end.
    this.input.on("error", this.onEnd);
    process.on("exit", this.restore);
    this.input.resume();
  }

  stop(): void {
    if (!this.started) return;
    this.started = false;
    clearTimeout(this.escapeTimer);
    this.input.off("data", this.onData);
    this.input.off("end", this.onEnd);
    this.input.off("error", this.onEnd);
    process.off("exit", this.restore);
    this.restoreModes();
    this.input.pause();
  }

  /**
   * Ctrl-Z: gives the terminal back as it was and stops awl (SIGTSTP), as a shell job; once the shell
   * continues it (`fg`), raw mode and bracketed paste come back and `onContinue` runs.
   */
  suspend(onContinue: () => void): void {
    if (!this.started) return;
    this.restoreModes();
    // Linux stops the process before `kill` returns (the signal is the calling thread's to take), so awl runs on
    // here once the shell continues it; and a process group no shell controls any more (orphaned) is not stopped
    // at all. Either way the modes come back at once, not when a SIGCONT handler gets its turn: keys typed right
    // after `fg` would otherwise reach a cooked terminal.
    process.kill(process.pid, "SIGTSTP");
    if (!this.started) return;
    this.input.setRawMode(true);
    this.output.write(MODES_ON);
    onContinue();
  }

  private restoreModes(): void {
    try {
      this.output.write(MODES_OFF);
      if (this.input.isTTY) this.input.setRawMode(false);
    } catch {
      // The terminal is gone: nothing to restore.
    }
  }

  private emit(events: InputEvent[]): void {
    for (const event of events) {
      if (event.kind === "focus") this.handlers.onFocus?.(event.focused);
      else this.handlers.onKey(event);
    }
  }
}

/**
 * What was typed before awl set raw mode (keys typed while it started) waits in the terminal's input already
 * translated by its cooked mode, Enter as a line feed (ICRNL), and arrives as the first read: there a line feed
 * is Enter again (in raw mode Enter sends a carriage return, and only Ctrl-J a line feed). A bracketed paste is
 * left as it is.
 */
function typedAhead(chunk: string): string {
  return chunk.includes(PASTE_START) ? chunk : chunk.replace(/\n/g, "\r");
}
