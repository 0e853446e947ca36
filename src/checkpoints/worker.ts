/**
 * The checkpoint worker: a thread that records the workspace while the main thread sends the request and streams
 * the answer (a text-only turn never waits for it). Messages: `{ id, request }` in, `{ id, record }` out.
 */
import { parentPort, workerData } from "node:worker_threads";
import { CheckpointStore, type TakeCheckpoint } from "./store.js";

const { dir, excluded } = workerData as { dir: string; excluded: string[] };
const store = new CheckpointStore(dir, excluded);

parentPort?.on("message", (message: { id: number; request?: TakeCheckpoint; flush?: true }) => {
  if (message.flush) {
    store.flush();
    parentPort?.postMessage({ id: message.id });
    return;
  }
  parentPort?.postMessage({ id: message.id, record: store.take(message.request!) });
});
