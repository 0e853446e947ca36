/**
 * Entry point of a Lua worker thread (one pool slot). Instantiates wasmoon's WebAssembly module
 * from the one the main thread compiled; with the first message it boots awl's Lua runtime and loads the
 * extensions it is sent (they need not be known when the thread starts), then runs calls one at a time; a load
 * with a `first` loads those, runs the calls of theirs that come, and loads the others between them (loadRest).
 * Lua never runs on the main thread.
 */
import { createRequire } from "node:module";
import { parentPort, receiveMessageOnPort, workerData } from "node:worker_threads";
import { LuaFactory } from "wasmoon";
import { wasmApi, CONTROL_REPLY, RESULT_PIECE, SAVE_CODE_CACHE, type FromWorker, type LoadSettings, type HostNotice, type HostReplies, type HostRequest, type ToWorker, type WasmModule, type WorkerInit, type WorkerOutcome } from "../protocol.js";
import { DamagedState, LuaRuntime, type LoadedPart } from "./runtime.js";
import type { LuaModule } from "./lua-c.js";

const init = workerData as WorkerInit;
const control = new Int32Array(init.control);
const port = parentPort!;

function post(message: FromWorker): void {
  port.postMessage(message);
}

/** Child processes run on the main thread (so a cancel can kill them): ask, then block for the answer. */
function request<R extends HostRequest>(req: R): HostReplies[R["op"]] {
  Atomics.store(control, CONTROL_REPLY, 0);
  init.requestPort.postMessage(req);
  for (;;) {
    const got = receiveMessageOnPort(init.requestPort);
    if (got) return got.message as HostReplies[R["op"]];
    Atomics.wait(control, CONTROL_REPLY, 0, 1000);
  }
}

/** A notice the main thread handles in order with the requests, without an answer. */
function notify(notice: HostNotice): void {
  init.requestPort.postMessage(notice);
}

/** wasmoon compiles its .wasm on every start; hand it the module the main thread compiled once. */
async function loadLuaModule(compiled: WasmModule): Promise<LuaModule> {
  const original = wasmApi.instantiate;
  wasmApi.instantiate = (_bytes: unknown, imports: object) =>
    original(compiled, imports).then((instance) => ({ instance, module: compiled }));
  try {
    // wasmoon (bundled into this worker's script) looks for its .wasm beside the script: where it is instead
    const wasm = await new LuaFactory(createRequire(import.meta.url).resolve("wasmoon/dist/glue.wasm")).getLuaModule();
    return wasm.module as unknown as LuaModule;
  } finally {
    wasmApi.instantiate = original;
  }
}

/** Once, after the first load: the worker's code cache, when its loader asked for one (see loader.ts). */
function saveCodeCache(): void {
  const globals = globalThis as Record<symbol, unknown>;
  const save = globals[SAVE_CODE_CACHE] as (() => void) | undefined;
  delete globals[SAVE_CODE_CACHE];
  if (save) setImmediate(save); // after the loaded message has gone
}

function fatal(err: unknown): never {
  post({ type: "fatal", message: err instanceof Error ? err.message : String(err) });
  process.exit(1); // in a worker: ends this thread only
}

let runtime: LuaRuntime | undefined;
let stopping = false;

async function instantiate(module: WasmModule): Promise<LuaModule | undefined> {
  if (stopping) return undefined;
  try {
    return await loadLuaModule(module);
  } catch (err) {
    fatal(err);
  }
}

/**
 * One message, once the runtime has booted. The runtime boots as the first message comes (`boot`, or the first
 * load), not as wasmoon's module does: a worker started ahead (head-start.ts) only instantiates the module until
 * awl's own start is past its busiest part.
 */
