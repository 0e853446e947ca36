/**
 * One pool slot, seen from the main thread: a worker thread with its own Lua state. Starts the
 * worker, runs one call at a time on it, and enforces the call's limits: at the deadline (or on
 * cancel) it raises the shared abort flag and kills the call's child processes; if the worker does
 * not come back within a grace period it terminates the worker (the slot is then dead and the pool
 * replaces it).
 */
import type { MessageChannel, Worker } from "node:worker_threads";
import {
  ABORT_CANCEL,
  ABORT_NONE,
  ABORT_TIMEOUT,
  CONTROL_ABORT,
  CONTROL_LOADING,
  CONTROL_REPLY,
  type CallRequest,
  type HostNotice,
  type HostRequest,
  type TextReply,
  type FromWorker,
  type ReloadResult,
  type LoadSettings,
  type ToWorker,
  type WasmModule,
  type WorkerOutcome,
} from "./protocol.js";
import { ChildProcesses, type LogSink } from "./processes.js";
import { HttpCalls } from "./http-calls.js";
import { takeLuaThreadAhead } from "./head-start.js";
import { LuaThread, type ThreadBoot } from "./thread.js";
import type { ExtensionEntry, ExtensionLoadError, LuaPoolOptions, LuaToolRegistration, TextHost, ToolOutcome, ToolProgress } from "./types.js";

/** How long an idle worker may take to end its own thread before it is terminated. */
const EXIT_GRACE_MS = 1000;
/** How long a stopped handler may take to unwind before its worker is terminated. */
export const GRACE_MS = 200;
/**
 * How long a worker may take to start (Node's worker, the Lua runtime) before its first extension loads: not an
 * extension's load time, and generous, since a busy machine can take seconds for it.
 */
const WORKER_BOOT_TIMEOUT_MS = 30_000;
/** How often the load watchdog looks at the worker's progress. */
const WATCHDOG_TICK_MS = 250;

/** A slot's worker: its boot, what it loads, and the API keys it scrubs from spill files besides its environment's. */
export type SlotSettings = ThreadBoot & LoadSettings & { secrets: readonly string[] };

export interface Loaded {
  tools: LuaToolRegistration[];
  errors: ExtensionLoadError[];
}

/** The worker did not finish loading `extension` (it looped or hung where the hook cannot reach). */
export class LoadHang extends Error {
  constructor(
    readonly extension: string,
    message: string,
  ) {
    super(message);
  }
}

interface RunningCall {
  id: number;
  extension: string;
  tool: string;
  timeoutMs: number;
  abortReason: number;
  snapshot?: unknown;
  onProgress?: ((u: ToolProgress) => void) | undefined;
  onLog?: ((stream: string, text: string) => void) | undefined;
  /** Hosts the user approved for this call (awl.http may reach them). */
  grantedHosts: readonly string[];
  /** The pieces of a long result's content received so far (`result-piece`). */
  pieces?: string[];
  finish(outcome: ToolOutcome): void;
}

let nextCallId = 1;

export class WorkerSlot {
  private thread!: LuaThread;
  private control!: Int32Array;
  private readonly processes: ChildProcesses;
  private readonly http: HttpCalls;
  private worker!: Worker;
  /** Settles once the worker is past Node's own start of its thread ('online'), or gone. */
  private online!: Promise<void>;
  private current: RunningCall | undefined;
  private graceTimer: NodeJS.Timeout | undefined;
  /** Terminated or failed: never used again. */
  dead = false;
  private termination: Promise<void> | undefined;
  /** Healthy, but should be replaced when released (it hit its memory cap: wasm memory never shrinks). */
  retire = false;
  /** The pool's reload generation this worker's extensions are at (pool.ts brings it up to date). */
  generation = 0;
  /**
   * Settles once the extensions a load named `first` (LoadSettings.first) are loaded, with their registrations:
   * their tools can run from then on, while the others load. Undefined once every extension is loaded, or the load
   * failed, before that (or without a `first`).
   */
  readonly firstLoaded: Promise<Loaded | undefined>;
  private settleFirst!: (loaded: Loaded | undefined) => void;
  /** Every extension is loaded (until then the worker is held referenced: the load keeps the process alive). */
  private loaded = false;

  private constructor(
    private readonly settings: SlotSettings,
    private readonly log: LogSink,
    private readonly textHost: TextHost | undefined,
    sandbox: LuaPoolOptions["sandbox"],
    network: LuaPoolOptions["network"],
    search?: LuaPoolOptions["search"],
  ) {
    this.http = new HttpCalls(network, { ...(search && { settings: search }), env: settings.env });
    const wrap = sandbox && ((argv: readonly string[], cwd: string) => sandbox.wrap(argv, cwd));
    this.processes = new ChildProcesses(settings.env, (extension, stream, text) => this.logged(extension, stream, text), wrap);
    this.firstLoaded = new Promise((resolve) => (this.settleFirst = resolve));
  }

