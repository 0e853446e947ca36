/**
 * `awl models --refresh`: fetches models.dev's api.json (or `$AWL_MODELS_URL`) and caches the part awl reads, in the
 * same format, as `$XDG_CACHE_HOME/awl/models.json` (catalogue-store.ts). A user-run network call, never made at
 * start-up. The new copy replaces the old one only once it has been read whole and checked: a failure (no answer,
 * an HTTP error, a body that is not JSON or not a catalogue) leaves the previous copy as it was and says why.
 */
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { cachedCatalogueText } from "./catalogue-store.js";
import { parseModelsDev, trimModelsDev } from "./models-dev.js";

export interface RefreshResult {
  file: string;
  providers: number;
  models: number;
  /** Fields of the right name but the wrong type, left out. */
  ignored: number;
}

const TIMEOUT_MS = 60_000;

/** Fetches `url` and writes the cached copy at `file`; the error says what went wrong and where. */
export async function refreshCatalogue(url: string, file: string): Promise<{ ok: true; value: RefreshResult } | { ok: false; error: string }> {
  let text: string;
  try {
    const response = await fetch(url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (!response.ok) return { ok: false, error: `${url} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}` };
    text = await response.text();
  } catch (e) {
    const cause = e instanceof Error ? ((e.cause as Error | undefined)?.message ?? e.message) : String(e);
    return { ok: false, error: `${url} could not be fetched: ${cause}` };
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `${url} did not answer JSON (${e instanceof Error ? e.message : String(e)})` };
  }
  const parsed = parseModelsDev(document);
  if (!parsed.ok) return { ok: false, error: `${url} did not answer a models.dev catalogue: ${parsed.error}` };
  const providers = Object.values(parsed.value);
  if (providers.length === 0) return { ok: false, error: `${url} answered a catalogue with no providers` };
  // Written beside and renamed over: a reader never sees half a file, and a failed write leaves the old one.
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(temporary, cachedCatalogueText(trimModelsDev(document as Record<string, unknown>)));
    await rename(temporary, file);
  } catch (e) {
    await rm(temporary, { force: true }).catch(() => undefined);
    return { ok: false, error: `${file} could not be written: ${e instanceof Error ? e.message : String(e)}` };
  }
  const models = providers.reduce((sum, p) => sum + Object.keys(p.models).length, 0);
  return { ok: true, value: { file, providers: providers.length, models, ignored: parsed.ignored } };
}
