/**
 * A Lua worker started ahead. In a headless run the first tool call can come with the model's first reply, and a
 * worker's own start (Node's thread, wasmoon, awl's Lua runtime) is most of the time such a call waits: so the
 * run starts one before it knows its extensions, beside the rest of its start-up. The pool's first worker with
 * the same boot takes it and sends it the extensions; a thread nobody took is stopped at exit.
 */
import { luaWasmModule } from "./assets.js";
import { LuaThread, threadBootFor, type ThreadBoot } from "./thread.js";
import type { LuaPoolOptions } from "./types.js";

let ahead: { thread: LuaThread; key: string } | undefined;
/** Every stop asked for so far: whoever waits for one waits for all (an exit must not cut one short). */
let stopping: Promise<void> = Promise.resolve();

const keyOf = (boot: ThreadBoot) => JSON.stringify(boot);

/** Starts a worker booting the Lua runtime as a pool with these options would, unless one already is. */
export function startLuaThreadAhead(options: Pick<LuaPoolOptions, "env" | "cwd">): void {
  if (ahead) return;
  const boot = threadBootFor(options);
  const thread = new LuaThread(boot, luaWasmModule());
  thread.worker.unref(); // waiting for a taker keeps no process alive
  ahead = { thread, key: keyOf(boot) };
}

/**
 * The thread started ahead, if it boots with `boot` and still runs; nobody else gets it after this. One that
 * boots otherwise (another folder, another environment) is of no use: it is stopped.
 */
export function takeLuaThreadAhead(boot: ThreadBoot): LuaThread | undefined {
  if (!ahead) return undefined;
  if (ahead.thread.exited || ahead.key !== keyOf(boot)) {
    void stopLuaThreadAhead();
    return undefined;
  }
  const { thread } = ahead;
  ahead = undefined;
  return thread;
}

/**
 * Stops the thread started ahead if nobody took it: it has loaded nothing (it was never sent any extension), so
 * it is terminated once past Node's own start of its thread (a process that exits during that start can abort
 * inside Node). Resolves when it is gone.
 */
export function stopLuaThreadAhead(): Promise<void> {
  const unused = ahead?.thread;
  ahead = undefined;
  if (unused) {
    unused.worker.ref(); // the wait for its stop keeps the process alive
    stopping = Promise.all([stopping, unused.online.then(() => unused.worker.terminate())]).then(() => undefined);
  }
  return stopping;
}