function handle(lua: LuaModule | undefined, message: Exclude<ToWorker, { type: "module" | "exit" | "load-rest" }>): void {
  if (stopping || !lua) return;
  try {
    runtime ??= new LuaRuntime(lua, init, { post, request, notify, control });
  } catch (err) {
    fatal(err);
  }
  try {
    if (message.type === "boot") {
      // booted above
    } else if (message.type === "secrets") {
      runtime.knowSecrets(message.secrets);
    } else if (message.type === "load") {
      const first = firstIndexes(message);
      if (first.length === 0) {
        post({ type: "loaded", ...runtime.loadExtensions(message) });
        saveCodeCache();
      } else {
        const parts = new Map(first.map((index) => [index, runtime!.loadSome(message, [index])]));
        post({ type: "first-loaded", ...joined(parts) });
        rest = restAsked.then(() => loadRest(runtime!, message, parts));
      }
    } else if (message.type === "call") {
      postResult(message.id, runtime.call(message));
    } else if (message.type === "unload") {
      runtime.unload(message.timeoutMs);
      post({ type: "unloaded" });
    } else if (message.type === "reload") {
      post({ type: "reloaded", results: runtime.reload(message) });
    }
  } catch (err) {
    fatal(message.type === "load" || err instanceof DamagedState ? err : new Error(`the Lua worker failed: ${String(err)}`));
  }
}

/** The indexes of a load's `first` extensions in its list, in the list's order. */
function firstIndexes(settings: LoadSettings): number[] {
  const first = new Set(settings.first ?? []);
  return settings.extensions.flatMap((e, index) => (first.has(e.name) ? [index] : []));
}

/** What a load split by its `first` loads once those are: the others, one per turn of the event loop. */
let rest: Promise<void> = Promise.resolve();
/** The main thread's `load-rest`: the calls waiting for the first extensions were sent before it. */
let askRest!: () => void;
const restAsked = new Promise<void>((resolve) => (askRest = resolve));

/**
 * Loads the extensions of `settings` not in `parts` (those loaded first), one at a time, each in a turn of the
 * event loop of its own, so that a call of the first ones that comes meanwhile runs between two of them; then
 * says `loaded` with every extension's registrations and errors, in the load's order.
 */
async function loadRest(runtime: LuaRuntime, settings: LoadSettings, parts: Map<number, LoadedPart>): Promise<void> {
  try {
    for (const [index] of settings.extensions.entries()) {
      if (parts.has(index)) continue;
      await new Promise((resolve) => setImmediate(resolve));
      if (stopping) return;
      parts.set(index, runtime.loadSome(settings, [index]));
    }
  } catch (err) {
    fatal(err);
  }
  post({ type: "loaded", ...joined(parts) });
  saveCodeCache();
}

/** Parts of a load (by index in its list) as one, in the list's order. */
function joined(parts: Map<number, LoadedPart>): LoadedPart {
  const ordered = [...parts].sort((a, b) => a[0] - b[0]).map(([, part]) => part);
  return { tools: ordered.flatMap((p) => p.tools), errors: ordered.flatMap((p) => p.errors) };
}

// The module may come after what to load (it is sent once compiled): everything else waits for it, in order. A
// call may run while the rest of a load does (see loadRest); anything else waits for that rest too.
let moduleCame!: (module: WasmModule) => void;
const lua = new Promise<WasmModule>((resolve) => (moduleCame = resolve)).then(instantiate);
let turn: Promise<unknown> = lua;
port.on("message", (message: ToWorker) => {
  if (message.type === "module") {
    moduleCame(message.module);
  } else if (message.type === "load-rest") {
    askRest();
  } else if (message.type === "exit") {
    stopping = true;
    port.close();
    init.requestPort.close();
  } else {
    const before = message.type === "call" || message.type === "secrets" ? turn : turn.then(() => rest);
    turn = before.then(() => lua).then((module) => handle(module, message));
  }
});

/** A call's outcome; a long content in pieces of RESULT_PIECE characters, the last one with the outcome. */
function postResult(id: number, outcome: WorkerOutcome): void {
  if (outcome.status === "crash" || outcome.status === "aborted" || outcome.content.length <= RESULT_PIECE) {
    post({ type: "result", id, outcome });
    return;
  }
  const { content } = outcome;
  let at = 0;
  for (; content.length - at > RESULT_PIECE; at += RESULT_PIECE) post({ type: "result-piece", id, text: content.slice(at, at + RESULT_PIECE) });
  post({ type: "result", id, outcome: { ...outcome, content: content.slice(at) } });
}