  /**
   * Starts a worker (or takes the one started ahead with the same boot, see head-start.ts) and waits until it has
   * loaded every extension.
   */
  static start(
    module: Promise<WasmModule>,
    settings: SlotSettings,
    log: LogSink,
    textHost?: TextHost,
    sandbox?: LuaPoolOptions["sandbox"],
    created?: (slot: WorkerSlot) => void,
    network?: LuaPoolOptions["network"],
    search?: LuaPoolOptions["search"],
  ): Promise<{ slot: WorkerSlot; loaded: Loaded }> {
    const slot = new WorkerSlot(settings, log, textHost, sandbox, network, search);
    created?.(slot);
    return slot.boot(module).then((loaded) => ({ slot, loaded }));
  }

  /**
   * Gives up a worker no call has needed (awl exits) whose extensions are owed nothing: no on_unload hook was
   * registered, and none can be from now on (a load still running is cut short). True when that is so; false when a
   * hook is owed (the load then ends and `unload` runs the hooks).
   */
  abandon(): boolean {
    return this.thread.abandon();
  }

  /**
   * Stops a worker given up (`abandon()` said yes) without waiting for its boot or load: once it is past Node's own
   * start of its thread (its 'online'; a stop during that start can abort the process inside Node), it is
   * terminated, with the programs its extensions started. Resolves when the worker is gone.
   */
  async stopAbandoned(): Promise<void> {
    await this.online;
    await this.forceStop();
  }

  private boot(module: Promise<WasmModule>): Promise<Loaded> {
    const { extensions, memoryLimitBytes, loadTimeoutMs, first, secrets, ...boot } = this.settings;
    const load = { extensions, memoryLimitBytes, loadTimeoutMs, ...(first && { first }) };
    let thread = takeLuaThreadAhead(boot);
    const sent = thread?.loadSent;
    // The same extensions (the pool's own list: a change since makes a new one) under the same limits.
    if (sent && (sent.extensions !== extensions || sent.memoryLimitBytes !== memoryLimitBytes || sent.loadTimeoutMs !== loadTimeoutMs)) {
      const other = thread!;
      void other.online.then(() => other.worker.terminate()); // it was sent other extensions (they changed since)
      thread = undefined;
    }
    thread ??= new LuaThread(boot, module);
    this.thread = thread;
    this.worker = thread.worker;
    this.control = thread.control;
    this.online = thread.online;
    thread.requests.on("message", (req: HostRequest | HostNotice) => {
      if (req.op === "spawn") this.processes.spawn(req);
      else void this.answer(thread.requests, req);
    });
    thread.requests.unref();
    this.worker.ref(); // until loaded

    return new Promise<Loaded>((resolve, reject) => {
      // The worker writes which extension it is loading into shared memory (a message per extension
      // costs more than loading it); a watchdog notices when that stops moving.
      const loadingName = () => this.settings.extensions[Atomics.load(this.control, CONTROL_LOADING) - 1]?.name ?? "";
      let seen = 0;
      let since = Date.now();
      const watchdog = setInterval(() => {
        const now = Atomics.load(this.control, CONTROL_LOADING);
        if (now !== seen || this.current) {
          // moving, or a call of the extensions loaded first runs (it has its own deadline)
          seen = now;
          since = Date.now();
        } else if (Date.now() - since > (now === 0 ? WORKER_BOOT_TIMEOUT_MS : this.settings.loadTimeoutMs + 2000)) {
          clearInterval(watchdog);
          void this.terminate();
          const limit = this.settings.loadTimeoutMs / 1000;
          const name = loadingName();
          reject(name ? new LoadHang(name, `did not finish loading within ${limit} s`) : new Error("the Lua worker did not start"));
        }
      }, WATCHDOG_TICK_MS);
      const stop = (err: Error) => {
        clearInterval(watchdog);
        this.dead = true;
        this.settleFirst(undefined);
        reject(err);
      };
      thread.listen((msg: FromWorker) => {
        if (msg.type === "loaded") {
          clearInterval(watchdog);
          this.loaded = true;
          this.settleFirst(undefined);
          if (!this.current) this.worker.unref();
          resolve({ tools: msg.tools, errors: msg.errors });
        } else if (msg.type === "first-loaded") {
          this.settleFirst({ tools: msg.tools, errors: msg.errors });
          // In a turn of the event loop of its own: a call that waited for these extensions is sent before (it
          // is, in the promise reactions of this one), so it runs before any of the others loads.
          setImmediate(() => {
            if (!this.dead) this.worker.postMessage({ type: "load-rest" } satisfies ToWorker);
          });
        } else if (msg.type === "fatal" && !this.current) {
          const name = loadingName();
          stop(name ? new LoadHang(name, msg.message) : new Error(msg.message));
        } else {
          this.onMessage(msg);
        }
      });
      this.worker.on("error", (err) => {
        stop(err);
        this.onDeath(`the Lua worker failed: ${err.message}`);
      });
      this.worker.on("exit", (code) => {
        stop(new Error(thread.fatal ?? `the Lua worker exited (code ${code}) while loading ${loadingName() || "awl's runtime"}`));
        this.onDeath(`the Lua worker exited (code ${code})`);
      });
      thread.compiled.catch((err: Error) => {
        stop(err);
        void this.terminate(); // asks the worker to end its own thread (it may still be starting)
      });
      if (thread.loadSent === undefined) thread.load(load); // else sent ahead (head-start.ts): its answer may be in
      if (secrets.length > 0) this.worker.postMessage({ type: "secrets", secrets: [...secrets] } satisfies ToWorker);
    });
  }

