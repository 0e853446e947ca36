/**
 * The figures `awl sessions` shows, kept so a listing does not read every session whole: one small JSON file in
 * the sessions folder (`summaries.cache.json`), an entry per session, each valid only for the exact file it was
 * read from (its key: size, modification and change times, device and inode; summary.ts `fileKey`). A file that
 * grew, was trimmed, edited or replaced, an entry of the wrong shape, a cache that is missing, damaged or of
 * another version: each is a miss, and that session is read whole again. The cache is written whole to a
 * temporary file and renamed into place, so a reader never sees half of it; a failed write only costs speed.
 */
import * as fs from "node:fs";
import { usageFromJSON } from "../model/json.js";
import { isObject } from "./format.js";
import { parentOf, type SessionSummary, type SummaryFigures } from "./summary.js";

/** Bump when the meaning of a figure changes: every entry of another version is a miss. */
const CACHE_VERSION = 2;

interface Entry {
  key: string;
  /** All but the path (known) and the update time (from the file itself). */
  summary: SummaryFigures;
}

export class SummaryCache {
  private changed = false;

  private constructor(
    private readonly file: string,
    private readonly entries: Map<string, unknown>,
  ) {}

  /** The cache at `file`; empty when it is missing, unreadable, damaged or of another version. */
  static read(file: string): SummaryCache {
    let entries = new Map<string, unknown>();
    try {
      const value = JSON.parse(fs.readFileSync(file, "utf8")) as unknown;
      if (isObject(value) && value.version === CACHE_VERSION && isObject(value.sessions)) entries = new Map(Object.entries(value.sessions));
    } catch {
      /* no cache, or not one this awl can use: every session is a miss */
    }
    return new SummaryCache(file, entries);
  }

  /** The figures of session `id` if they were read from a file with exactly this key, else undefined. */
  get(id: string, key: string): SummaryFigures | undefined {
    const entry = this.entries.get(id);
    return isObject(entry) && entry.key === key ? checkedSummary(entry.summary) : undefined;
  }

  set(id: string, key: string, summary: SessionSummary): void {
    const { path: _path, updated: _updated, ...kept } = summary;
    this.entries.set(id, { key, summary: kept } satisfies Entry);
    this.changed = true;
  }

  /** Forgets the sessions not in `ids` (deleted files). */
  keepOnly(ids: ReadonlySet<string>): void {
    for (const id of this.entries.keys()) {
      if (ids.has(id)) continue;
      this.entries.delete(id);
      this.changed = true;
    }
  }

  /** Writes the cache if anything changed. Best effort: a cache that cannot be written is read again next time. */
  save(): void {
    if (!this.changed) return;
    const temporary = `${this.file}.${process.pid}.tmp`;
    try {
      fs.writeFileSync(temporary, JSON.stringify({ version: CACHE_VERSION, sessions: Object.fromEntries(this.entries) }), { mode: 0o600 });
      fs.renameSync(temporary, this.file);
      this.changed = false;
    } catch {
      fs.rmSync(temporary, { force: true });
    }
  }
}

/** A cached summary of the right shape, or undefined (anything else is damage: a miss). */
function checkedSummary(value: unknown): SummaryFigures | undefined {
  if (!isObject(value)) return undefined;
  const { id, created, cwd, provider, model, first_prompt, messages } = value;
  if (typeof id !== "string" || typeof created !== "string" || typeof cwd !== "string" || typeof provider !== "string") return undefined;
  if (typeof model !== "string" || typeof first_prompt !== "string") return undefined;
  if (typeof messages !== "number" || !Number.isSafeInteger(messages) || messages < 0) return undefined;
  if (!Array.isArray(value.tokens_by_model)) return undefined;
  try {
    const byModel = value.tokens_by_model.map((b: unknown) => {
      if (!isObject(b) || typeof b.provider !== "string" || typeof b.model !== "string" || typeof b.long_context !== "boolean") throw new Error("bad entry");
      return { provider: b.provider, model: b.model, long_context: b.long_context, usage: usageFromJSON(b.usage, "usage") };
    });
    const parent = parentOf(value.parent);
    return { id, created, cwd, provider, model, first_prompt, messages, tokens: usageFromJSON(value.tokens, "tokens"), tokens_by_model: byModel, ...(parent && { parent }) };
  } catch {
    return undefined;
  }
}
