/**
 * The checkpoint worker: a thread that records the workspace while the main thread sends the request and streams
 * the answer (a text-only turn never waits for it). It lives as long as the run, so on Linux it watches the
 * workspace's folders (folder-watch.ts) and a checkpoint reads only what changed; a rewind of the run's session runs
 * here too, on the same view. Messages, handled one after another: `{ id, request }` (a checkpoint), `{ id, rewind }`
 * (rewindCode), `{ id, flush }` in; `{ id, value, notices }` out.
 */
import { parentPort, workerData } from "node:worker_threads";
import { pruneIfDue } from "./prune.js";
import { rewindCode, type RewindCodeRequest } from "./rewind.js";
import { CheckpointStore, type TakeCheckpoint } from "./store.js";

const { dir, excluded, sessionDir, retentionDays } = workerData as { dir: string; excluded: string[]; sessionDir: string; retentionDays: number };
// fs.watch is reliable per folder on Linux (inotify); elsewhere every checkpoint reads the whole workspace.
const store = new CheckpointStore(dir, excluded, process.platform === "linux");
let pruneChecked = false;
let queue: Promise<void> = Promise.resolve();

type Message = { id: number; request?: TakeCheckpoint; rewind?: RewindCodeRequest; flush?: true };

parentPort?.on("message", (message: Message) => {
  queue = queue.then(() => handle(message));
});

async function handle(message: Message): Promise<void> {
  let value: unknown;
  if (message.flush) {
    store.flush();
    store.close();
  } else if (message.rewind) {
    await store.settle(message.rewind.root);
    value = rewindCode(store, message.rewind);
  } else if (message.request) {
    await store.settle(message.request.root);
    value = store.take(message.request);
  }
  parentPort?.postMessage({ id: message.id, value, notices: store.notices() });
  if (message.request?.idle) store.verifyIfDue(message.request);
  if (message.request && !pruneChecked) {
    // Once a run, after its first checkpoint is saved: old sessions' checkpoints go (docs/checkpoints.md, "Pruning").
    pruneChecked = true;
    try {
      pruneIfDue(store, sessionDir, retentionDays);
    } catch {
      // tried again by a later run
    }
  }
}
