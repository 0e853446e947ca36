/**
 * LuaPool: the seed's LuaStatePool. Each slot is a worker thread with its own Lua 5.4 state holding
 * every extension. Slots are created lazily (acquire), returned after each call (release), up to
 * `maxSlots`; calls beyond that queue. A slot that had to be killed (runaway handler, damaged
 * state, memory cap) is dropped and a new one is started when needed. `close()` is the seed's deinit.
 *
 * Renders (`render(state, view)`, which draw live tool blocks) run in one slot of their own, outside
 * `maxSlots`, started at the first render that finds no call slot idle (or ahead, for a call that runs a
 * while): so a block is redrawn while every other slot runs a tool, and a render never holds a slot a tool
 * call is waiting for. Until then a render runs in an idle call slot, given back as it ends, while there is
 * room for another call slot: a run whose blocks are drawn only once their calls are done (`awl -p`) starts
 * no second worker for them.
 */
import { availableParallelism } from "node:os";
import { luaWasmModule } from "./assets.js";
import { loadSettingsFor, threadBootFor } from "./thread.js";
import { LoadHang, WorkerSlot, type Loaded, type SlotSettings } from "./slot.js";
import { extensionLogText } from "./log-text.js";
import type { LogSink } from "./processes.js";
import { UNLOAD_TIMEOUT_MS, type LuaEntry, type ReloadResult } from "./protocol.js";
import { abortableSleep } from "../../util/abortable-sleep.js";
import type {
  ExtensionEntry,
  ExtensionLoadError,
  LuaCallOptions,
  LuaPoolOptions,
  LuaToolRegistration,
  ToolContextData,
  ToolOutcome,
} from "./types.js";

export type * from "./types.js";

/** How long close() waits for an orderly stop (on_unload hooks, workers ending) before terminating them. */
const CLOSE_DEADLINE_MS = 15_000;
const DEFAULT_TIMEOUT_MS = 120_000;
/** setTimeout fires at once beyond this (about 24.8 days): longer timeouts mean "no timeout". */
/** A call whose result is at least this long (characters) replaces its slot afterwards. */
const BIG_RESULT_CHARS = 2 * 1024 * 1024;
const MAX_TIMER_MS = 2 ** 31 - 1;

interface Waiter {
  resolve(slot: WorkerSlot | null): void;
}

function defaultLog(extension: string, _stream: string, text: string): void {
  process.stderr.write(extensionLogText(extension, text));
}

export class LuaPool {
  private readonly maxSlots: number;
  private readonly settings: SlotSettings;
  private readonly log: LogSink;
  private readonly defaultTimeoutMs: number;
  private loading: Promise<Loaded> | undefined;
  private tools = new Set<string>();
  private readonly slots = new Set<WorkerSlot>();
  private readonly idle: WorkerSlot[] = [];
  private starting = 0;
  private readonly waiters: Waiter[] = [];
  private closed = false;
  /** The on_unload hooks ran already (`unload()`, before an exit). */
  private unloaded = false;
  private closing: Promise<void> | undefined;
  /** Worker starts and terminations in flight: `close()` waits for them, because a process that exits
   * while a worker isolate is starting or stopping aborts inside Node (a native assertion). */
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Workers starting (not loaded yet). */
  private readonly booting = new Set<WorkerSlot>();
  /** Reloads so far: a worker at an older generation catches up before it runs anything (see `release`). */
  private generation = 0;
  private readonly changes: { generation: number; load: ExtensionEntry[]; remove: string[] }[] = [];
  private reloading: Promise<unknown> = Promise.resolve();
  /** The renders' own slot once started, and its start (null: it could not start), at the first render... */
  private renderSlot: WorkerSlot | undefined;
  private renderStart: Promise<WorkerSlot | null> | undefined;
  /** ...where renders run one at a time, in the order asked. */
  private renderTurn: Promise<unknown> = Promise.resolve();
  /**
   * While the first worker loads, what it loaded first (LoadSettings.first: the extension a call waits for) once
   * it has, and whether a call runs on it: such a call need not wait for the others (see `early`).
   */
  private firstPart: Promise<{ slot: WorkerSlot; tools: Set<string> } | undefined> | undefined;
  private earlyRunning: WorkerSlot | undefined;

