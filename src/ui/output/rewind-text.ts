/**
 * How rewind points, restores and the session tree read on a terminal (the `/rewind`, `/tree` and `/fork` commands
 * of the interactive mode; `awl rewind` prints the same restore lines).
 */
import type { BranchPrompt, FileChangeCounts, RestoreChanges, RewindPoint } from "../../agent-session/branching.js";
import { oneLine } from "./tool-block.js";

/** `2 added, 1 modified, 0 deleted since`. */
export function changeCountsText(changes: FileChangeCounts): string {
  return `${changes.added} added, ${changes.modified} modified, ${changes.deleted} deleted since`;
}

/** One prompt of the rewind list: its number, its first words, what changed in the files since. */
export function rewindPointLabel(point: RewindPoint): string {
  const files = point.changes ? changeCountsText(point.changes) : "files: no checkpoint";
  return `${String(point.number).padStart(2)}. ${oneLine(point.text, 40)}  · ${files}`;
}

/** The restore's changes, one file a line (`restore`, `create`, `delete`), after `heading`. */
export function restoreLines(heading: string, files: RestoreChanges): string[] {
  return [
    heading,
    ...files.restore.map((p) => `  restore  ${p}`),
    ...files.create.map((p) => `  create   ${p}`),
    ...files.delete.map((p) => `  delete   ${p}`),
  ];
}

/** Whether a restore changes nothing. */
export function nothingToRestore(files: RestoreChanges): boolean {
  return files.restore.length + files.create.length + files.delete.length === 0;
}

/** `14:02` in the local time zone (empty for an unknown time). */
function clock(iso: string): string {
  const d = new Date(iso);
  if (iso === "" || Number.isNaN(d.getTime())) return "     ";
  return `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
}

/** One prompt of the session tree: indented by its depth, `└` where a branch starts, its time and first words (the picker marks the one in use). */
export function branchPromptLabel(row: BranchPrompt): string {
  const indent = "  ".repeat(Math.max(0, row.depth - (row.branchStart ? 1 : 0)));
  const mark = row.branchStart ? "└ " : row.depth > 0 ? "  " : "";
  return `${indent}${mark}${clock(row.time)}  ${oneLine(row.text, 50)}`;
}
