/** What the questions asked at the prompt (a permission, a plan) share: waiting for the answer, and a typed line. */

/**
 * Opens a question (`open` gets the function that answers it) and resolves with its answer, or with `cancelled`
 * when `signal` aborts first (after `on.aborted`); `on.settled` runs once it is answered either way.
 */
export function questionAnswer<T>(signal: AbortSignal, cancelled: T, on: { aborted(): void; settled(): void }, open: (answer: (value: T) => void) => void): Promise<T> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(cancelled);
    const answer = (value: T): void => {
      signal.removeEventListener("abort", onAbort);
      on.settled();
      resolve(value);
    };
    const onAbort = (): void => {
      on.aborted();
      answer(cancelled);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    open(answer);
  });
}

/**
 * A one-line answer typed after a question (why a call is denied, what a plan should change): echoed as it is
 * typed (control characters as spaces), Backspace erases the last character, Enter ends it.
 */
export class TypedLine {
  private text = "";

  constructor(private readonly write: (text: string) => void) {}

  /** Applies a key (`enter`, `backspace`) or typed text; returns the line, trimmed, once Enter ends it. */
  handle(key: string | undefined, typed: string): string | undefined {
    if (key === "enter") {
      this.write("\n");
      return this.text.trim();
    }
    if (key === "backspace" && this.text.length > 0) {
      this.text = [...this.text].slice(0, -1).join("");
      this.write("\b \b");
    } else if (typed) {
      const clean = typed.replace(/[\x00-\x1f\x7f]/g, " ");
      this.text += clean;
      this.write(clean);
    }
    return undefined;
  }
}