  constructor(private readonly options: LuaPoolOptions) {
    this.maxSlots = Math.max(1, options.maxSlots ?? availableParallelism());
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.settings = { ...threadBootFor(options), ...loadSettingsFor(options), secrets: options.secrets ?? [] };
    const onLog = options.onLog;
    this.log = onLog ? (extension, stream, text) => onLog(extension, text, stream) : defaultLog;
  }

  /**
   * Loads every extension in a first slot; returns registrations and per-extension load errors. Rejects when the
   * worker itself could not start (its thread, wasmoon, awl's Lua runtime): nothing was loaded then, and the next
   * `load()` starts one again.
   */
  async load(): Promise<{ tools: LuaToolRegistration[]; errors: ExtensionLoadError[] }> {
    const loading = (this.loading ??= this.loadFirstSlot());
    let loaded: Loaded;
    try {
      loaded = await loading;
    } catch (error) {
      if (this.loading === loading) this.loading = undefined;
      throw error;
    }
    return { tools: loaded.tools.map((t) => ({ ...t })), errors: loaded.errors.map((e) => ({ ...e })) };
  }

  /**
   * Resolves once `tool` of `extension` can run: when the first worker loaded its extension before the others
   * (LuaPoolOptions.loadFirst), as soon as it has; else once every extension is loaded. Rejects as `load()` does.
   */
  async readyFor(extension: string, tool: string): Promise<void> {
    const loading = this.load();
    const part = await this.firstPart;
    if (part?.tools.has(key(extension, tool))) {
      loading.catch(() => undefined); // whoever waits for the whole load hears of its failure
      return;
    }
    await loading;
  }

  private async loadFirstSlot(): Promise<Loaded> {
    const hung: ExtensionLoadError[] = [];
    const order = new Map(this.options.extensions.map((e, i) => [e.name, i]));
    for (;;) {
      try {
        const { slot, loaded } = await this.startSlot((slot) => {
          this.firstPart = slot.firstLoaded.then((part) => part && { slot, tools: new Set(part.tools.map((t) => key(t.extension, t.name))) });
        });
        this.firstPart = undefined;
        delete this.settings.first; // workers started from now on load everything at once
        if (this.closed) void slot.terminate();
        for (const t of loaded.tools) this.tools.add(key(t.extension, t.name));
        this.slots.add(slot);
        // A call of the extensions loaded first may still run on it: it is released when that call ends.
        if (this.earlyRunning !== slot) this.release(slot);
        const errors = [...hung, ...loaded.errors].sort((a, b) => order.get(a.extension)! - order.get(b.extension)!);
        return { tools: loaded.tools, errors };
      } catch (err) {
        this.firstPart = undefined;
        if (err instanceof LoadHang) {
          // Start again without it: one bad extension never stops the others.
          const entry = this.settings.extensions.find((e) => e.name === err.extension)!;
          this.settings.extensions = this.settings.extensions.filter((e) => e !== entry);
          hung.push({ extension: entry.name, file: entry.file, message: `${entry.file}: ${err.message}` });
          continue;
        }
        throw err;
      }
    }
  }

  private async startSlot(created?: (slot: WorkerSlot) => void): Promise<{ slot: WorkerSlot; loaded: Loaded }> {
    if (this.closed) throw new Error("the Lua pool is closed");
    const generation = this.generation;
    let booting: WorkerSlot | undefined;
    const start = WorkerSlot.start(luaWasmModule(), this.settings, this.log, this.options.textHost, this.options.sandbox, (slot) => {
      booting = slot;
      this.booting.add(slot);
      created?.(slot);
    }, this.options.network, this.options.search).then(
      (started) => {
        this.booting.delete(started.slot);
        started.slot.generation = generation; // it loaded the extensions as they were when it started
        return started;
      },
      (error: unknown) => {
        if (booting) this.booting.delete(booting);
        throw error;
      },
    );
    // A slot that finishes starting after close() is stopped at once.
    this.track(start.then(({ slot }) => (this.closed ? slot.terminate() : undefined), () => undefined));
    return start;
  }