  private async answer(port: MessageChannel["port1"], req: HostRequest): Promise<void> {
    const reply = await this.reply(req);
    if (this.dead) return;
    port.postMessage(reply, movedBody(req, reply));
    Atomics.store(this.control, CONTROL_REPLY, 1);
    Atomics.notify(this.control, CONTROL_REPLY);
  }

  private reply(req: HostRequest): Promise<unknown> | unknown {
    switch (req.op) {
      case "exec":
        return this.processes.run(req);
      case "pid":
        return this.processes.pid(req.handle);
      case "read":
        return this.processes.read(req.handle);
      case "kill":
        return this.processes.kill(req.handle);
      case "read_text":
        return this.text(() => this.textHost!.readText(req.path).then((text) => Buffer.from(text, "utf8")));
      case "write_text":
        return this.text(() => this.textHost!.writeText(req.path, Buffer.from(req.data).toString("utf8")).then(() => undefined));
      case "http": {
        const call = this.current?.id === req.callId ? this.current : undefined;
        return this.http.run(req.callId, req.spec, { tool: call?.tool ?? "", extension: call?.extension ?? "", granted: call?.grantedHosts ?? [] });
      }
      case "search":
        return this.http.runSearch(req.callId, req.query, req.count);
      case "pdf_text":
        return import("../../web/pdf-text.js").then(({ pdfText }) => pdfText(req.data));
    }
  }

  /** A text host call as its reply; a failure (or no host) is the message the handler gets. */
  private async text(run: () => Promise<Uint8Array | undefined>): Promise<TextReply> {
    try {
      if (!this.textHost) return { ok: false, message: "no text host" };
      const data = await run();
      return data === undefined ? { ok: true } : { ok: true, data };
    } catch (e) {
      return { ok: false, message: e instanceof Error ? e.message : String(e) };
    }
  }

  private onMessage(msg: FromWorker): void {
    const call = this.current;
    switch (msg.type) {
      case "result-piece":
        if (call && call.id === msg.id) (call.pieces ??= []).push(msg.text);
        return;
      case "result":
        if (call && call.id === msg.id) call.finish(this.toOutcome(call, withPieces(msg.outcome, call.pieces)));
        return;
      case "progress":
        if (call && call.id === msg.id) {
          if (msg.update.kind === "show") call.snapshot = msg.update.state;
          call.onProgress?.(msg.update);
        }
        return;
      case "log":
        this.logged(msg.extension, msg.stream, msg.text);
        return;
      case "fatal":
        void this.terminate();
        this.onDeath(`the Lua state was damaged and is being replaced: ${msg.message}`);
        return;
      default:
        return;
    }
  }

  private onDeath(reason: string): void {
    this.dead = true;
    const call = this.current;
    if (!call) return;
    if (call.abortReason !== ABORT_NONE) call.finish(abortedOutcome(call));
    else call.finish({ status: "crash", extension: call.extension, message: reason, traceback: "" });
  }

  /** What was printed goes to the running call's own log when it has one (the slot runs one call at a time). */
  private logged(extension: string, stream: string, text: string): void {
    const onLog = this.current?.onLog;
    if (onLog) onLog(stream, text);
    else this.log(extension, stream, text);
  }

