/**
 * The Markdown renderer (marked, and highlight.js for code fences) is loaded only once the prompt is drawn, in
 * the background, so start-up never pays for it; until it is there an answer streams as wrapped plain text.
 */
import type { MarkdownStream } from "./markdown-stream.js";

let stream: typeof MarkdownStream | undefined;
let loading: Promise<void> | undefined;

/** Loads the renderer; resolves (never rejects) once {@link markdownStream} has it. Safe to call more than once. */
export function loadMarkdown(): Promise<void> {
  loading ??= Promise.all([import("./markdown-stream.js"), import("./highlight.js").then((h) => h.loadHighlighter())]).then(
    ([module]) => {
      stream = module.MarkdownStream;
    },
    // Without it answers stay plain wrapped text: never a failure.
    () => {},
  );
  return loading;
}

/** The streaming Markdown renderer, once loaded. */
export function markdownStream(): typeof MarkdownStream | undefined {
  return stream;
}
