/**
 * Notifications of the interactive mode (docs/cli.md, "Notifications"): when a turn ends, or a permission
 * question waits, while the terminal's window is not focused, awl rings the bell or sends the terminal's
 * notification sequence. Focus is what the terminal reports (`ESC[I` / `ESC[O`, focus reporting on); a terminal
 * that never reports it counts as focused, so nothing is sent to it.
 */

/** How to notify: the bell, OSC 9 (iTerm2, WezTerm, Windows Terminal, kitty), OSC 777 (urxvt, foot, GNOME's VTE), or not. */
export type NotifyStyle = "bell" | "osc9" | "osc777" | "off";

/** The `notifications` setting: a style, or `auto` (the bell, except inside tmux or screen, where it is off). */
export type NotifySetting = NotifyStyle | "auto";

/** The style `setting` means in this environment. */
export function notifyStyle(setting: NotifySetting | undefined, env: NodeJS.ProcessEnv): NotifyStyle {
  if (setting !== undefined && setting !== "auto") return setting;
  // A multiplexer's bell reaches the user only as its own window flag; left off unless asked for.
  return env.TMUX !== undefined || env.STY !== undefined ? "off" : "bell";
}

export class Notifier {
  private focused = true;

  constructor(
    private readonly out: { write(text: string): unknown },
    private readonly style: NotifyStyle,
  ) {}

  /** The terminal reported its window's focus. */
  setFocus(focused: boolean): void {
    this.focused = focused;
  }

  /** Tells the user `text` (one line) if the window is not focused; returns whether something was sent. */
  notify(text: string): boolean {
    if (this.focused || this.style === "off") return false;
    // The text goes inside an escape sequence: no control characters (nor `;` for OSC 777's fields) in it.
    const safe = text.replace(/[\x00-\x1f\x7f-\x9f]/g, " ");
    if (this.style === "bell") this.out.write("\x07");
    else if (this.style === "osc9") this.out.write(`\x1b]9;${safe}\x07`);
    else this.out.write(`\x1b]777;notify;awl;${safe.replace(/;/g, ",")}\x07`);
    return true;
  }
}
