/**
 * Terminal input (a raw-mode stdin, decoded as UTF-8) → keys. Handles what a prompt needs: printable text,
 * Enter and the ways terminals send "insert a newline" (Alt-Enter, Shift-Enter in the kitty and xterm
 * encodings, Ctrl-J), editing and movement keys in their CSI and SS3 forms, control keys, a lone Esc, and
 * bracketed paste (`ESC[200~` … `ESC[201~`), whose text is one event, never keys, and focus reports (`ESC[I`,
 * `ESC[O`: the terminal gained or lost focus, with focus reporting on).
 */

export type KeyName =
  | "enter"
  | "newline"
  | "backspace"
  | "delete"
  | "left"
  | "right"
  | "up"
  | "down"
  | "home"
  | "end"
  | "word-left"
  | "word-right"
  | "delete-word-before"
  | "delete-word-after"
  | "delete-to-start"
  | "delete-to-end"
  | "tab"
  /** Shift-Tab (`CSI Z`). */
  | "backtab"
  | "escape"
  | "interrupt"
  | "eof"
  | "clear-screen"
  | "search-history"
  | "suspend"
  | "expand-last"
  | "expand-all"
  | "paste-image";

export type KeyEvent = { kind: "key"; name: KeyName } | { kind: "text"; text: string } | { kind: "paste"; text: string };

/** What the terminal sends: keys, or a report that its window gained or lost focus. */
export type InputEvent = KeyEvent | { kind: "focus"; focused: boolean };

/** What a terminal sends before a bracketed paste. */
export const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

const CONTROL_KEYS: Record<string, KeyName> = {
  "\r": "enter",
  "\n": "newline",
  "\t": "tab",
  "\x7f": "backspace",
  "\x08": "backspace",
  "\x01": "home",
  "\x05": "end",
  "\x02": "left",
  "\x06": "right",
  "\x10": "up",
  "\x0e": "down",
  "\x03": "interrupt",
  "\x04": "eof",
  "\x0b": "delete-to-end",
  "\x15": "delete-to-start",
  "\x17": "delete-word-before",
  "\x0c": "clear-screen",
  "\x1a": "suspend",
  "\x12": "search-history",
  "\x16": "paste-image",
  "\x0f": "expand-last",
};

/** Alt + a character (ESC then the character). */
const META_KEYS: Record<string, KeyName> = {
  "\r": "newline",
  "\n": "newline",
  "\x7f": "delete-word-before",
  "\x08": "delete-word-before",
  b: "word-left",
  f: "word-right",
  d: "delete-word-after",
  o: "expand-all",
};

/** CSI/SS3 sequences by their final character, or by `number~`. */
const FINAL_KEYS: Record<string, KeyName> = { A: "up", B: "down", C: "right", D: "left", H: "home", F: "end", Z: "backtab" };
const TILDE_KEYS: Record<string, KeyName> = { "1": "home", "7": "home", "4": "end", "8": "end", "3": "delete" };

/** A CSI sequence (`ESC [ params final`) or an SS3 one (`ESC O final`), complete. */
const SEQUENCE = /^\x1b(?:\[([0-?]*)[ -/]*([@-~])|O([@-~]))/;
/** The start of such a sequence, cut off at the end of the input so far. */
const UNFINISHED = /^\x1b(?:\[[0-?]*[ -/]*|O)?$/;

export class KeyDecoder {
  private pending = "";
  /** Inside a bracketed paste: the text so far. */
  private paste: string | undefined;

  /** The keys in `input` (what follows an unfinished sequence is kept for the next call). */
  feed(input: string): InputEvent[] {
    const events: InputEvent[] = [];
    let rest = this.pending + input;
    this.pending = "";
    while (rest.length > 0) {
      if (this.paste !== undefined) {
        const end = rest.indexOf(PASTE_END);
        if (end === -1) {
          // Keep a possible start of the end marker for the next input.
          const keep = partialSuffix(rest, PASTE_END);
          this.paste += rest.slice(0, rest.length - keep);
          this.pending = rest.slice(rest.length - keep);
          return events;
        }
        events.push({ kind: "paste", text: this.paste + rest.slice(0, end) });
        this.paste = undefined;
        rest = rest.slice(end + PASTE_END.length);
        continue;
      }
      if (rest.startsWith(PASTE_START)) {
        this.paste = "";
        rest = rest.slice(PASTE_START.length);
        continue;
      }
      if (rest[0] === "\x1b") {
        if (UNFINISHED.test(rest)) {
          // Wait for the rest of the sequence; `flush` ends the wait (a lone Esc).
          this.pending = rest;
          return events;
        }
        const sequence = SEQUENCE.exec(rest);
        if (sequence) {
          if (sequence[1] === "" && (sequence[2] === "I" || sequence[2] === "O")) {
            events.push({ kind: "focus", focused: sequence[2] === "I" });
            rest = rest.slice(sequence[0].length);
            continue;
          }
          const name = sequenceKey(sequence[1] ?? "", sequence[2] ?? sequence[3] ?? "");
          if (name) events.push({ kind: "key", name });
          rest = rest.slice(sequence[0].length);
          continue;
        }
        const next = String.fromCodePoint(rest.codePointAt(1)!);
        if (next === "\x1b") {
          events.push({ kind: "key", name: "escape" });
          rest = rest.slice(1);
          continue;
        }
        const meta = META_KEYS[next];
        if (meta) events.push({ kind: "key", name: meta });
        rest = rest.slice(1 + next.length);
        continue;
      }
      const control = CONTROL_KEYS[rest[0]!];
      if (control) {
        events.push({ kind: "key", name: control });
        rest = rest.slice(1);
        continue;
      }
      const text = /^[^\x00-\x1f\x7f]+/.exec(rest)?.[0];
      if (text) {
        const last = events[events.length - 1];
        if (last?.kind === "text") last.text += text;
        else events.push({ kind: "text", text });
        rest = rest.slice(text.length);
        continue;
      }
      // Another control character: nothing to do.
      rest = rest.slice(1);
    }
    return events;
  }

  /** Whether input is held waiting for the rest of a sequence (call `flush` if none comes soon). */
  get waiting(): boolean {
    return this.pending !== "" && this.paste === undefined;
  }

  /** No more input came: a held lone Esc is the Esc key (and a held fragment is dropped). */
  flush(): KeyEvent[] {
    if (!this.waiting) return [];
    const held = this.pending;
    this.pending = "";
    return held === "\x1b" ? [{ kind: "key", name: "escape" }] : [];
  }
}

function sequenceKey(params: string, final: string): KeyName | undefined {
  const [first = "", modifier = "1", code] = params.split(";");
  const mods = Number(modifier) - 1;
  // Shift- or Alt-Enter: kitty's `CSI 13;2u`, xterm's modifyOtherKeys `CSI 27;2;13~`.
  if ((final === "u" && first === "13") || (final === "~" && first === "27" && code === "13")) return mods > 0 ? "newline" : "enter";
  if (final === "~") return TILDE_KEYS[first];
  const name = FINAL_KEYS[final];
  // Ctrl or Alt with left/right moves by words.
  if (mods >= 2 && (name === "left" || name === "right")) return name === "left" ? "word-left" : "word-right";
  return name;
}

/** How many characters at the end of `text` are the start of `marker`. */
function partialSuffix(text: string, marker: string): number {
  for (let n = Math.min(marker.length - 1, text.length); n > 0; n--) if (text.endsWith(marker.slice(0, n))) return n;
  return 0;
}
