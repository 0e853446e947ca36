/**
 * What an `edit` or `write` call asked about would change, as a unified diff of the file (docs/permissions.md,
 * "Asking"): removed lines `-` (red), added lines `+` (green), and where a removed line and its replacement are
 * alike, the words that changed marked within them. The file is read as the call would find it now; a call the
 * file does not fit (its `old_string` is not there, the file cannot be read) gets no diff, and the question shows
 * the arguments as they are.
 */
import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { diffWordsWithSpace, structuredPatch } from "diff";
import { showControls } from "./safe-text.js";

/** Files bigger than this are not read for a diff (the question shows the arguments). */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

/** A call that changes one file: its path, and the file's text before and after. */
export interface FileChange {
  path: string;
  before: string;
  after: string;
  /** The file does not exist yet. */
  created: boolean;
}

/**
 * The change an `edit` (`path`, `old_string`, `new_string`, `replace_all`) or `write` (`path`, `content`) call
 * makes, read from the file now; undefined when the call is neither or does not fit the file.
 * `resolvedPath` is the path the permission engine resolved (what the tool will open).
 */
export function fileChangeOf(tool: string, input: unknown, resolvedPath: string | undefined, cwd: string): FileChange | undefined {
  if (typeof input !== "object" || input === null) return undefined;
  const args = input as Record<string, unknown>;
  if (typeof args.path !== "string") return undefined;
  const file = resolvedPath ?? resolve(cwd, args.path);
  const before = readText(file);
  if (tool === "write" && typeof args.content === "string") {
    if (before === null) return undefined;
    return { path: args.path, before: before ?? "", after: args.content, created: before === undefined };
  }
  if (tool === "edit" && typeof args.old_string === "string" && typeof args.new_string === "string") {
    if (before === undefined || before === null || args.old_string === "") return undefined;
    const at = before.indexOf(args.old_string);
    if (at < 0) return undefined;
    const after = args.replace_all === true ? before.split(args.old_string).join(args.new_string) : before.slice(0, at) + args.new_string + before.slice(at + args.old_string.length);
    return { path: args.path, before, after, created: false };
  }
  return undefined;
}

/** The file's text; undefined when there is none; null when it cannot be read or is too big. */
function readText(file: string): string | undefined | null {
  try {
    const stat = statSync(file);
    if (!stat.isFile() || stat.size > MAX_FILE_BYTES) return null;
    return readFileSync(file, "utf8");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? undefined : null;
  }
}

const RED = ["\x1b[31m", "\x1b[39m"] as const;
const GREEN = ["\x1b[32m", "\x1b[39m"] as const;
/** Changed words within a changed line: reverse video in the line's colour. */
const MARK = ["\x1b[7m", "\x1b[27m"] as const;
const DIM = ["\x1b[2m", "\x1b[22m"] as const;

/** The diff's lines (indented by two, no trailing newline), coloured when `color`. */
export function diffLines(change: FileChange, color: boolean): string[] {
  const patch = structuredPatch(change.path, change.path, change.before, change.after, "", "", { context: 3 });
  const paint = (pair: readonly [string, string], text: string): string => (color ? `${pair[0]}${text}${pair[1]}` : text);
  const safe = (text: string): string => showControls(text, "\t");
  const out: string[] = [];
  for (const hunk of patch.hunks) {
    out.push(`  ${paint(DIM, `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`)}`);
    const lines = hunk.lines.filter((l) => !l.startsWith("\\"));
    for (let i = 0; i < lines.length; ) {
      const line = lines[i]!;
      if (!line.startsWith("-")) {
        out.push(line.startsWith("+") ? `  ${paint(GREEN, `+${safe(line.slice(1))}`)}` : `  ${paint(DIM, ` ${safe(line.slice(1))}`)}`);
        i++;
        continue;
      }
      // A run of removed lines and the added lines right after it: alike pairs get their changed words marked.
      let end = i;
      while (end < lines.length && lines[end]!.startsWith("-")) end++;
      let added = end;
      while (added < lines.length && lines[added]!.startsWith("+")) added++;
      const removed = lines.slice(i, end).map((l) => l.slice(1));
      const put = lines.slice(end, added).map((l) => l.slice(1));
      const paired = color && removed.length === put.length;
      removed.forEach((text, k) => out.push(`  ${paired ? wordLine("-", text, put[k]!, RED, "removed") : paint(RED, `-${safe(text)}`)}`));
      put.forEach((text, k) => out.push(`  ${paired ? wordLine("+", removed[k]!, text, GREEN, "added") : paint(GREEN, `+${safe(text)}`)}`));
      i = added;
    }
  }
  return out;
}

/** One side of a changed line with the words that differ from the other side marked (the line whole when they share little). */
function wordLine(sign: string, before: string, after: string, pair: readonly [string, string], side: "added" | "removed"): string {
  const parts = diffWordsWithSpace(before, after);
  const same = parts.filter((p) => !p.added && !p.removed).reduce((n, p) => n + p.value.length, 0);
  const text = side === "added" ? after : before;
  if (same < Math.max(before.length, after.length) / 2) return `${pair[0]}${sign}${showControls(text, "\t")}${pair[1]}`;
  const shown = parts
    .filter((p) => (side === "added" ? !p.removed : !p.added))
    .map((p) => (p[side] ? `${MARK[0]}${showControls(p.value, "\t")}${MARK[1]}` : showControls(p.value, "\t")))
    .join("");
  return `${pair[0]}${sign}${shown}${pair[1]}`;
}
