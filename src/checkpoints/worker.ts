/**
 * The checkpoint worker: a thread that records the workspace while the main thread sends the request and streams
 * the answer (a text-only turn never waits for it). Messages: `{ id, request }` in, `{ id, record }` out.
 */
import { parentPort, workerData } from "node:worker_threads";
import { pruneIfDue } from "./prune.js";
import { CheckpointStore, type TakeCheckpoint } from "./store.js";

const { dir, excluded, sessionDir, retentionDays } = workerData as { dir: string; excluded: string[]; sessionDir: string; retentionDays: number };
const store = new CheckpointStore(dir, excluded);
let pruneChecked = false;

parentPort?.on("message", (message: { id: number; request?: TakeCheckpoint; flush?: true }) => {
  if (message.flush) {
    store.flush();
    parentPort?.postMessage({ id: message.id });
    return;
  }
  parentPort?.postMessage({ id: message.id, record: store.take(message.request!) });
  if (!pruneChecked) {
    // Once a run, after its first checkpoint is saved: old sessions' checkpoints go (docs/checkpoints.md, "Pruning").
    pruneChecked = true;
    try {
      pruneIfDue(store, sessionDir, retentionDays);
    } catch {
      // tried again by a later run
    }
  }
});