  /** Runs one call; resolves with its outcome whatever happens (never rejects). */
  run(
    req: Omit<CallRequest, "type" | "id">,
    signal: AbortSignal,
    onProgress?: (u: ToolProgress) => void,
    onLog?: (stream: string, text: string) => void,
    grantedHosts: readonly string[] = [],
  ): Promise<ToolOutcome> {
    const id = nextCallId++;
    if (this.dead) {
      return Promise.resolve({ status: "crash", extension: req.extension, message: "the Lua worker has stopped", traceback: "" });
    }
    return new Promise<ToolOutcome>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = () => this.abort(ABORT_CANCEL);
      const call: RunningCall = {
        id,
        extension: req.extension,
        tool: req.tool,
        timeoutMs: req.timeoutMs,
        abortReason: ABORT_NONE,
        onProgress,
        onLog,
        grantedHosts,
        finish: (outcome) => {
          if (this.current !== call) return;
          this.current = undefined;
          clearTimeout(timer);
          clearTimeout(this.graceTimer);
          signal.removeEventListener("abort", onAbort);
          this.processes.forget(id);
          this.http.abortCall(id);
          if (!this.dead && this.loaded) this.worker.unref();
          resolve(outcome);
        },
      };
      this.current = call;
      Atomics.store(this.control, CONTROL_ABORT, ABORT_NONE);
      this.worker.ref();
      this.worker.postMessage({ type: "call", id, ...req } satisfies CallRequest);
      timer = setTimeout(() => this.abort(ABORT_TIMEOUT), req.timeoutMs);
      signal.addEventListener("abort", onAbort, { once: true });
      if (signal.aborted) onAbort();
    });
  }

  /** Stops the running call: flag for the hook, kill its processes, then terminate if it hangs. */
  private abort(reason: number): void {
    const call = this.current;
    if (!call || call.abortReason !== ABORT_NONE) return;
    call.abortReason = reason;
    Atomics.store(this.control, CONTROL_ABORT, reason);
    this.processes.killCall(call.id);
    this.http.abortCall(call.id);
    this.graceTimer = setTimeout(() => {
      if (this.current !== call) return;
      void this.terminate();
      call.finish(abortedOutcome(call));
    }, GRACE_MS);
  }

  private toOutcome(call: RunningCall, o: WorkerOutcome): ToolOutcome {
    if (call.abortReason !== ABORT_NONE) return abortedOutcome(call);
    const snapshot = call.snapshot !== undefined ? { snapshot: call.snapshot } : {};
    switch (o.status) {
      case "aborted":
        if (o.reason === "timeout") return { status: "timeout", timeout_ms: call.timeoutMs };
        if (o.reason === "cancel") return { status: "cancelled" };
        return {
          status: "result",
          content: `the handler ended with os.exit(${o.exitCode})`,
          is_error: o.exitCode !== 0,
          ...snapshot,
        };
      case "crash": {
        let message = o.message;
        if (o.outOfMemory) {
          this.retire = true;
          const mb = Math.round(this.settings.memoryLimitBytes / 1024 / 1024);
          message += ` (the extension's Lua state reached its memory cap of ${mb} MB)`;
        }
        return { status: "crash", extension: call.extension, message, traceback: o.traceback };
      }
      default: {
        const extra = o.extra ? (JSON.parse(o.extra) as Record<string, unknown>) : {};
        const content = o.invalidUtf8
          ? `${o.content}\n[awl: the tool's output was not valid UTF-8; invalid bytes were replaced with U+FFFD]`
          : o.content;
        return { status: "result", content, is_error: o.status === "error", ...extra, ...snapshot };
      }
    }
  }

  /**
   * Runs every extension's on_unload hooks, each extension's within `timeoutMs`: the hook stops Lua code at the deadline; programs
   * the hooks started are killed a little later, and past that the wait ends (the worker is stopped next anyway).
   */
  async unload(timeoutMs: number): Promise<void> {
    await this.exchange({ type: "unload", timeoutMs }, "unloaded", timeoutMs * Math.max(1, this.settings.extensions.length));
  }

  /**
   * Reloads extensions in this worker (see ReloadRequest); undefined when the worker died or did not answer in
   * time (it is then terminated: the pool replaces it). Only while no call runs on it.
   */
  async reload(load: ExtensionEntry[], remove: string[], unloadTimeoutMs: number): Promise<ReloadResult[] | undefined> {
    const limit = load.length * this.settings.loadTimeoutMs + (load.length + remove.length) * unloadTimeoutMs;
    const reply = await this.exchange({ type: "reload", load, remove, unloadTimeoutMs }, "reloaded", limit);
    if (reply?.type === "reloaded") return reply.results;
    void this.terminate();
    return undefined;
  }

  /**
   * Sends a request that runs Lua outside a call and waits for its answer, at most `limitMs` plus a grace: past
   * the limit the programs it started are killed (a hook blocked in `awl.exec` then returns), past the grace the
   * wait ends with undefined.
   */
  private exchange(request: ToWorker, answer: FromWorker["type"], limitMs: number): Promise<FromWorker | undefined> {
    if (this.dead || this.current) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      let grace: NodeJS.Timeout | undefined;
      const done = (reply: FromWorker | undefined) => {
        clearTimeout(timer);
        clearTimeout(grace);
        this.worker.off("message", onMessage);
        this.worker.off("exit", onExit);
        if (!this.dead) this.worker.unref();
        resolve(reply);
      };
      const onMessage = (msg: FromWorker) => {
        if (msg.type === answer) done(msg);
      };
      const onExit = () => done(undefined);
      const timer = setTimeout(() => {
        this.processes.killAll();
        grace = setTimeout(() => done(undefined), EXIT_GRACE_MS);
      }, limitMs + GRACE_MS);
      this.worker.on("message", onMessage);
      this.worker.on("exit", onExit);
      this.worker.ref();
      // A call cancelled before leaves its flag up: the hook would stop this request's Lua at once.
      Atomics.store(this.control, CONTROL_ABORT, ABORT_NONE);
      this.worker.postMessage(request);
    });
  }

  /** Tells the worker the whole list of secrets to scrub from its spill files (one became known later). */
  knowSecrets(secrets: readonly string[]): void {
    if (!this.dead) this.worker.postMessage({ type: "secrets", secrets: [...secrets] } satisfies ToWorker);
  }

  /** Kills, now, every process group its current call started (awl itself is being stopped by a signal). */
  killProcesses(): void {
    this.processes.killAll();
    this.http.abortAll();
  }

  /** Terminates the worker outright, whatever else is waiting on it (close() past its deadline). */
  forceStop(): Promise<void> {
    this.dead = true;
    this.processes.killAll();
    return this.worker.terminate().then(() => undefined);
  }

  /** Stops the worker; every caller gets the same promise, so whoever waits sees the worker really gone. */
  terminate(): Promise<void> {
    if (this.termination) return this.termination;
    this.dead = true;
    if (this.current && this.current.abortReason === ABORT_NONE) this.current.abortReason = ABORT_CANCEL;
    this.processes.killAll();
    this.termination = this.current ? this.worker.terminate().then(() => undefined) : this.exitGracefully();
    return this.termination;
  }

  /**
   * An idle worker is asked to end its own thread. `worker.terminate()` on a worker whose isolate is still
   * collecting garbage (e.g. right after loading) can abort the whole process inside Node
   * (`NodePlatform::ForIsolate` assertion, seen about once in 100 runs of `awl tools`).
   */
  private exitGracefully(): Promise<void> {
    if (this.worker.threadId === -1) return Promise.resolve(); // already gone
    return new Promise((resolve) => {
      const fallback = setTimeout(() => void this.worker.terminate().then(() => resolve()), EXIT_GRACE_MS);
      this.worker.once("exit", () => {
        clearTimeout(fallback);
        resolve();
      });
      this.worker.postMessage({ type: "exit" });
    });
  }
}

function abortedOutcome(call: RunningCall): ToolOutcome {
  return call.abortReason === ABORT_TIMEOUT ? { status: "timeout", timeout_ms: call.timeoutMs } : { status: "cancelled" };
}

/**
 * An `awl.http` body goes to the worker without a copy (a copy of 1 MB cost ≈ 4 ms) when the main thread keeps
 * nothing of it: not cached (`cache = true` keeps the response), and the whole of its own memory.
 */
function movedBody(req: HostRequest, reply: unknown): ArrayBuffer[] {
  if (req.op !== "http" || req.spec.cache) return [];
  const body = (reply as { body?: unknown }).body;
  const owned = body instanceof Uint8Array && body.buffer instanceof ArrayBuffer && body.byteOffset === 0 && body.byteLength === body.buffer.byteLength;
  return owned ? [body.buffer as ArrayBuffer] : [];
}

/** A result whose content came in pieces, whole again. */
function withPieces(outcome: WorkerOutcome, pieces: readonly string[] | undefined): WorkerOutcome {
  if (!pieces || outcome.status === "crash" || outcome.status === "aborted") return outcome;
  return { ...outcome, content: pieces.join("") + outcome.content };
}
