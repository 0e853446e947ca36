/**
 * Prompt history across runs (docs/cli.md, "Prompt history"): one JSON Lines file in awl's data folder,
 * `$XDG_DATA_HOME/awl/prompt-history.jsonl`, one `{"v":1,"cwd":…,"at":…,"text":…}` per prompt sent. Up/Down go
 * through this directory's prompts; Ctrl-R searches every directory's. Known API keys are replaced by
 * `[REDACTED]` before a prompt is written; the file is capped (the oldest lines go when it grows past twice the
 * cap); a line that is not such an object (a torn write, an edit gone wrong) is skipped, never fatal.
 */
import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

export const HISTORY_VERSION = 1;
export const DEFAULT_HISTORY_SIZE = 1000;

export interface HistoryEntry {
  cwd: string;
  text: string;
  /** ISO time it was sent. */
  at: string;
}

export interface PromptHistoryOptions {
  /** The file (default: prompt-history.jsonl in awl's data folder). */
  file: string;
  cwd: string;
  /** Prompts kept (the file keeps up to twice as many between rewrites). */
  size?: number;
  /** Replaces known secrets in a prompt before it is written. */
  scrub?: (text: string) => string;
  /** Where a failure to write goes (the prompt is still sent). */
  warn?: (text: string) => void;
}

export class PromptHistory {
  private entries: HistoryEntry[] = [];
  private lines = 0;
  private warned = false;

  constructor(private readonly options: PromptHistoryOptions) {}

  /** The history file in awl's data folder. */
  static fileIn(dataDir: string): string {
    return join(dataDir, "prompt-history.jsonl");
  }

  /** Reads the file (missing or unreadable: empty); returns every entry, oldest first. */
  load(): readonly HistoryEntry[] {
    let text = "";
    try {
      text = readFileSync(this.options.file, "utf8");
    } catch {
      /* no history yet, or unreadable: start empty */
    }
    const entries: HistoryEntry[] = [];
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      this.lines++;
      const entry = parseLine(line);
      if (entry) entries.push(entry);
    }
    this.entries = entries.slice(-this.size);
    return this.entries;
  }

  /** This directory's prompts, oldest first. */
  here(): string[] {
    return this.entries.filter((e) => e.cwd === this.options.cwd).map((e) => e.text);
  }

  /** Every directory's prompts, newest first, each text once. */
  everywhere(): HistoryEntry[] {
    const seen = new Set<string>();
    const out: HistoryEntry[] = [];
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const entry = this.entries[i]!;
      if (seen.has(entry.text)) continue;
      seen.add(entry.text);
      out.push(entry);
    }
    return out;
  }

  /** Records a prompt sent (scrubbed of known keys), rewriting the file to the cap when it has grown past twice it. */
  add(text: string): void {
    if (text.trim() === "") return;
    const entry: HistoryEntry = { cwd: this.options.cwd, text: this.options.scrub ? this.options.scrub(text) : text, at: new Date().toISOString() };
    this.entries.push(entry);
    if (this.entries.length > this.size) this.entries.splice(0, this.entries.length - this.size);
    try {
      mkdirSync(dirname(this.options.file), { recursive: true, mode: 0o700 });
      if (this.lines + 1 > 2 * this.size) {
        // Another awl may have appended meanwhile: keep the newest of what the file holds now, then this one.
        const kept = [...this.reread(), entry].slice(-this.size);
        const temporary = `${this.options.file}.${process.pid}.tmp`;
        writeFileSync(temporary, kept.map(lineOf).join(""), { mode: 0o600 });
        renameSync(temporary, this.options.file);
        this.lines = kept.length;
      } else {
        appendFileSync(this.options.file, lineOf(entry), { mode: 0o600 });
        this.lines++;
      }
    } catch (e) {
      if (!this.warned) this.options.warn?.(`the prompt history ${this.options.file} cannot be written (${(e as NodeJS.ErrnoException).code ?? String(e)}); prompts are kept for this run only`);
      this.warned = true;
    }
  }

  private get size(): number {
    return this.options.size ?? DEFAULT_HISTORY_SIZE;
  }

  private reread(): HistoryEntry[] {
    try {
      return readFileSync(this.options.file, "utf8")
        .split("\n")
        .map((line) => (line.trim() === "" ? undefined : parseLine(line)))
        .filter((e): e is HistoryEntry => e !== undefined);
    } catch {
      return [];
    }
  }
}

function lineOf(entry: HistoryEntry): string {
  return `${JSON.stringify({ v: HISTORY_VERSION, cwd: entry.cwd, at: entry.at, text: entry.text })}\n`;
}

function parseLine(line: string): HistoryEntry | undefined {
  try {
    const value = JSON.parse(line) as Record<string, unknown>;
    if (typeof value !== "object" || value === null || value.v !== HISTORY_VERSION) return undefined;
    if (typeof value.text !== "string" || typeof value.cwd !== "string" || value.text === "") return undefined;
    return { cwd: value.cwd, text: value.text, at: typeof value.at === "string" ? value.at : "" };
  } catch {
    return undefined;
  }
}
