/**
 * Checkpoints taken off the main thread (worker.ts), one after another in the order asked. `take` returns at once;
 * its promise settles when the checkpoint is saved. The worker starts at the first checkpoint and ends at `close`.
 */
import { Worker } from "node:worker_threads";
import { packagePath } from "../util/package-path.js";
import type { RewindCodeOutcome, RewindCodeRequest } from "./rewind.js";
import type { CheckpointRecord, TakeCheckpoint } from "./store.js";

export class Checkpointer {
  private worker: Worker | undefined;
  private next = 0;
  private readonly waiting = new Map<number, (value: unknown) => void>();
  /** What the worker has to say about its watch (each once), as it says it. */
  onNotice: ((text: string) => void) | undefined;

  constructor(
    readonly dir: string,
    /** Absolute folders never recorded. */
    readonly excluded: readonly string[],
    /** Where the sessions are, and how many days old sessions' checkpoints are kept (pruning). */
    private readonly retention: { sessionDir: string; days: number },
  ) {}

  /** Records the workspace; resolves with the checkpoint (`complete: false` and its `error` when it could not be taken). */
  take(request: TakeCheckpoint): Promise<CheckpointRecord> {
    return this.send<CheckpointRecord>({ request }).then(
      (record) => record ?? { id: "", session: request.session, prompt: request.prompt, when: request.when, created: new Date().toISOString(), root: request.root, complete: false, error: "the checkpoint worker stopped" },
    );
  }

  /** Restores a checkpoint in the worker, on its (watched) view of the workspace: rewind.ts's rewindCode. */
  rewind(request: RewindCodeRequest): Promise<RewindCodeOutcome> {
    return this.send<RewindCodeOutcome>({ rewind: request }).then((outcome) => outcome ?? { status: "error", message: "the checkpoint worker stopped", finishedEarlier: false });
  }

  /** Starts the worker now (its start and module load, ≈ 90 ms, then overlap what runs meanwhile); takes nothing. */
  prewarm(): void {
    this.start();
  }

  /** Saves the scan index and ends the worker once every checkpoint asked for is saved. */
  async close(): Promise<void> {
    if (!this.worker) return;
    await this.send({ flush: true });
    await this.worker.terminate();
    this.worker = undefined;
  }

  /**
   * Ends the worker at once, whatever it is doing: the checkpoints under way are lost (each resolves incomplete), the
   * store stays whole (objects and the index are written aside and renamed into place; a checkpoint's line is one write).
   */
  async abandon(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    await worker.terminate();
  }

  private send<T>(message: { request?: TakeCheckpoint; rewind?: RewindCodeRequest; flush?: true }): Promise<T | undefined> {
    const worker = this.start();
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve as (value: unknown) => void);
      worker.postMessage({ id, ...message });
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(packagePath("dist", "checkpoints", "worker.js"), {
      workerData: { dir: this.dir, excluded: [...this.excluded], sessionDir: this.retention.sessionDir, retentionDays: this.retention.days },
    });
    worker.unref();
    worker.on("message", (message: { id: number; value?: unknown; notices: string[] }) => {
      for (const notice of message.notices) this.onNotice?.(notice);
      this.waiting.get(message.id)?.(message.value);
      this.waiting.delete(message.id);
    });
    const fail = (): void => {
      for (const resolve of this.waiting.values()) resolve(undefined);
      this.waiting.clear();
      this.worker = undefined;
    };
    worker.on("error", fail);
    worker.on("exit", fail);
    this.worker = worker;
    return worker;
  }
}
