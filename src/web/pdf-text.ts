/**
 * A PDF's text, for the `fetch` tool (docs/std-tools.md, "fetch"): each page's text in order, extracted with
 * unpdf (PDF.js, pure JavaScript), which is loaded on the first PDF only. Runs on the main thread (PDF.js works
 * with promises, which a Lua call cannot wait for in its worker).
 */

/** The pages' text, or why the document could not be read (encrypted, damaged, not a PDF). */
export type PdfText = { ok: true; pages: string[] } | { ok: false; message: string };

export async function pdfText(data: Uint8Array): Promise<PdfText> {
  try {
    const { extractText, getDocumentProxy } = await import("unpdf");
    // PDF.js takes the bytes over (it may detach the buffer): a copy keeps the caller's.
    const document = await getDocumentProxy(new Uint8Array(data), { isEvalSupported: false, stopAtErrors: false });
    try {
      const { text } = await extractText(document, { mergePages: false });
      return { ok: true, pages: text };
    } finally {
      void document.destroy();
    }
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return { ok: false, message: `the PDF could not be read: ${message}` };
  }
}
