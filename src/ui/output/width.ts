/**
 * Display width of text in terminal columns (CJK and emoji take two, combining marks none), by the
 * `string-width` package. Loading it costs tens of milliseconds (it sets up `Intl.Segmenter`), so it is loaded
 * in the background when the interactive mode starts ({@link loadDisplayWidth}); until then, and always for
 * plain ASCII, the width is the character count, which is exact for ASCII.
 */
import { stripControls } from "../safe-text.js";

type WidthFunction = (text: string) => number;

let measure: WidthFunction | undefined;
let loading: Promise<void> | undefined;
let segmenter: Intl.Segmenter | undefined;

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const STYLES = /\x1b\[[0-9;]*m/g;

/** Loads the exact measure; resolves (never rejects) once {@link displayWidth} uses it. Safe to call more than once. */
export function loadDisplayWidth(): Promise<void> {
  loading ??= import("string-width").then(
    (module) => {
      measure = module.default;
    },
    // Without it the width is the character count: right for most text, never a failure.
    () => {},
  );
  return loading;
}

/** Columns `text` takes on a terminal; escape sequences (styling) take none. */
export function displayWidth(text: string): number {
  if (PRINTABLE_ASCII.test(text)) return text.length;
  // Styled ASCII (a Markdown line): its styling taken out, the character count.
  if (text.includes("\x1b[")) {
    const bare = text.replace(STYLES, "");
    if (PRINTABLE_ASCII.test(bare)) return bare.length;
  }
  return measure ? measure(text) : Array.from(stripControls(text)).length;
}

/** The user-perceived characters of `text` (grapheme clusters: an emoji with modifiers is one). */
export function graphemes(text: string): string[] {
  if (PRINTABLE_ASCII.test(text)) return text.split("");
  segmenter ??= new Intl.Segmenter();
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

/** `text` cut to at most `max` columns, ending in `…` when cut (a line that fits never wraps). */
export function fitWidth(text: string, max: number): string {
  if (displayWidth(text) <= max) return text;
  let out = "";
  let width = 0;
  for (const g of graphemes(text)) {
    const w = displayWidth(g);
    if (width + w > max - 1) break;
    out += g;
    width += w;
  }
  return `${out}…`;
}

/**
 * The screen rows that lines of these display widths take at `columns`: one each while they fit; after the
 * terminal was narrowed, as many as it re-wraps each into.
 */
export function screenRows(widths: readonly number[], columns: number): number {
  return widths.reduce((rows, width) => rows + Math.max(1, Math.ceil(width / Math.max(1, columns))), 0);
}
