/**
 * Messages between the main thread (pool, slots) and a Lua worker. Plain data only: everything
 * here crosses `postMessage`.
 */
import type { ExtensionEntry, ExtensionLoadError, LuaToolRegistration } from "./types.js";
import type { ToolProgress } from "../../tools/types.js";
import type { MessagePort } from "node:worker_threads";
import type { HttpRequestSpec, HttpResult } from "../../web/http-request.js";
import type { SearchOutcome } from "../../web/search.js";
import type { PdfText } from "../../web/pdf-text.js";

/**
 * A compiled WebAssembly.Module (the project compiles without the DOM lib, so it is opaque here).
 */
export type WasmModule = object;

/** The few WebAssembly functions awl calls. */
export interface WasmApi {
  Module: new (bytes: Uint8Array) => WasmModule;
  instantiate(module: WasmModule, imports: object): Promise<object>;
}

export const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** How long an extension's on_unload hooks may run, at a reload (per extension) or at exit (all of them). */
export const UNLOAD_TIMEOUT_MS = 2_000;

/** Indexes into the shared Int32Array every slot has with its worker. */
export const CONTROL_ABORT = 0; // written by the main thread: why the running call must stop (ABORT_*)
export const CONTROL_REPLY = 1; // 1 when the main thread answered a synchronous host request
export const CONTROL_LOADING = 2; // written by the worker: 1 + index of the extension it is loading
export const CONTROL_OWED = 3; // what the worker's extensions are owed at exit (OWED_*), changed by compare-and-swap
export const CONTROL_SIZE = 4;
/** In CONTROL_OWED: nothing yet (a start no call needed can be given up, its worker stopped)... */
export const OWED_NOTHING = 0;
/** ...an extension registered an on_unload hook (it must run at exit)... */
export const OWED_HOOKS = 1;
/** ...or the main thread gave the worker up (it is being stopped): no hook may be registered from now on. */
export const OWED_ABANDONED = -1;

export const ABORT_NONE = 0;
export const ABORT_TIMEOUT = 1;
export const ABORT_CANCEL = 2;
/** Set inside the worker only: the handler called os.exit. */
export const ABORT_EXIT = 3;

/**
 * What a worker needs to boot the Lua runtime (passed as `workerData`): nothing about the extensions it will
 * load, so a worker can boot before they are known (head-start.ts). The compiled WebAssembly module follows in a
 * message, then what to load (`LoadSettings`).
 */
export interface WorkerInit {
  control: SharedArrayBuffer;
  requestPort: MessagePort;
  runtimeDir: string;
  env: Record<string, string>;
  luaPath: string[];
  home: string;
  cwd: string;
  /** `awl.fs.read_text` / `write_text` ask the main thread (its TextHost) instead of reading the disk. */
  textFromHost?: boolean;
  /** Where the worker's script keeps its V8 code cache (worker/loader.ts); none without. */
  codeCacheDir?: string;
}

/**
 * A global the worker's loader sets when the code cache is to be written: the worker calls it once its extensions
 * are loaded, when the functions its start needed are compiled.
 */
export const SAVE_CODE_CACHE = Symbol.for("awl.lua-worker.save-code-cache");

/** The extensions a booted worker loads, and the limits they run under: the `load` message. */
export interface LoadSettings {
  extensions: ExtensionEntry[];
  memoryLimitBytes: number;
  loadTimeoutMs: number;
  /**
   * Extensions (names in `extensions`) a call is waiting for: loaded before the others, then announced
   * (`first-loaded`), and the others load one at a time between that call and any other of theirs (a tool of the
   * others waits for `loaded`). None: all in one go.
   */
  first?: readonly string[];
}

/** The Lua entry points a call can run (runtime/awl.lua). */
export type LuaEntry = "call" | "available" | "render";

export interface CallRequest {
  type: "call";
  id: number;
  entry: LuaEntry;
  extension: string;
  tool: string;
  input: string;
  /** ToolContextData as JSON. */
  ctx: string;
  cwd: string;
  timeoutMs: number;
}

/**
 * `module`: wasmoon's module as the main thread compiled it (the worker starts before the compile ends): the
 * worker boots the Lua runtime with it. `load`: the extensions to load (answered by `loaded`). The rest wait for
 * the boot and run in the order sent (a `call` may run while the extensions of a load other than its `first`
 * still load: the main thread sends only calls of those it was told are loaded), except `exit`: close the ports
 * now, so the thread ends on its own (see WorkerSlot.terminate), running nothing more.
 */
export type ToWorker =
  | { type: "module"; module: WasmModule }
  /** Boot awl's Lua runtime now rather than with the first load (a worker started ahead: head-start.ts). */
  | { type: "boot" }
  | ({ type: "load" } & LoadSettings)
  /** Load the extensions other than the load's `first` now (after `first-loaded`: the calls sent before run first). */
  | { type: "load-rest" }
  /** API keys to scrub from spill files (`awl.fs.open_spill`) besides those of the worker's environment. */
  | { type: "secrets"; secrets: string[] }
  | CallRequest
  | { type: "unload"; timeoutMs: number }
  | ReloadRequest
  | { type: "exit" };

/**
 * Load `load` again beside the versions serving; each that loads has its old version's on_unload hooks run
 * (within `unloadTimeoutMs`) and takes its place; each that fails leaves the old version serving. The extensions
 * in `remove` have their hooks run and are dropped.
 */
