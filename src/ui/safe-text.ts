/**
 * Text from outside awl (the model's answer and thinking, an extension's block, a saved snapshot) made safe for
 * a terminal: escape sequences and control characters would move the cursor, clear the screen, set the
 * window title or restyle what follows. Only newlines and tabs are kept.
 */

/** Complete escape sequences: CSI, OSC/DCS/SOS/PM/APC strings (ended by BEL or ST), and ESC + one character. */
const ESCAPE_SEQUENCE = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[ -~]/g;
/** C0 controls but tab and newline, DEL, and C1 controls (U+0080–U+009F; U+009B is a one-character CSI). */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
/** The start of an escape sequence cut off at the end of a piece of streamed text. */
const UNFINISHED_ESCAPE = /\x1b(?:\[[0-?]*[ -/]*|[\]PX^_][^\x07\x1b]*\x1b?)?$/;
/** An unfinished sequence longer than this is not waited for (it is dropped as it is). */
const LONGEST_HELD = 4096;

/** `text` without escape sequences and control characters, except `\n` and `\t`. */
export function stripControls(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, "").replace(CONTROL, "");
}

/**
 * {@link stripControls} for text that arrives in pieces: an escape sequence split across two pieces is removed
 * whole, never half-printed.
 */
export class SafeStream {
  private held = "";

  /** The safe text of `piece`; the start of an escape sequence at its end is held for the next piece. */
  push(piece: string): string {
    let text = this.held + piece;
    this.held = "";
    const unfinished = UNFINISHED_ESCAPE.exec(text);
    if (unfinished && unfinished[0].length <= LONGEST_HELD) {
      this.held = unfinished[0];
      text = text.slice(0, unfinished.index);
    }
    return stripControls(text);
  }

  /** Drops whatever is held (the text ended inside an escape sequence). */
  end(): void {
    this.held = "";
  }
}

/**
 * Characters that do not show as themselves on a terminal: C0 controls (ESC, CR, BS, ...), DEL, C1 controls,
 * and the invisible or reordering format characters (zero-width, bidi embeddings, overrides and isolates,
 * line and paragraph separators, BOM).
 */
const HIDDEN = /[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\e" };

/**
 * `text` with every character that would not show as itself written out as an escape (`\e`, `\r`, `\x07`,
 * `\u{202e}`), so what is shown is what it holds: for text the user decides on (a permission question), where
 * dropping a character would hide it. `keep` lists characters left as they are (e.g. "\n").
 */
export function showControls(text: string, keep = ""): string {
  return text.replace(HIDDEN, (c) => {
    if (keep.includes(c)) return c;
    const code = c.charCodeAt(0);
    return NAMED[c] ?? (code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u{${code.toString(16)}}`);
  });
}
