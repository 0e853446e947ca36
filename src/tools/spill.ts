/**
 * Result shaping (SPEC §4): a result longer than `result_limit` is cut, the whole text is written to a file in
 * `spill_dir` (with every known API key replaced by `[REDACTED]`, as in session files), and the model is told
 * where it is so it can read the rest with a tool.
 */
// `node:fs`'s promises, read at the call: `node:fs/promises` loads Node's readline and file watchers with it
// (≈ 2 ms), which a reply that spills nothing never needs (issue 30).
import { promises as fsp } from "node:fs";
import { join } from "node:path";
import type { SecretScrubber } from "../util/secrets.js";

export interface SpillOptions {
  /** Most characters (UTF-16 code units) of a result the model gets inline. */
  limit: number;
  /** Folder for whole results; created on first use. */
  spillDir: string;
  /** Replaces known API keys in the file (a tool printing the environment must not leave a key on disk). */
  scrub?: SecretScrubber;
}

export interface LimitedResult {
  content: string;
  /** The file holding the whole text, when the result was cut and saved. */
  spill_file?: string;
}

/** A run's spill folders are kept this long (by the time in their name), then removed by a later run. */
export const SPILL_KEEP_DAYS = 7;

/** A run folder's name: the run's start, `-` for `:` and `.`, its pid, and a kind (`-mcp`, src/runtime/mcp-tools.ts). */
const RUN_FOLDER = /^(\d{4}-\d\d-\d\d)T(\d\d)-(\d\d)-(\d\d)-(\d{3})Z-(\d+)(?:-[a-z]+)?$/;

/**
 * `<data>/spill/<run start>-<pid>[-<kind>]`: the spill folder of this run's Lua tools (or of another kind's: `mcp`).
 * The start as `toISOString()` writes it, `-` for `:` and `.`, from its UTC parts: a process's first
 * `toISOString()` costs ≈ 2 ms, on the start of every run (issue 30).
 */
export function runSpillDir(dataDir: string, now = new Date(), kind?: string): string {
  const two = (n: number): string => String(n).padStart(2, "0");
  const time = `${now.getUTCFullYear()}-${two(now.getUTCMonth() + 1)}-${two(now.getUTCDate())}T${two(now.getUTCHours())}-${two(now.getUTCMinutes())}-${two(now.getUTCSeconds())}-${String(now.getUTCMilliseconds()).padStart(3, "0")}Z`;
  return join(dataDir, "spill", `${time}-${process.pid}${kind ? `-${kind}` : ""}`);
}

/**
 * Removes the run folders in `root` (`<data>/spill/`) older than {@link SPILL_KEEP_DAYS}, so saved outputs (a
 * command that printed 100 MB) do not pile up for ever. Only folders named as awl names them, and none whose
 * process still runs. Never throws.
 */
export async function pruneSpillDirs(root: string, now = Date.now()): Promise<void> {
  let names: string[];
  try {
    names = await fsp.readdir(root);
  } catch {
    return;
  }
  const cutoff = now - SPILL_KEEP_DAYS * 24 * 60 * 60 * 1000;
  await Promise.all(
    names.map(async (name) => {
      const m = RUN_FOLDER.exec(name);
      if (!m) return;
      const started = Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`);
      if (!(started < cutoff) || running(Number(m[6]))) return;
      await fsp.rm(join(root, name), { recursive: true, force: true }).catch(() => undefined);
    }),
  );
}

/** Whether a process with this pid runs (a long session's folder is kept however old). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A spill file keeps at most this many characters of a result (a tool that returns gigabytes must not fill the disk). */
export const SPILL_CAP_CHARS = 64 * 1024 * 1024;

/** Default `result_limit`: about 10k tokens of text, enough for a long file, small next to a context window. */
export const DEFAULT_RESULT_LIMIT = 40_000;

/**
 * Returns `content` unchanged when it fits; otherwise its first `limit` characters (never splitting a surrogate
 * pair) followed by a note naming the file with the whole text. A failed write still cuts, and says so.
 */
export async function limitResult(content: string, toolName: string, callId: string, options: SpillOptions): Promise<LimitedResult> {
  if (content.length <= options.limit) return { content };
  const head = cutAt(content, options.limit);
  const total = content.length;
  try {
    const scrubbed = options.scrub ? options.scrub.text(content) : content;
    const kept = scrubbed.length > SPILL_CAP_CHARS ? cutAt(scrubbed, SPILL_CAP_CHARS) : scrubbed;
    const file = await writeSpillFile(options.spillDir, `${safePart(toolName)}-${safePart(callId)}`, kept);
    const where = kept === scrubbed ? `the whole output is in ${file}` : `only its first ${kept.length} characters are in ${file} (spill files are capped at ${SPILL_CAP_CHARS})`;
    const note = `[awl: output cut to the first ${head.length} of ${total} characters; ${where}]`;
    return { content: `${head}\n\n${note}`, spill_file: file };
  } catch (error) {
    const note = `[awl: output cut to the first ${head.length} of ${total} characters; the whole output could not be saved: ${(error as Error).message}]`;
    return { content: `${head}\n\n${note}` };
  }
}

function cutAt(text: string, limit: number): string {
  const code = text.charCodeAt(limit - 1);
  const splitsPair = code >= 0xd800 && code <= 0xdbff; // a high surrogate whose partner would be cut off
  return text.slice(0, splitsPair ? limit - 1 : limit);
}

/** Most UTF-16 units of a spill file's text converted at once (into at most 96 KB of UTF-8). */
const WRITE_PIECE = 32 * 1024;

/**
 * Writes `text` to a new file (`wx`, 0600) through one buffer of 96 KB, a piece at a time (no surrogate pair split).
 * The bytes of a whole result of megabytes would be buffers that stay until a collection, and the memory glibc
 * then keeps for good (issue 30, "Lua slots return their memory after big results").
 */
async function writeInPieces(file: string, text: string): Promise<void> {
  const handle = await fsp.open(file, "wx", 0o600);
  try {
    const buffer = Buffer.allocUnsafe(3 * WRITE_PIECE);
    for (let at = 0; at < text.length; ) {
      const piece = text.length - at > WRITE_PIECE ? cutAt(text.slice(at, at + WRITE_PIECE), WRITE_PIECE) : text.slice(at);
      at += piece.length;
      const length = buffer.write(piece);
      for (let written = 0; written < length; ) written += (await handle.write(buffer, written, length - written)).bytesWritten;
    }
  } finally {
    await handle.close();
  }
}

/** Writes with `wx` so two results with the same call id (replayed scripts reuse ids) never overwrite each other. */
async function writeSpillFile(dir: string, base: string, content: string): Promise<string> {
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 }); // outputs may hold anything a tool read: private, as sessions are
  for (let attempt = 1; ; attempt++) {
    const file = join(dir, attempt === 1 ? `${base}.txt` : `${base}-${attempt}.txt`);
    try {
      await writeInPieces(file, content);
      return file;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 1000) throw error;
    }
  }
}

/** Model-chosen ids and tool names become file names: keep them to safe characters. */
function safePart(text: string): string {
  return text.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 80) || "result";
}
