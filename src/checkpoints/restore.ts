/**
 * Puts a workspace back as a checkpoint recorded it (docs/checkpoints.md). The plan compares the checkpoint with the
 * workspace as it is now (scanned just before): files to write (bytes and mode), files and folders to delete, folders
 * to create. A planned path that differs from the newest checkpoint (awl's last view of it) was changed outside awl
 * and is a conflict: named, and overwritten only when the caller confirms.
 *
 * The plan is written to a journal (fsynced) before any file changes; each file is written to a temporary file beside
 * it and renamed over it, so a kill leaves every file whole (old or new), and running the journal again finishes it.
 */
import * as fs from "node:fs";
import { dirname, join } from "node:path";
import { createHash } from "node:crypto";
import type { ObjectStore } from "./objects.js";
import { flattenDiffering, type FlatEntry } from "./tree.js";

export type RestoreOp =
  | { op: "write"; path: string; kind: "f" | "l"; object: string; mode: number }
  | { op: "delete"; path: string }
  | { op: "rmdir"; path: string }
  | { op: "mkdir"; path: string; mode: number };

export interface RestorePlan {
  /** In the order they run: deletions deepest first, then folders, then files. */
  ops: RestoreOp[];
  added: string[];
  modified: string[];
  deleted: string[];
  /** Paths the restore would change that were changed outside awl since its newest checkpoint. */
  conflicts: string[];
}

/**
 * What restoring `target` over `current` does; `baseline` is awl's newest checkpoint (conflicts are paths where
 * `current` differs from it). Paths a tree skipped (too large, unreadable) are left alone.
 */
export function planRestore(objects: ObjectStore, target: string, current: string, baseline: string | undefined): RestorePlan {
  // Only where the two differ: a folder the checkpoint and the present hold alike needs nothing (nor its baseline).
  const maps = flattenDiffering(objects, target, current, baseline === undefined || baseline === current ? [] : [baseline]);
  const want = maps[0]!;
  const have = maps[1]!;
  const last = baseline === undefined ? undefined : baseline === current ? have : maps[2];
  const plan: RestorePlan = { ops: [], added: [], modified: [], deleted: [], conflicts: [] };
  const skippedUnder = (tree: Map<string, FlatEntry>, path: string): boolean => {
    for (let at = path; at.includes("/"); ) {
      at = at.slice(0, at.lastIndexOf("/"));
      if (tree.get(at)?.kind === "s") return true;
    }
    return tree.get(path)?.kind === "s";
  };
  const conflict = (path: string): void => {
    if (last && !same(last.get(path), have.get(path))) plan.conflicts.push(path);
  };
  const deletes: RestoreOp[] = [];
  for (const [path, entry] of have) {
    const wanted = want.get(path);
    if (entry.kind === "s" || skippedUnder(want, path) || skippedUnder(have, path)) continue;
    // Kept when the checkpoint has it as the same sort of thing (a folder, or a file or link).
    if (wanted && (wanted.kind === "d") === (entry.kind === "d")) continue;
    deletes.push(entry.kind === "d" ? { op: "rmdir", path } : { op: "delete", path });
    if (entry.kind !== "d" && !wanted) {
      plan.deleted.push(path);
      conflict(path);
    }
  }
  // Files and links before their folders, deepest first.
  deletes.sort((a, b) => depth(b.path) - depth(a.path) || (a.op === "rmdir" ? 1 : 0) - (b.op === "rmdir" ? 1 : 0));
  const creates: RestoreOp[] = [];
  const writes: RestoreOp[] = [];
  for (const [path, entry] of want) {
    const now = have.get(path);
    if (entry.kind === "s" || same(entry, now)) continue;
    // Not readable now, or too large: it cannot be compared, so it is a conflict.
    if (now?.kind === "s") plan.conflicts.push(path);
    if (entry.kind === "d") {
      if (now?.kind !== "d") creates.push({ op: "mkdir", path, mode: entry.mode });
      continue;
    }
    writes.push({ op: "write", path, kind: entry.kind, object: entry.object!, mode: entry.mode });
    (now && now.kind !== "d" ? plan.modified : plan.added).push(path);
    if (now) conflict(path);
  }
  plan.ops = [...deletes, ...creates, ...writes];
  return plan;
}

