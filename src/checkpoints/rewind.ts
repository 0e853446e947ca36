/**
 * Rewinding a session's workspace to the checkpoint taken before one of its prompts (docs/checkpoints.md):
 * finish a restore that was killed, record the workspace as it is now (so nothing is lost, and to compare),
 * plan, refuse to overwrite what was changed outside awl unless confirmed, then restore through the journal.
 */
import { join, resolve } from "node:path";
import { applyJournal, planRestore, readJournal, writeJournal, type RestorePlan } from "./restore.js";
import type { CheckpointRecord, CheckpointStore } from "./store.js";
import type { ScanLimits } from "./scan.js";

export interface RewindCodeRequest {
  session: string;
  root: string;
  /** The prompt (1-based) whose turn's start is restored. */
  prompt: number;
  /** That prompt's message id in the session. */
  message?: string;
  /** The prompt the session is at now (recorded with the checkpoint of the present state). */
  current: number;
  /** Overwrite files changed outside awl since its newest checkpoint. */
  overwriteChanged?: boolean;
  /** Only plan. */
  dryRun?: boolean;
  limits?: Partial<ScanLimits>;
}

export type RewindCodeOutcome =
  | { status: "restored"; plan: RestorePlan; checkpoint: CheckpointRecord; finishedEarlier: boolean }
  | { status: "planned"; plan: RestorePlan; checkpoint: CheckpointRecord; finishedEarlier: boolean }
  | { status: "conflicts"; plan: RestorePlan; checkpoint: CheckpointRecord; finishedEarlier: boolean }
  | { status: "error"; message: string; finishedEarlier: boolean };

/**
 * The checkpoint taken before prompt number `prompt`'s turn, or why there is none to use. `message` (the prompt's
 * id in the session) picks it on its branch; records without one are matched by number.
 */
export function checkpointBefore(records: readonly CheckpointRecord[], prompt: number, root: string, message?: string): CheckpointRecord | string {
  const dir = resolve(root);
  const at = records.filter((r) => r.when === "turn" && r.root === dir && (r.message !== undefined && message !== undefined ? r.message === message : r.prompt === prompt));
  const usable = at.find((r) => r.complete && r.tree);
  if (usable) return usable;
  // A turn that changed nothing took no checkpoint (a single-turn run): the session's next view of the workspace is
  // the state its files had before it, as far as awl changed them.
  const none = at.find((r) => r.no_changes);
  if (none) {
    const next = records.slice(records.indexOf(none) + 1).find((r) => r.complete && r.tree && r.root === dir);
    return next ?? `prompt ${prompt}'s turn changed no files and nothing was recorded since, so there is nothing to restore`;
  }
  if (at.length > 0) return `the checkpoint before prompt ${prompt} is incomplete (${at[0]!.error ?? "not every file was recorded"}), so it cannot be used for a restore`;
  return `no checkpoint was taken before prompt ${prompt} in ${resolve(root)}`;
}

/** awl's newest view of the workspace: its newest complete checkpoint that is not a rewind's record of the present. */
export function baselineOf(records: readonly CheckpointRecord[], root: string): CheckpointRecord | undefined {
  const dir = resolve(root);
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i]!;
    if (r.complete && r.tree && r.root === dir && r.when !== "rewind") return r;
  }
  return undefined;
}

/** The restore's plan from the record of the present, or why there is none. */
function planPresent(store: CheckpointStore, now: CheckpointRecord, target: CheckpointRecord, baseline: CheckpointRecord | undefined): { plan: RestorePlan } | string {
  if (!now.complete || !now.tree) return `the workspace could not be recorded as it is now, so restoring could lose changes: ${now.error ?? "incomplete"}`;
  try {
    return { plan: planRestore(store.objects, target.tree!, now.tree, baseline?.tree) };
  } catch (e) {
    return String(e instanceof Error ? e.message : e);
  }
}

/** The file of a restore under way in workspace `root`. */
export function journalFile(store: CheckpointStore, root: string): string {
  return join(store.workspaceDir(root), "rewind-journal.json");
}

/** Finishes a restore that was killed halfway, if there is one; true when there was. */
export function finishInterrupted(store: CheckpointStore, root: string): boolean {
  const file = journalFile(store, root);
  const journal = readJournal(file);
  if (!journal) return false;
  applyJournal(store.objects, file, journal);
  return true;
}

export function rewindCode(store: CheckpointStore, request: RewindCodeRequest): RewindCodeOutcome {
  const root = resolve(request.root);
  let finishedEarlier: boolean;
  try {
    finishedEarlier = finishInterrupted(store, root);
  } catch (e) {
    return { status: "error", message: `could not finish the restore that was interrupted: ${String(e)}`, finishedEarlier: false };
  }
  const records = store.records(request.session);
  const target = checkpointBefore(records, request.prompt, root, request.message);
  if (typeof target === "string") return { status: "error", message: target, finishedEarlier };
  const baseline = baselineOf(records, root);
  const present = { session: request.session, root, prompt: request.current, when: "rewind" as const, ...(request.limits && { limits: request.limits }) };
  let planned = planPresent(store, store.take(present), target, baseline);
  // Recorded from what a watch reported (docs/checkpoints.md, "The watch"): the files the restore would write over or
  // delete are checked against their metadata first; any doubt, and the present is recorded by reading everything.
  if (typeof planned !== "string" && store.lastScanFull(root) === undefined) {
    const { plan } = planned;
    if (!store.unchangedSinceScan(root, request.limits, [...plan.modified, ...plan.deleted], plan.added)) planned = planPresent(store, store.take({ ...present, full: true }), target, baseline);
  }
  if (typeof planned === "string") return { status: "error", message: planned, finishedEarlier };
  const { plan } = planned;
  if (plan.conflicts.length > 0 && !request.overwriteChanged) return { status: "conflicts", plan, checkpoint: target, finishedEarlier };
  if (request.dryRun || plan.ops.length === 0) return { status: request.dryRun ? "planned" : "restored", plan, checkpoint: target, finishedEarlier };
  const file = journalFile(store, root);
  try {
    writeJournal(file, { version: 1, root, checkpoint: target.id, ops: plan.ops });
    applyJournal(store.objects, file, { version: 1, root, checkpoint: target.id, ops: plan.ops });
  } catch (e) {
    return { status: "error", message: `the restore stopped: ${String(e instanceof Error ? e.message : e)}; run the rewind again to finish it`, finishedEarlier };
  }
  // The restored state is awl's view of the workspace from now on (what later conflicts are judged against): only the
  // folders the restore changed are read again (a change made elsewhere meanwhile shows as one made outside awl).
  const changed = plan.ops.map((op) => op.path);
  store.take({ session: request.session, root, prompt: request.current, when: "end", changed, ...(request.limits && { limits: request.limits }) });
  return { status: "restored", plan, checkpoint: target, finishedEarlier };
}