  private track(work: Promise<unknown>): void {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  private terminate(slot: WorkerSlot): void {
    this.track(slot.terminate());
  }

  /** Runs one handler in a free slot (queueing beyond maxSlots). Never throws. */
  call(extension: string, tool: string, inputJson: string, ctx: ToolContextData, opts: LuaCallOptions): Promise<ToolOutcome> {
    return this.run("call", extension, tool, inputJson, ctx, opts);
  }

  /**
   * Asks a tool's `available(ctx)` whether to offer it (true when it has none). A crash, timeout or
   * cancel counts as not available, with the reason in `error`. Never throws.
   */
  async available(
    extension: string,
    tool: string,
    ctx: ToolContextData,
    opts: LuaCallOptions,
  ): Promise<{ available: boolean; error?: string }> {
    const outcome = await this.run("available", extension, tool, "null", ctx, opts);
    if (outcome.status === "result" && !outcome.is_error) return { available: outcome.content === "true" };
    return { available: false, error: describeFailure(outcome) };
  }

  /**
   * Runs a tool's `render(state, view)` (the state from `ctx:show`); a `result` outcome carries the text
   * (a list of lines comes joined with newlines). Never throws.
   */
  render(
    extension: string,
    tool: string,
    state: unknown,
    view: { width: number; height: number; expand: boolean },
    ctx: ToolContextData,
    opts: LuaCallOptions,
  ): Promise<ToolOutcome> {
    return this.run("render", extension, tool, JSON.stringify({ state: state ?? null, view }), ctx, opts);
  }

  private async run(
    entry: LuaEntry,
    extension: string,
    tool: string,
    input: string,
    ctx: ToolContextData,
    opts: LuaCallOptions,
  ): Promise<ToolOutcome> {
    try {
      const early = entry === "call" ? await this.early(extension, tool) : undefined;
      if (early) return await this.runEarly(early, extension, tool, input, ctx, opts);
      await this.load();
      if (!this.tools.has(key(extension, tool))) {
        return { status: "result", is_error: true, content: `unknown tool "${tool}" (extension "${extension}")` };
      }
      if (opts.signal.aborted) return { status: "cancelled" };
      if (entry === "render") return await this.runRender(extension, tool, input, ctx, opts);
      const slot = await this.acquire(opts.signal);
      if (!slot) {
        return this.closed ? closedOutcome(extension) : { status: "cancelled" };
      }
      try {
        const outcome = await this.runIn(slot, entry, extension, tool, input, ctx, opts);
        // A result this big grew the worker's Lua heap, and WebAssembly memory never shrinks: the slot is replaced
        // (the next call starts a fresh one), so that memory goes back instead of staying for the session.
        if (outcome.status === "result" && outcome.content.length >= BIG_RESULT_CHARS) slot.retire = true;
        return outcome;
      } finally {
        this.release(slot);
      }
    } catch (err) {
      return { status: "crash", extension, message: `awl's Lua runtime failed: ${(err as Error).message}`, traceback: "" };
    }
  }

  /**
   * The first worker, taken (`runEarly` gives it back), for a call of an extension it loaded first
   * (LoadSettings.first) while it still loads the others, when no other such call runs on it: undefined once it
   * has loaded them all (the call then takes a slot as any other), or when this call's tool is not among those
   * loaded first.
   */
  private async early(extension: string, tool: string): Promise<WorkerSlot | undefined> {
    const first = this.firstPart;
    const part = first && (await first);
    if (!part || this.firstPart !== first || this.earlyRunning || part.slot.dead || !part.tools.has(key(extension, tool))) return undefined;
    this.earlyRunning = part.slot;
    return part.slot;
  }

  /** Runs a call on the first worker (taken by `early`) before it has loaded every extension, then gives it back. */
  private async runEarly(slot: WorkerSlot, extension: string, tool: string, input: string, ctx: ToolContextData, opts: LuaCallOptions): Promise<ToolOutcome> {
    try {
      if (opts.signal.aborted) return { status: "cancelled" };
      const outcome = await this.runIn(slot, "call", extension, tool, input, ctx, opts);
      if (outcome.status === "result" && outcome.content.length >= BIG_RESULT_CHARS) slot.retire = true;
      return outcome;
    } finally {
      this.earlyRunning = undefined;
      if (this.slots.has(slot)) this.release(slot); // loaded meanwhile (else the load releases it)
    }
  }

  private runIn(slot: WorkerSlot, entry: LuaEntry, extension: string, tool: string, input: string, ctx: ToolContextData, opts: LuaCallOptions): Promise<ToolOutcome> {
    const timeoutMs = Math.min(opts.timeoutMs > 0 ? opts.timeoutMs : this.defaultTimeoutMs, MAX_TIMER_MS);
    return slot.run({ entry, extension, tool, input, ctx: JSON.stringify(ctx), cwd: ctx.cwd, timeoutMs }, opts.signal, opts.onProgress, opts.onLog, opts.grantedHosts);
  }

  /** A render, after the renders asked before it: in an idle call slot until the renders' own one is started. */
  private runRender(extension: string, tool: string, input: string, ctx: ToolContextData, opts: LuaCallOptions): Promise<ToolOutcome> {
    const turn = this.renderTurn.then(async (): Promise<ToolOutcome> => {
      if (opts.signal.aborted) return { status: "cancelled" };
      // Only where a call that comes meanwhile can have a slot of its own started (a render may run away).
      const room = this.slots.size + this.starting < this.maxSlots;
      const idle = this.renderStart || !room ? undefined : this.takeIdle();
      if (idle) {
        try {
          return await this.runIn(idle, "render", extension, tool, input, ctx, opts);
        } finally {
          this.release(idle);
        }
      }
      const slot = await this.renderWorker();
      if (!slot) return this.closed ? closedOutcome(extension) : { status: "cancelled" };
      // The worker's own start (slow on a busy machine) does not count against the render's wait.
      if (opts.signal.aborted) opts = { ...opts, signal: new AbortController().signal };
      if (slot.generation < this.generation) await this.catchUp(slot); // renders run one at a time: it is free
      try {
        return await this.runIn(slot, "render", extension, tool, input, ctx, opts);
      } finally {
        if (slot.dead || slot.retire) {
          // A render that had to be killed (or damaged its state): the next render starts a fresh slot.
          this.renderSlot = undefined;
          this.renderStart = undefined;
          this.terminate(slot);
        }
      }
    });
    this.renderTurn = turn.catch(() => undefined);
    return turn;
  }

  /** Starts the renders' worker now (a tool that renders is running: its block will be drawn soon). */
  prewarmRender(): void {
    if (!this.closed) void this.renderWorker();
  }

  private renderWorker(): Promise<WorkerSlot | null> {
    // In the next turn of the event loop: what the caller does next (e.g. the agent's next request, after the
    // call whose block this draws) goes before the thread's start, which holds this thread for a few ms.
    this.renderStart ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.startSlot()).then(
      ({ slot }) => {
        if (this.closed) return null; // startSlot stops it
        this.renderSlot = slot;
        return slot;
      },
      () => {
        this.renderStart = undefined;
        return null;
      },
    );
    return this.renderStart;
  }