function same(a: FlatEntry | undefined, b: FlatEntry | undefined): boolean {
  if (!a || !b) return a === b;
  return a.kind === b.kind && (a.kind === "d" || (a.object === b.object && a.mode === b.mode));
}

function depth(path: string): number {
  let n = 0;
  for (const c of path) if (c === "/") n++;
  return n;
}

/** The journal of a restore under way, in the workspace's own folder of the store. */
export interface Journal {
  version: 1;
  root: string;
  /** The checkpoint restored. */
  checkpoint: string;
  ops: RestoreOp[];
}

/** Writes the journal (fsynced) before anything changes, so a killed restore can be finished. */
export function writeJournal(file: string, journal: Journal): void {
  fs.mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.tmp`;
  const fd = fs.openSync(tmp, "w", 0o600);
  try {
    fs.writeSync(fd, JSON.stringify(journal));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

/** The journal of a restore that did not finish, if there is one. */
export function readJournal(file: string): Journal | undefined {
  try {
    const value = JSON.parse(fs.readFileSync(file, "utf8")) as Journal;
    return value.version === 1 && Array.isArray(value.ops) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs every operation of the journal (each can run again: a rerun after a kill finishes the restore), then removes
 * it. Every object is read and checked before the first file changes. `afterOp` is for tests that stop halfway.
 */
export function applyJournal(objects: ObjectStore, file: string, journal: Journal, afterOp?: (index: number) => void): void {
  const data = new Map<string, Buffer>();
  for (const op of journal.ops) if (op.op === "write" && !data.has(op.object)) data.set(op.object, objects.get(op.object));
  journal.ops.forEach((op, index) => {
    const abs = join(journal.root, op.path);
    switch (op.op) {
      case "delete":
        fs.rmSync(abs, { force: true });
        break;
      case "rmdir":
        try {
          fs.rmdirSync(abs);
        } catch (e) {
          const code = (e as { code?: string }).code;
          // Not empty: something ignored or skipped is inside, and stays.
          if (code !== "ENOENT" && code !== "ENOTEMPTY" && code !== "EEXIST") throw e;
        }
        break;
      case "mkdir":
        fs.mkdirSync(abs, { recursive: true });
        fs.chmodSync(abs, op.mode);
        break;
      case "write":
        writeAtomically(abs, op, data.get(op.object)!);
        break;
    }
    afterOp?.(index);
  });
  fs.rmSync(file, { force: true });
}

/** The temporary file a write goes through: beside its target (the rename stays on one file system), named from it. */
function temporaryFor(abs: string): string {
  return join(dirname(abs), `.awl-rewind-${createHash("sha256").update(abs).digest("hex").slice(0, 12)}`);
}

function writeAtomically(abs: string, op: Extract<RestoreOp, { op: "write" }>, data: Buffer): void {
  fs.mkdirSync(dirname(abs), { recursive: true });
  const tmp = temporaryFor(abs);
  fs.rmSync(tmp, { force: true });
  if (op.kind === "l") {
    fs.symlinkSync(data.toString("utf8"), tmp);
  } else {
    const fd = fs.openSync(tmp, "w", op.mode);
    try {
      fs.writeSync(fd, data);
      fs.fchmodSync(fd, op.mode);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }
  // A folder where the file goes (left by an earlier kill between its deletion and this write) cannot be renamed over.
  const there = fs.lstatSync(abs, { throwIfNoEntry: false });
  if (there?.isDirectory()) fs.rmdirSync(abs);
  fs.renameSync(tmp, abs);
}