export interface ReloadRequest {
  type: "reload";
  load: ExtensionEntry[];
  remove: string[];
  unloadTimeoutMs: number;
}

/** One extension of a reload: its new registrations, or why its new version was refused (the old one stays). */
export type ReloadResult = { extension: string; tools: LuaToolRegistration[] } | { extension: string; error: ExtensionLoadError };

/** How a handler ended, as the worker saw it. */
export type WorkerOutcome =
  | { status: "ok" | "error"; content: string; extra?: string; invalidUtf8: boolean }
  | { status: "crash"; message: string; traceback: string; outOfMemory: boolean }
  | { status: "aborted"; reason: "timeout" | "cancel" | "exit"; exitCode: number };

export type FromWorker =
  /** Every extension of the load (in its order), once they are all loaded. */
  | { type: "loaded"; tools: LuaToolRegistration[]; errors: ExtensionLoadError[] }
  /** Those of a load's `first` (see LoadSettings), while the others load: their tools can run now. */
  | { type: "first-loaded"; tools: LuaToolRegistration[]; errors: ExtensionLoadError[] }
  | { type: "result"; id: number; outcome: WorkerOutcome }
  /** A piece of a long result's content, sent before its `result` (whose content is then the rest): see RESULT_PIECE. */
  | { type: "result-piece"; id: number; text: string }
  | { type: "progress"; id: number; update: ToolProgress }
  | { type: "log"; extension: string; stream: string; text: string }
  | { type: "unloaded" }
  | { type: "reloaded"; results: ReloadResult[] }
  /** The worker cannot go on (start-up failed, or a JS exception went through wasm); it exits next. */
  | { type: "fatal"; message: string };

/** A synchronous request from Lua to the main thread (child processes live there, so they can be killed). */
export interface ExecRequest {
  callId: number;
  extension: string;
  /** A program and its arguments (no shell), or `shell`: a command line for /bin/sh -c. */
  argv?: string[];
  shell?: string;
  cwd: string;
  env?: Record<string, string>;
  stdin?: Uint8Array;
  timeoutMs?: number;
  stdout: "capture" | "log";
  stderr: "capture" | "log";
}

/** How a program ended. */
export interface ProcessEnd {
  code: number | null;
  how: "exit" | "signal" | "timeout" | "error";
  /** Signal number for "signal", the reason for "error". */
  detail?: number | string;
}

export interface ExecReply extends ProcessEnd {
  stdout: Uint8Array;
  stderr: Uint8Array;
}

/**
 * `awl.spawn`: a program started now, whose output the handler reads as it comes (no stdin: it reads EOF). A
 * notice, not a request: the worker names the handle and goes on without waiting (its first read, which waits,
 * reaches the main thread in the same wake-up), so a short command costs one round trip between the threads, not two.
 */
export interface SpawnRequest {
  /** Chosen by the worker, unique within it. */
  handle: number;
  callId: number;
  argv: string[];
  cwd: string;
  env?: Record<string, string>;
  timeoutMs?: number;
}


/** Output that came since the last read (in arrival order, one piece per run of one stream); `end` once all of it was read. */
export interface ReadReply {
  chunks: { stream: "stdout" | "stderr"; data: Uint8Array }[];
  end?: ProcessEnd;
}

/**
 * What a worker asks the main thread for, synchronously (it blocks until the answer): child processes live on the
 * main thread, so a cancel can kill them even while the worker is busy.
 */
export type HostRequest =
  | ({ op: "exec" } & ExecRequest)
  | { op: "read"; handle: number }
  | { op: "pid"; handle: number }
  | { op: "kill"; handle: number }
  | { op: "read_text"; path: string }
  | { op: "write_text"; path: string; data: Uint8Array }
  /** `awl.http.request`: performed on the main thread, where the permission gate and the call's abort are. */
  | { op: "http"; callId: number; spec: HttpRequestSpec }
  /** `awl.web.search`: the configured backend, asked on the main thread (its key never enters Lua). */
  | { op: "search"; callId: number; query: string; count: number }
  /** `awl.web.pdf_text`: a PDF's text (PDF.js works with promises, which only the main thread can wait for). */
  | { op: "pdf_text"; data: Uint8Array };

/** What a worker tells the main thread without waiting for an answer. */
export type HostNotice = { op: "spawn" } & SpawnRequest;

/** The text host's answer: the file's bytes (reads), or why it failed. */
export type TextReply = { ok: true; data?: Uint8Array } | { ok: false; message: string };

/** The answer to each kind of {@link HostRequest}. */
export interface HostReplies {
  exec: ExecReply;
  read: ReadReply;
  /** 0 when the program could not start. */
  pid: { pid: number };
  kill: { killed: boolean };
  read_text: TextReply;
  write_text: TextReply;
  http: HttpResult;
  search: SearchOutcome;
  pdf_text: PdfText;
}

/**
 * The most characters of a result's content one message carries: a longer content crosses in pieces. A message is
 * copied through a buffer of its size that glibc allocates; after one of megabytes, glibc keeps that much in the
 * worker thread's arena for good (its dynamic mmap threshold), which later workers then inherit.
 */
export const RESULT_PIECE = 32 * 1024;
