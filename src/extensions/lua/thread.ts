/**
 * A Lua worker thread as it starts: the Worker, the memory it shares with the main thread, and the channel of
 * its host requests. It instantiates wasmoon's module once it is compiled and boots awl's Lua runtime when told to
 * (or with its first load), so it can start before the extensions are known (head-start.ts). A WorkerSlot then
 * drives it.
 */
import { setFlagsFromString } from "node:v8";
import { MessageChannel, Worker, type MessagePort } from "node:worker_threads";
import { userCacheDir } from "../../config/paths.js";
import { runtimeDir, workerScriptPath } from "./assets.js";
import { CONTROL_OWED, CONTROL_SIZE, OWED_ABANDONED, OWED_NOTHING, type FromWorker, type LoadSettings, type ToWorker, type WasmModule, type WorkerInit } from "./protocol.js";
import type { LuaPoolOptions } from "./types.js";
import { os } from "../../util/lazy-builtin.js";

/** What a thread boots with: everything a worker needs before its extensions. */
export type ThreadBoot = Omit<WorkerInit, "control" | "requestPort">;

const DEFAULT_MEMORY_LIMIT = 256 * 1024 * 1024;
const DEFAULT_LOAD_TIMEOUT_MS = 10_000;

/** What a pool's workers load, under which limits, for these options (the pool's defaults included). */
export function loadSettingsFor(options: Pick<LuaPoolOptions, "extensions" | "memoryLimitBytes" | "loadTimeoutMs" | "loadFirst">): LoadSettings {
  return {
    extensions: options.extensions,
    memoryLimitBytes: options.memoryLimitBytes ?? DEFAULT_MEMORY_LIMIT,
    loadTimeoutMs: options.loadTimeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS,
    ...(options.loadFirst && options.loadFirst.length > 0 && { first: options.loadFirst }),
  };
}

/** The boot of a pool's workers for these options (the pool's defaults included). */
export function threadBootFor(options: Pick<LuaPoolOptions, "env" | "cwd" | "luaPath" | "textHost">): ThreadBoot {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(options.env ?? process.env)) if (v !== undefined) env[k] = v;
  return {
    runtimeDir: runtimeDir(),
    env,
    luaPath: options.luaPath ?? [],
    home: env.HOME ?? os().homedir(),
    cwd: options.cwd ?? process.cwd(),
    codeCacheDir: userCacheDir(env),
    ...(options.textHost && { textFromHost: true }),
  };
}

let compilerConfigured = false;
/**
 * Lua workers optimize their JavaScript on their own thread, never in V8's background compile jobs. A worker
 * whose event loop ends waits in `NodePlatform::DrainTasks` for every background task in the process; a
 * background TurboFan job of that same worker that needs a garbage collection waits for the worker's thread:
 * a deadlock (nodejs/node#54918) that then blocks every later worker exit and `process.exit()` itself. The
 * workers' small young generation makes such collections frequent. The flag is read when an isolate is
 * created, so only isolates created from now on (the workers) are affected, not the main thread's.
 */
function compileWorkersSynchronously(): void {
  if (compilerConfigured) return;
  compilerConfigured = true;
  setFlagsFromString("--no-concurrent-recompilation");
}

export class LuaThread {
  readonly control = new Int32Array(new SharedArrayBuffer(CONTROL_SIZE * 4));
  readonly worker: Worker;
  /** The main thread's end of the channel the worker's host requests come on. */
  readonly requests: MessagePort;
  /** Settles once the worker is past Node's own start of its thread ('online'), or gone. */
  readonly online: Promise<void>;
  /** Settles once wasmoon's module went to the worker; rejects when it could not be compiled. */
  readonly compiled: Promise<void>;
  /** The thread has ended. */
  exited = false;
  /** Why the worker said it cannot go on, if it did (its exit is then reported with it). */
  fatal: string | undefined;
  /** What the worker was told to load (see `load`). */
  loadSent: LoadSettings | undefined;
  /** What the worker said before anyone listened (`listen`): a load sent ahead may already be done. */
  private unheard: FromWorker[] | undefined = [];

  /** Starts the worker now: Node's start of a thread and the worker's own modules take longer than compiling `module`. */
  constructor(
    readonly boot: ThreadBoot,
    module: Promise<WasmModule>,
  ) {
    compileWorkersSynchronously();
    const channel = new MessageChannel();
    const init: WorkerInit = { ...boot, control: this.control.buffer as SharedArrayBuffer, requestPort: channel.port2 };
    this.worker = new Worker(workerScriptPath(), {
      workerData: init,
      transferList: [channel.port2],
      resourceLimits: { maxYoungGenerationSizeMb: 2 }, // a worker holds little JS: keep its RSS small
    });
    this.requests = channel.port1;
    const worker = this.worker;
    this.online = new Promise((resolve) => {
      worker.once("online", () => resolve());
      worker.once("exit", () => resolve());
    });
    worker.once("exit", () => (this.exited = true));
    worker.on("message", (msg: FromWorker) => {
      if (msg.type === "fatal") this.fatal = msg.message;
      this.unheard?.push(msg);
    });
    this.compiled = module.then((compiled) => {
      if (!this.exited) worker.postMessage({ type: "module", module: compiled } satisfies ToWorker);
    });
    this.compiled.catch(() => undefined); // whoever drives the thread reports it
  }

  /**
   * Gives the worker up (awl exits) if its extensions are owed nothing: true when no on_unload hook was registered,
   * and then none can be from now on (a load still running is cut short); false when a hook is owed.
   */
  abandon(): boolean {
    const was = Atomics.compareExchange(this.control, CONTROL_OWED, OWED_NOTHING, OWED_ABANDONED);
    return was === OWED_NOTHING || was === OWED_ABANDONED;
  }

  /** Has the worker load these extensions (once: a worker loads once, then reloads). */
  load(settings: LoadSettings): void {
    if (this.loadSent !== undefined) throw new Error("this Lua worker was already told what to load");
    this.loadSent = settings;
    this.worker.postMessage({ type: "load", ...settings } satisfies ToWorker);
  }

  /** Hears every message of the worker from now on, after those it sent before (`loaded`, logs...), in order. */
  listen(listener: (msg: FromWorker) => void): void {
    const unheard = this.unheard ?? [];
    this.unheard = undefined;
    for (const msg of unheard) listener(msg);
    this.worker.on("message", listener);
  }
}
