/**
 * Pruning the checkpoint store (docs/checkpoints.md, "Pruning"): the checkpoints of sessions that are gone or were
 * last used longer ago than the retention go, then every object that no remaining checkpoint and no workspace's
 * scan index reaches.
 */
import * as fs from "node:fs";
import { join } from "node:path";
import type { CheckpointStore } from "./store.js";
import { reachable } from "./tree.js";

/** Days a session's checkpoints are kept after its last use unless configured otherwise. */
export const DEFAULT_RETENTION_DAYS = 30;
/** Automatic pruning runs at most this often. */
const PRUNE_EVERY_MS = 24 * 3600 * 1000;

export interface PruneOutcome {
  sessions: number;
  objects: number;
  bytes: number;
}

export function pruneCheckpoints(store: CheckpointStore, sessionDir: string, retentionDays: number = DEFAULT_RETENTION_DAYS, now: number = Date.now()): PruneOutcome {
  const outcome: PruneOutcome = { sessions: 0, objects: 0, bytes: 0 };
  const kept: string[] = [];
  for (const session of store.sessions()) {
    const used = fs.statSync(join(sessionDir, `${session}.jsonl`), { throwIfNoEntry: false })?.mtimeMs;
    if (used === undefined || now - used > retentionDays * 86_400_000) {
      store.removeSession(session);
      outcome.sessions++;
    } else kept.push(session);
  }
  const live = new Set<string>();
  for (const session of kept) for (const record of store.records(session)) if (record.tree) reachable(store.objects, record.tree, live);
  // A running awl may reuse what its workspace's index names without reading the file again: kept too.
  for (const object of store.indexedObjects()) live.add(object);
  for (const { hash, size } of store.objects.list()) {
    if (live.has(hash)) continue;
    store.objects.remove(hash);
    outcome.objects++;
    outcome.bytes += size;
  }
  removeLeftovers(join(store.dir, "tmp"), now);
  writeMarker(store, now);
  return outcome;
}

/** What killed runs left in `tmp/` a day ago or more: objects being written, a watch's own folder. */
function removeLeftovers(tmp: string, now: number): void {
  let names: string[];
  try {
    names = fs.readdirSync(tmp);
  } catch {
    return;
  }
  for (const name of names) {
    const at = join(tmp, name);
    const changed = fs.lstatSync(at, { throwIfNoEntry: false })?.mtimeMs;
    if (changed !== undefined && now - changed >= PRUNE_EVERY_MS) fs.rmSync(at, { recursive: true, force: true });
  }
}

/** Prunes when the last pruning was a day ago or more (the checkpoint worker asks at its first checkpoint). */
export function pruneIfDue(store: CheckpointStore, sessionDir: string, retentionDays: number, now: number = Date.now()): PruneOutcome | undefined {
  const last = fs.statSync(markerFile(store), { throwIfNoEntry: false })?.mtimeMs;
  if (last !== undefined && now - last < PRUNE_EVERY_MS) return undefined;
  if (last === undefined) {
    // A new store: nothing to prune yet; the first pruning is a day from now.
    writeMarker(store, now);
    return undefined;
  }
  return pruneCheckpoints(store, sessionDir, retentionDays, now);
}

function markerFile(store: CheckpointStore): string {
  return join(store.dir, "last-prune");
}

function writeMarker(store: CheckpointStore, now: number): void {
  try {
    fs.mkdirSync(store.dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(markerFile(store), "", { mode: 0o600 });
    fs.utimesSync(markerFile(store), now / 1000, now / 1000);
  } catch {
    // pruning is tried again next time
  }
}
