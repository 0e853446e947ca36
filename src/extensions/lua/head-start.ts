/**
 * Lua workers started ahead. A worker's own start (Node's thread, wasmoon, awl's Lua runtime) is most of what a
 * first tool call would wait for, and none of it depends on the extensions: so headless tools, once a call is
 * likely (LuaToolSet.prewarm), start one and have it boot the runtime while the pool's own modules load, and a call
 * on its way has it load the extensions, before the pool is there. A pool's
 * first worker with the same boot takes it; a thread nobody took is stopped at exit. One thread per boot (folder,
 * environment): an `awl acp` process serves several folders.
 */
import { luaWasmModule } from "./assets.js";
import { UNLOAD_TIMEOUT_MS, type FromWorker, type ToWorker } from "./protocol.js";
import { LuaThread, loadSettingsFor, threadBootFor, type ThreadBoot } from "./thread.js";
import type { LuaPoolOptions } from "./types.js";

/** The threads waiting for a taker, by boot. */
const ahead = new Map<string, LuaThread>();
/** Every stop asked for so far: whoever waits for one waits for all (an exit must not cut one short). */
let stopping: Promise<void> = Promise.resolve();

const keyOf = (boot: ThreadBoot) => JSON.stringify(boot);

/** Starts a worker booting the Lua runtime as a pool with these options would, unless one already is. */
export function startLuaThreadAhead(options: Pick<LuaPoolOptions, "env" | "cwd" | "luaPath" | "textHost">): void {
  const boot = threadBootFor(options);
  const key = keyOf(boot);
  if (ahead.has(key)) return;
  const thread = new LuaThread(boot, luaWasmModule());
  thread.worker.unref(); // waiting for a taker keeps no process alive
  ahead.set(key, thread);
}

/**
 * Has the thread started ahead with these options, if any, boot awl's Lua runtime now (it would with its first
 * load): once awl's own start is past its busiest part, so that only the extensions' load is left for later.
 */
export function bootLuaThreadAhead(options: Pick<LuaPoolOptions, "env" | "cwd" | "luaPath" | "textHost">): void {
  const thread = ahead.get(keyOf(threadBootFor(options)));
  if (thread && !thread.exited) thread.worker.postMessage({ type: "boot" } satisfies ToWorker);
}

/**
 * Has the thread started ahead with these options, if any and if not told yet, load their extensions now, before
 * the pool that will take it is there (its modules still load meanwhile): a tool call is coming. The pool's first
 * worker takes it only if it still loads the same (see WorkerSlot).
 */
export function loadLuaThreadAhead(options: LuaPoolOptions): void {
  const thread = ahead.get(keyOf(threadBootFor(options)));
  if (thread && !thread.exited && thread.loadSent === undefined) thread.load(loadSettingsFor(options));
}

/** The thread started ahead for `boot`, if it still runs; nobody else gets it after this. */
export function takeLuaThreadAhead(boot: ThreadBoot): LuaThread | undefined {
  const key = keyOf(boot);
  const thread = ahead.get(key);
  ahead.delete(key);
  if (thread?.exited) return undefined;
  return thread;
}

/**
 * Stops every thread started ahead that nobody took, once past Node's own start of its thread (a process that
 * exits during that start can abort inside Node). One sent a load whose extensions registered an on_unload hook
 * runs their hooks first (time-limited), as a pool's worker would; the others are given up as they are. Resolves
 * when they are gone.
 */
export function stopLuaThreadsAhead(): Promise<void> {
  const unused = [...ahead.values()];
  ahead.clear();
  for (const thread of unused) {
    thread.worker.ref(); // the wait for its stop keeps the process alive
    const stop = thread.abandon() ? Promise.resolve() : unloadThen(thread);
    stopping = Promise.all([stopping, stop.then(() => thread.online).then(() => thread.worker.terminate())]).then(() => undefined);
  }
  return stopping;
}

/** Has the worker run its extensions' on_unload hooks; resolves once it has, or could not in time. */
function unloadThen(thread: LuaThread): Promise<void> {
  if (thread.exited) return Promise.resolve();
  return new Promise((resolve) => {
    const deadline = setTimeout(resolve, UNLOAD_TIMEOUT_MS * 2); // its load, then the hooks' own limit
    const done = () => {
      clearTimeout(deadline);
      resolve();
    };
    thread.worker.once("exit", done);
    thread.listen((msg: FromWorker) => {
      if (msg.type === "unloaded" || msg.type === "fatal") done();
    });
    // A load split for a call (LoadSettings.first) ends first: the unload waits for its rest.
    thread.worker.postMessage({ type: "load-rest" } satisfies ToWorker);
    thread.worker.postMessage({ type: "unload", timeoutMs: UNLOAD_TIMEOUT_MS } satisfies ToWorker);
  });
}