  /** A free slot, a new one (below maxSlots), or a place in the queue. null: cancelled or closed. */
  /** A call slot that is idle now, taken (give it back with `release`); none when the pool is closed. */
  private takeIdle(): WorkerSlot | undefined {
    if (this.closed) return undefined;
    for (let free = this.idle.pop(); free; free = this.idle.pop()) {
      if (!free.dead) return free;
      this.slots.delete(free); // its worker died while idle
    }
    return undefined;
  }

  private acquire(signal: AbortSignal): Promise<WorkerSlot | null> {
    if (this.closed) return Promise.resolve(null);
    const free = this.takeIdle();
    if (free) return Promise.resolve(free);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        resolve: (slot) => {
          signal.removeEventListener("abort", onAbort);
          resolve(slot);
        },
      };
      const onAbort = () => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        waiter.resolve(null);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
      this.grow();
    });
  }

  /** Starts another slot if calls are waiting and the limit allows it. */
  private grow(): void {
    if (this.closed || this.waiters.length <= this.starting || this.slots.size + this.starting >= this.maxSlots) return;
    this.starting++;
    this.startSlot().then(
      ({ slot }) => {
        this.starting--;
        this.slots.add(slot);
        this.release(slot);
      },
      () => {
        this.starting--;
        if (this.slots.size === 0 && this.starting === 0) {
          for (const w of this.waiters.splice(0)) w.resolve(null);
        }
      },
    );
  }

  private release(slot: WorkerSlot): void {
    if (this.closed || slot.dead || slot.retire) {
      this.slots.delete(slot);
      this.terminate(slot);
      this.grow();
      return;
    }
    if (slot.generation < this.generation) {
      void this.catchUp(slot).then(() => this.release(slot));
      return;
    }
    const waiter = this.waiters.shift();
    if (waiter) waiter.resolve(slot);
    else this.idle.push(slot);
  }

  /**
   * Reloads extensions in every worker, never under a running call: `load` (changed or new extensions, loaded
   * again with their `discover_tools` handlers) and `remove` (gone). The first worker free tries it; an extension
   * that fails to load there keeps its old version everywhere (the error says why), the others are reloaded in
   * every other worker too, idle ones before this resolves, busy ones when their call ends. Each replaced or
   * removed version's on_unload hooks run first, within {@link UNLOAD_TIMEOUT_MS}. Reloads run one at a time.
   */
  reload(load: ExtensionEntry[], remove: string[]): Promise<ReloadResult[]> {
    const next = this.reloading.then(() => this.reloadNow(load, remove));
    this.reloading = next.catch(() => undefined);
    return next;
  }

  private async reloadNow(load: ExtensionEntry[], remove: string[]): Promise<ReloadResult[]> {
    await this.load();
    const refused = (message: string): ReloadResult[] =>
      load.map((e) => ({ extension: e.name, error: { extension: e.name, file: e.file, message: `${e.file}: ${message}` } }));
    const probe = await this.acquire(new AbortController().signal);
    if (!probe) return refused("not reloaded: the Lua pool is closed");
    let results: ReloadResult[] | undefined;
    try {
      if (probe.generation < this.generation) await this.catchUp(probe);
      results = probe.dead ? undefined : await probe.reload(load, remove, UNLOAD_TIMEOUT_MS);
    } finally {
      if (results) probe.generation = this.generation + 1;
      this.release(probe);
    }
    if (!results) return refused("not reloaded: the Lua worker stopped while loading it (the previous version stays)");
    const accepted = new Set(results.filter((r) => "tools" in r).map((r) => r.extension));
    const change = { generation: this.generation + 1, load: load.filter((e) => accepted.has(e.name)), remove };
    this.generation = change.generation;
    this.changes.push(change);
    // Workers started from now on load the accepted versions, in the order they had (new ones last).
    const replaced = new Map(change.load.map((e) => [e.name, e]));
    const kept = this.settings.extensions.filter((e) => !remove.includes(e.name)).map((e) => replaced.get(e.name) ?? e);
    this.settings.extensions = [...kept, ...change.load.filter((e) => !kept.includes(e))];
    const gone = new Set([...remove, ...change.load.map((e) => e.name)]);
    for (const k of [...this.tools]) if (gone.has(k.slice(0, k.indexOf("\u0000")))) this.tools.delete(k);
    for (const r of results) if ("tools" in r) for (const t of r.tools) this.tools.add(key(t.extension, t.name));
    // The idle workers now; the busy ones catch up when they are released.
    const idle = this.idle.splice(0);
    await Promise.all(idle.map((slot) => this.catchUp(slot).then(() => this.release(slot))));
    return results;
  }

  /** Applies to `slot` the reloads it has not seen; a worker that does not end up like the first is replaced. */
  private async catchUp(slot: WorkerSlot): Promise<void> {
    for (const change of this.changes) {
      if (change.generation <= slot.generation || slot.dead) continue;
      const results = await slot.reload(change.load, change.remove, UNLOAD_TIMEOUT_MS);
      if (!results || results.some((r) => "error" in r)) slot.retire = true;
      slot.generation = change.generation;
    }
    slot.generation = Math.max(slot.generation, this.generation);
    // Changes every worker has seen are dropped; a worker still starting may need them all.
    if (this.starting > 0 || (this.renderStart && !this.renderSlot)) return;
    const oldest = Math.min(...[...this.slots, ...(this.renderSlot ? [this.renderSlot] : [])].map((s) => s.generation));
    while (this.changes.length > 0 && this.changes[0]!.generation <= oldest) this.changes.shift();
  }

  /**
   * Gives up, before awl exits, the first worker when no call needed it (a prewarm started it): true when its
   * extensions are owed nothing at exit (no on_unload hook registered; a load still running is cut short); it is
   * then stopped as soon as that is safe, without waiting for its boot or load, so `quiesce()` ends soon after.
   * True as well when no worker was started yet: none will be. False when a hook is owed, or more than that one
   * worker runs: then unload() as usual.
   */
  abandonStart(): boolean {
    const workers = [...this.booting, ...this.slots];
    if (this.renderStart || workers.length > 1 || this.idle.length !== this.slots.size) return false;
    const [first] = workers;
    if (!first) return (this.closed = true);
    if (!first!.abandon()) return false;
    this.closed = true; // no worker starts from now on
    this.slots.clear();
    this.idle.splice(0);
    this.track(first!.stopAbandoned()); // quiesce() waits for it
    return true;
  }

  /**
   * Resolves once no worker is starting or stopping (a start includes loading the extensions): a process that
   * exits meanwhile can abort inside Node. Idle and busy workers do not count.
   */
  async quiesce(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /**
   * Kills, synchronously, every process group the running calls started: for a signal that ends awl, where
   * `close()` (which first runs on_unload hooks) may not get to finish.
   */
  /**
   * Secrets that became known while the pool runs (a sign-in's token refreshed): every live worker scrubs the
   * whole list from its spill files from now on; workers started later get it with their settings.
   */
  knowSecrets(secrets: readonly string[]): void {
    this.settings.secrets = [...secrets];
    for (const slot of [...this.slots, ...(this.renderSlot ? [this.renderSlot] : [])]) slot.knowSecrets(secrets);
  }

  killProcesses(): void {
    for (const slot of this.slots) slot.killProcesses();
    this.renderSlot?.killProcesses();
  }

  /**
   * Runs every extension's on_unload hooks now in every idle worker, within {@link UNLOAD_TIMEOUT_MS}, without
   * stopping the workers: what awl does right before it exits (`close()` then runs them no more).
   */
  async unload(): Promise<void> {
    if (this.unloaded || this.closed) return;
    this.unloaded = true;
    await Promise.all([...this.idle].map((slot) => slot.unload(UNLOAD_TIMEOUT_MS)));
  }

  /** Runs on_unload hooks, stops every worker and the processes their calls started. */
  close(): Promise<void> {
    // Every caller waits for the same close: a process that exits while workers stop can abort inside Node.
    this.closing ??= this.closeNow();
    return this.closing;
  }

  private async closeNow(): Promise<void> {
    this.closed = true;
    for (const w of this.waiters.splice(0)) w.resolve(null);
    const slots = [...this.slots, ...(this.renderSlot ? [this.renderSlot] : [])];
    const orderly = (async () => {
      const idle = [...this.idle.splice(0), ...(this.renderSlot ? [this.renderSlot] : [])];
      if (!this.unloaded) await Promise.all(idle.map((slot) => slot.unload(UNLOAD_TIMEOUT_MS)));
      await Promise.all(slots.map((slot) => slot.terminate()));
      this.slots.clear();
      while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
    })();
    // A worker's stop that never settles (seen before workers compiled synchronously, see slot.ts) must not
    // hang close(): past the deadline every worker is terminated outright and close() returns.
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), CLOSE_DEADLINE_MS)));
    const how = await Promise.race([orderly.then(() => "done" as const), deadline]);
    clearTimeout(timer);
    if (how === "late") await Promise.race([Promise.all(slots.map((slot) => slot.forceStop())), abortableSleep(1000, undefined)]);
  }
}

function key(extension: string, tool: string): string {
  return `${extension}\u0000${tool}`;
}

function describeFailure(outcome: ToolOutcome): string {
  switch (outcome.status) {
    case "result":
      return outcome.content;
    case "crash":
      return outcome.message;
    case "timeout":
      return `timed out after ${outcome.timeout_ms} ms`;
    case "cancelled":
      return "cancelled";
  }
}

function closedOutcome(extension: string): ToolOutcome {
  return { status: "crash", extension, message: "the Lua pool is closed", traceback: "" };
}
