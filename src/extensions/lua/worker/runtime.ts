/**
 * One Lua 5.4 state inside a worker: created with a memory-capped allocator and an instruction
 * hook, booted with awl's runtime (runtime/*.lua), holding every extension. Runs one call at a time.
 *
 * Stopping runaway code: a count hook runs every HOOK_COUNT instructions and checks the call's
 * deadline and the shared abort flag; once either trips it re-arms itself for every instruction and
 * raises an error each time, so even a loop inside pcall unwinds. What the hook cannot reach (an
 * xpcall handler that loops, `debug.sethook()`, a long C call) the main thread ends by terminating
 * the worker.
 */
import { existsSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, sep } from "node:path";
import {
  ABORT_CANCEL,
  ABORT_EXIT,
  ABORT_NONE,
  ABORT_TIMEOUT,
  CONTROL_ABORT,
  CONTROL_LOADING,
  CONTROL_OWED,
  OWED_ABANDONED,
  OWED_HOOKS,
  OWED_NOTHING,
  type CallRequest,
  type HostReplies,
  type HostNotice,
  type HostRequest,
  type FromWorker,
  type ReloadRequest,
  type LoadSettings,
  type ReloadResult,
  type WorkerInit,
  type WorkerOutcome,
} from "../protocol.js";
import type { ExtensionEntry, ExtensionLoadError, LuaToolRegistration, ToolProgress } from "../types.js";
import { HostFiles, fsFailure } from "./host-fs.js";
import { listDir, pathFromBytes, realPath, statPath } from "./host-dir.js";
import { readText, textOfBytes, writeText } from "./host-text.js";
import { grep, walk, type GrepOptions, type WalkOptions } from "./host-walk.js";
import { LUA_MASKCOUNT, LUA_REGISTRYINDEX, LuaC, type HostRecord, type HostValue, type LuaModule } from "./lua-c.js";
import type { RedirectMode } from "../../../web/http-request.js";
import { pageMarkdown } from "../../../web/html-markdown.js";
import { StackWhere } from "./stack-where.js";
import { encodeJson } from "./json-encode.js";
import { packageRoot } from "../../../util/package-path.js";
import { knownSecrets, StreamScrubber } from "../../../util/secrets.js";
import { KNOWN_C_MODULES, luaSearchPaths } from "./lua-paths.js";

/** Instructions between two checks of the deadline and abort flag (cheap: ~1 µs of Lua). */
const HOOK_COUNT = 1000;
/** Bumped when the Lua API extensions see changes incompatibly (docs/extension-api.md). */
export const LUA_API_VERSION = "1";

const ABORT_MESSAGE: Record<number, string> = {
  [ABORT_TIMEOUT]: "awl: the handler ran past its timeout",
  [ABORT_CANCEL]: "awl: the call was cancelled",
  [ABORT_EXIT]: "awl: the handler called os.exit",
};

/** What a load (or a part of it) registered, and the extensions that failed. */
export interface LoadedPart {
  tools: LuaToolRegistration[];
  errors: ExtensionLoadError[];
}

export interface RuntimeHost {
  post(message: FromWorker): void;
  /** A synchronous request to the main thread (child processes). */
  request<R extends HostRequest>(request: R): HostReplies[R["op"]];
  /** A message to the main thread that needs no answer, ordered with the requests. */
  notify(notice: HostNotice): void;
  control: Int32Array;
}

/** A JavaScript exception went through wasm: Lua's cleanup was skipped and the state cannot be trusted. */
export class DamagedState extends Error {}

// ignoreBOM: a result that starts with U+FEFF (a file read whole) keeps it.
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const lenientUtf8 = new TextDecoder("utf-8", { ignoreBOM: true });

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class LuaRuntime {
  private readonly c: LuaC;
  private readonly m: LuaModule;
  private readonly L: number;
  private readonly files: HostFiles;
  private hookPtr = 0;
  private abort = ABORT_NONE;
  private exitCode = 0;
  private deadline = Infinity;
  private memoryUsed = 0;
  /** The capped allocator (a JavaScript function), in use whenever code that is not awl's own runs. */
  private cappedAlloc = 0;
  /** Lua's own allocator (luaL_newstate's), for awl's own code: the runtime's boot, the bundled extensions' loads. */
  private luaAlloc = 0;
  private capped = false;
  /** Where awl's own Lua is: its runtime and its bundled extensions (their bytecode is trusted, see read_compiled). */
  private readonly ownDirs: readonly string[];
  /** The limits `loadExtensions` was given: until then only awl's own runtime runs (its boot), uncapped. */
  private limits: Omit<LoadSettings, "extensions"> = { memoryLimitBytes: Infinity, loadTimeoutMs: 0 };
  private memoryRefused = false;
  /** Where the handler ran when the first allocation was refused (its error gets no traceback of its own). */
  private memoryRefusedAt = "";
  private readonly stack: StackWhere;
  private extension = "";
  private callId = 0;
  /** The running call's spill folder (its ctx.spill_dir), for `awl.http` bodies spilled. */
  private spillDir = "";
  private nextSpill = 1;
  /** `awl.spawn` handles, named here (the main thread is told, not asked). */
  private nextHandle = 1;
  /** The extensions loaded, in the order of their load list (on_unload hooks run in it), reloaded new ones last. */
  private serving: string[] = [];
  /** API keys the main thread knows of besides the environment's (`secrets` message): scrubbed from spill files. */
  private secrets: readonly string[] = [];
  private entry: Record<"load_extension" | "call" | "available" | "render" | "unload_extension" | "commit_extension", number> = {
    unload_extension: 0,
    commit_extension: 0,
    load_extension: 0,
    call: 0,
    available: 0,
    render: 0,
  };

  constructor(
    module: LuaModule,
    private readonly init: WorkerInit,
    private readonly host: RuntimeHost,
  ) {
    this.m = module;
    this.c = new LuaC(module);
    this.files = new HostFiles(init.cwd);
    this.ownDirs = [init.runtimeDir, join(packageRoot(), "extensions")];
    this.stack = new StackWhere(module, init.runtimeDir);
    this.L = this.createState();
    this.boot();
    this.capMemory();
  }

  private createState(): number {
    const m = this.m;
    const alloc = m.addFunction((_ud: number, ptr: number, oldSize: number, newSize: number) => {
      if (newSize === 0) {
        if (ptr) {
          this.memoryUsed -= oldSize;
          m._free(ptr);
        }
        return 0;
      }
      const delta = ptr ? newSize - oldSize : newSize;
      if (delta > 0 && this.memoryUsed + delta > this.limits.memoryLimitBytes) {
        if (!this.memoryRefused) this.memoryRefusedAt = this.stack.traceback(this.L);
        this.memoryRefused = true;
        return 0;
      }
      const p = m._realloc(ptr, newSize);
      if (p) this.memoryUsed += delta;
      return p;
    }, "iiiii");
    this.cappedAlloc = alloc;
    // Lua's own allocator while awl's runtime boots (its thousands of allocations need no call into JavaScript);
    // capMemory() puts the capped one in once it has. No panic or warning function, as with lua_newstate.
    const L = m._luaL_newstate();
    if (!L) throw new Error("cannot create a Lua state (out of memory)");
    this.luaAlloc = m._lua_getallocf(L, 0);
    m._lua_atpanic(L, 0);
    m._lua_setwarnf(L, 0, 0);
    m._luaL_openlibs(L);
    this.hookPtr = m.addFunction((hookL: number) => this.onHook(hookL), "vii");
    m._lua_sethook(L, this.hookPtr, LUA_MASKCOUNT, HOOK_COUNT);
    return L;
  }

  private onHook(L: number): void {
    if (this.abort === ABORT_NONE) {
      const flag = this.callFlag();
      if (flag !== ABORT_NONE) this.abort = flag;
      else if (performance.now() < this.deadline) return;
      else this.abort = ABORT_TIMEOUT;
    }
    this.m._lua_sethook(L, this.hookPtr, LUA_MASKCOUNT, 1);
    this.c.pushString(L, ABORT_MESSAGE[this.abort] ?? "awl: stopped");
    this.m._lua_error(L); // unwinds through Lua (a longjmp); never returns
  }

  /** A long host function (a walk, a search) asks this between steps: the call was cancelled or ran out of time. */
  private shouldStop(): boolean {
    return this.abort !== ABORT_NONE || this.callFlag() !== ABORT_NONE || performance.now() > this.deadline;
  }

  /**
   * The main thread's abort flag, which stops calls only: an extension's load between calls (see
   * LoadSettings.first) must not read the flag a call's cancel raised before that call came to run.
   */
  private callFlag(): number {
    return this.callId === 0 ? ABORT_NONE : Atomics.load(this.host.control, CONTROL_ABORT);
  }

  /** Stops the running Lua code at its next instruction (os.exit). */
  private stopSoon(L: number, reason: number): void {
    this.abort = reason;
    this.m._lua_sethook(L, this.hookPtr, LUA_MASKCOUNT, 1);
  }

  private protectedCall(nargs: number, nresults: number): number {
    try {
      return this.m._lua_pcallk(this.L, nargs, nresults, 0, 0, 0);
    } catch (err) {
      throw new DamagedState(`a JavaScript error went through Lua: ${messageOf(err)}`);
    }
  }

  private boot(): void {
    const { L, m, c } = this;
    const runtimeDir = this.init.runtimeDir;
    const bootFile = join(runtimeDir, "boot.lua");
    const [source, err] = this.files.readSource(bootFile);
    if (!(source instanceof Uint8Array)) throw new Error(String(err));
    const loadError = c.load(L, source, `@${bootFile}`);
    if (loadError) throw new Error(loadError);
    m._lua_createtable(L, 0, 24);
    this.registerHostFunctions();
    const paths = luaSearchPaths(this.init.env, this.init.home, this.init.luaPath);
    const config = {
      api_version: LUA_API_VERSION,
      path: paths.path,
      cpath: paths.cpath,
      known_c: KNOWN_C_MODULES,
      seed: [randomSeed(), randomSeed()],
      host: {
        os: process.platform,
        arch: process.arch,
        cpus: availableParallelism(),
        node: process.version,
        lua: "Lua 5.4",
      },
    };
    c.pushString(L, JSON.stringify(config));
    c.pushString(L, runtimeDir);
    if (this.protectedCall(3, 1) !== 0) throw new Error(`awl's Lua runtime failed to boot: ${c.string(L, -1)}`);
    for (const name of Object.keys(this.entry) as (keyof typeof this.entry)[]) {
      const key = c.cstring(name);
      m._lua_getfield(L, -1, key);
      m._free(key);
      this.entry[name] = m._luaL_ref(L, LUA_REGISTRYINDEX);
    }
    m._lua_settop(L, 0);
  }

  /** Adds one host function to the table on top of the stack. `impl` returns the values for Lua. */
  private hostFunction(name: string, impl: (L: number) => HostValue[] | number): void {
    const { m, c } = this;
    const ptr = m.addFunction((L: number) => {
      let results: HostValue[] | number;
      try {
        results = impl(L);
      } catch (err) {
        if (typeof err === "number") throw err; // a Lua error (longjmp) in flight
        results = [null, messageOf(err)];
      }
      if (typeof results === "number") return results;
      for (const v of results) c.push(L, v);
      return results.length;
    }, "ii");
    m._lua_pushcclosure(this.L, ptr, 0);
    const key = c.cstring(name);
    m._lua_setfield(this.L, -2, key);
    m._free(key);
  }

  private registerHostFunctions(): void {
    const { c, files } = this;
    const str = (L: number, i: number) => c.string(L, i) ?? "";
    const bytes = (L: number, i: number) => c.view(L, i) ?? new Uint8Array(0);
    const num = (L: number, i: number) => c.number(L, i) ?? 0;

    this.hostFunction("read_source", (L) => files.readSource(str(L, 1)));
    this.hostFunction("read_compiled", (L) => [files.readCompiled(str(L, 1), (file) => this.isOwn(file))]);
    // An on_unload hook is owed at exit, unless the main thread gave this worker up first (see WorkerSlot.abandon).
    this.hostFunction("owe_unload", () => [Atomics.compareExchange(this.host.control, CONTROL_OWED, OWED_NOTHING, OWED_HOOKS) !== OWED_ABANDONED]);
    this.hostFunction("is_file", (L) => [files.isFile(str(L, 1))]);
    // json.lua's encoder asks first (arguments: the value, then its ARRAY, OBJECT and null marks): plain data is
    // encoded here without running Lua, anything else is left to it (nil).
    this.hostFunction("encode_json", (L) => {
      const at = (i: number) => this.m._lua_topointer(L, i);
      return [encodeJson(c, L, 1, { array: at(2), object: at(3), null: at(4) }) ?? null];
    });
    this.hostFunction("fs_open", (L) => files.open(str(L, 1), str(L, 2)));
    this.hostFunction("fs_read", (L) => {
      const fd = num(L, 1);
      const want = Math.max(0, Math.min(num(L, 2), 1 << 20));
      const p = c.scratchBuffer(want);
      try {
        const count = files.read(fd, this.m.HEAPU8.subarray(p, p + want));
        this.m._lua_pushlstring(L, p, count);
        return 1;
      } catch (err) {
        return fsFailure(err);
      }
    });
    this.hostFunction("fs_write", (L) => files.write(num(L, 1), bytes(L, 2)));
    this.hostFunction("fs_seek", (L) => files.seek(num(L, 1), str(L, 2), num(L, 3)));
    this.hostFunction("fs_close", (L) => files.close(num(L, 1)));
    this.hostFunction("fs_remove", (L) => files.remove(str(L, 1)));
    this.hostFunction("fs_rename", (L) => files.rename(str(L, 1), str(L, 2)));
    this.hostFunction("fs_tmpname", () => files.tmpname());
    const pathArg = (L: number, i: number) => pathFromBytes(bytes(L, i), files.cwd);
    this.hostFunction("fs_stat", (L) => statPath(pathArg(L, 1)));
    this.hostFunction("fs_list", (L) => listDir(pathArg(L, 1), num(L, 2)));
    this.hostFunction("fs_real_path", (L) => realPath(pathArg(L, 1)));
    this.hostFunction("fs_read_text", (L) => {
      const offset = c.number(L, 2);
      const limit = c.number(L, 3);
      const maxLine = c.number(L, 4);
      const options = { ...(offset !== null && { offset }), ...(limit !== null && { limit }), ...(maxLine !== null && { maxLine }) };
      const path = pathArg(L, 1);
      if (!this.init.textFromHost) return readText(path, options);
      // The host serves the whole text (an editor's buffer); the lines asked for are cut here, as from a file.
      if (typeof path !== "string") return [null, "awl reads only paths that are valid UTF-8 from its host", 22];
      const reply = this.host.request({ op: "read_text", path });
      return reply.ok ? textOfBytes(Buffer.from(reply.data ?? new Uint8Array()), options) : [null, `${path}: ${reply.message}`, 5];
    });
    this.hostFunction("fs_open_spill", (L) => {
      const path = pathArg(L, 1);
      if (typeof path !== "string") return [null, "awl writes only to paths that are valid UTF-8", 22];
      return files.openSpill(path, new StreamScrubber([...knownSecrets(this.init.env), ...this.secrets]));
    });
    this.hostFunction("fs_spill_write", (L) => files.writeSpill(num(L, 1), bytes(L, 2)));
    this.hostFunction("fs_spill_close", (L) => files.closeSpill(num(L, 1)));
    this.hostFunction("fs_write_text", (L) => {
      const path = pathArg(L, 1);
      if (typeof path !== "string") return [null, "awl writes only to paths that are valid UTF-8", 22];
      if (!this.init.textFromHost) return writeText(path, bytes(L, 2));
      const created = !existsSync(path);
      const reply = this.host.request({ op: "write_text", path, data: bytes(L, 2).slice() }); // slice: never clone all of wasm memory
      return reply.ok ? [true, created] : [null, `${path}: ${reply.message}`, 5];
    });
    const stop = () => this.shouldStop();
    this.hostFunction("fs_walk", (L) => walk(files.path(str(L, 1)), JSON.parse(str(L, 2)) as WalkOptions, stop));
    this.hostFunction("fs_grep", (L) => grep(files.path(str(L, 1)), str(L, 2), JSON.parse(str(L, 3)) as GrepOptions, stop));
    this.hostFunction("base64_encode", (L) => [Buffer.from(bytes(L, 1)).toString("base64")]);
    this.hostFunction("base64_decode", (L) => [Buffer.from(str(L, 1), "base64")]);
    this.hostFunction("getenv", (L) => [this.init.env[str(L, 1)] ?? null]);
    this.hostFunction("set_extension", (L) => {
      this.extension = str(L, 1);
      return [];
    });
    this.hostFunction("log", (L) => {
      this.host.post({ type: "log", extension: this.extension, stream: str(L, 1), text: str(L, 2) });
      return [];
    });
    this.hostFunction("progress", (L) => {
      const update = this.progressUpdate(str(L, 1), L);
      if (update && this.callId) this.host.post({ type: "progress", id: this.callId, update });
      return [];
    });
    this.hostFunction("exit", (L) => {
      this.exitCode = num(L, 1);
      this.stopSoon(L, ABORT_EXIT);
      return [];
    });
    this.hostFunction("exec", (L) => this.exec(str(L, 1), c.view(L, 2)));
    this.hostFunction("spawn", (L) => this.spawn(str(L, 1)));
    this.hostFunction("proc_read", (L) => {
      const reply = this.host.request({ op: "read", handle: num(L, 1) });
      const chunks = reply.chunks.map((chunk) => ({ stream: chunk.stream, data: chunk.data }));
      const end = reply.end;
      return end ? [chunks, true, end.code, end.how, end.detail ?? null] : [chunks, false];
    });
    this.hostFunction("proc_kill", (L) => [this.host.request({ op: "kill", handle: num(L, 1) }).killed]);
    this.hostFunction("proc_pid", (L) => [this.host.request({ op: "pid", handle: num(L, 1) }).pid]);
    this.hostFunction("http_request", (L) => this.http(str(L, 1), c.view(L, 2)));
    this.hostFunction("web_search", (L) => {
      const reply = this.host.request({ op: "search", callId: this.callId, query: str(L, 1), count: num(L, 2) });
      if (!reply.ok) return [null, reply.message];
      return [reply.results.map((r) => ({ ...r })), reply.backend];
    });
    this.hostFunction("web_pdf_text", (L) => {
      // A copy: a view would post the whole Lua heap it lies in.
      const reply = this.host.request({ op: "pdf_text", data: bytes(L, 1).slice() });
      return reply.ok ? [reply.pages] : [null, reply.message];
    });
    this.hostFunction("web_markdown", (L) => {
      const page = pageMarkdown(str(L, 1), str(L, 2));
      return [page.title, page.markdown, page.article];
    });
  }

  /** `awl.http.request`, performed by the main thread (extensions/lua/http-calls.ts): the reply as Lua values. */
  private http(specJson: string, body: Uint8Array | null): HostValue[] {
    const spec = JSON.parse(specJson) as { method: string; url: string; headers: Record<string, string>; timeout_ms: number; max_bytes: number; redirect: RedirectMode; spill: boolean; cache: boolean };
    const spillPath = spec.spill ? join(this.spillDir || tmpdir(), `http-${process.pid}-${this.callId}-${this.nextSpill++}.body`) : undefined;
    const reply = this.host.request({
      op: "http",
      callId: this.callId,
      spec: {
        method: spec.method,
        url: spec.url,
        headers: spec.headers,
        ...(body && { body: body.slice() }), // slice: never clone all of wasm memory
        timeoutMs: spec.timeout_ms,
        maxBytes: spec.max_bytes,
        redirect: spec.redirect,
        ...(spillPath && { spillPath }),
        ...(spec.cache && { cache: true }),
      },
    });
    if (!reply.ok) return [null, reply.message, reply.kind];
    const { ok: _ok, ...response } = reply;
    return [response as unknown as HostRecord];
  }

  private progressUpdate(kind: string, L: number): ToolProgress | null {
    const c = this.c;
    if (kind === "progress") {
      const detail = c.string(L, 3);
      return { kind: "progress", fraction: c.number(L, 2) ?? 0, ...(detail !== null ? { detail } : {}) };
    }
    if (kind === "show") return { kind: "show", state: JSON.parse(c.string(L, 2) ?? "null") };
    if (kind === "title") return { kind: "title", text: c.string(L, 2) ?? "" };
    return null;
  }

  private exec(specJson: string, stdin: Uint8Array | null): HostValue[] {
    const spec = JSON.parse(specJson) as {
      argv?: string[];
      shell?: string;
      cwd?: string;
      env?: Record<string, unknown>;
      timeout_ms?: number;
      stdout: "capture" | "log";
      stderr: "capture" | "log";
    };
    const env = spec.env ? { ...this.init.env, ...stringValues(spec.env) } : undefined;
    const reply = this.host.request({
      op: "exec",
      callId: this.callId,
      extension: this.extension,
      ...(spec.argv ? { argv: spec.argv } : {}),
      ...(spec.shell !== undefined ? { shell: spec.shell } : {}),
      cwd: spec.cwd ? this.files.path(spec.cwd) : this.files.cwd,
      ...(env ? { env } : {}),
      ...(stdin ? { stdin: stdin.slice() } : {}), // slice: never clone all of wasm memory
      ...(spec.timeout_ms ? { timeoutMs: spec.timeout_ms } : {}),
      stdout: spec.stdout,
      stderr: spec.stderr,
    });
    return [reply.code, reply.stdout, reply.stderr, reply.how, reply.detail ?? null];
  }

  /** Starts a program without waiting for the main thread: its handle now; a failure to start is its end. */
  private spawn(specJson: string): HostValue[] {
    const spec = JSON.parse(specJson) as { argv: string[]; cwd?: string; env?: Record<string, unknown>; timeout_ms?: number };
    const handle = this.nextHandle++;
    this.host.notify({
      op: "spawn",
      handle,
      callId: this.callId,
      argv: spec.argv,
      cwd: spec.cwd ? this.files.path(spec.cwd) : this.files.cwd,
      ...(spec.env ? { env: { ...this.init.env, ...stringValues(spec.env) } } : {}),
      ...(spec.timeout_ms ? { timeoutMs: spec.timeout_ms } : {}),
    });
    return [handle];
  }

  /** Every allocation from now on is counted against the limit, starting from what the state holds now. */
  private capMemory(): void {
    if (this.capped) return;
    const { L, m, c } = this;
    if (c.load(L, "return collectgarbage('count')", "=awl") !== null || this.protectedCall(0, 1) !== 0) {
      throw new Error(`cannot measure the Lua state's memory: ${c.string(L, -1)}`);
    }
    this.memoryUsed = Math.round((c.number(L, -1) ?? 0) * 1024);
    m._lua_settop(L, 0);
    m._lua_setallocf(L, this.cappedAlloc, 0);
    this.capped = true;
  }

  /** awl's own code runs next (a bundled extension's top level): on Lua's allocator, as the runtime's boot. */
  private uncapMemory(): void {
    if (!this.capped) return;
    this.m._lua_setallocf(this.L, this.luaAlloc, 0);
    this.capped = false;
  }

  /** Keys to scrub from spill files besides the environment's (the config file's, one the user gave). */
  knowSecrets(secrets: readonly string[]): void {
    this.secrets = secrets;
  }

  /** Loads every extension in order, under the limits given; one failing never stops the others. */
  loadExtensions(settings: LoadSettings): LoadedPart {
    return this.loadSome(settings, settings.extensions.map((_, index) => index));
  }

  /**
   * Loads the extensions at `indexes` of `settings.extensions` (a load's part: see LoadSettings.first), under the
   * limits given; one failing never stops the others. Nothing when the main thread gave the start up (awl exiting,
   * see WorkerSlot.abandon).
   */
  loadSome(settings: LoadSettings, indexes: readonly number[]): LoadedPart {
    this.limits = { memoryLimitBytes: settings.memoryLimitBytes, loadTimeoutMs: settings.loadTimeoutMs };
    const tools: LuaToolRegistration[] = [];
    const errors: ExtensionLoadError[] = [];
    if (Atomics.load(this.host.control, CONTROL_OWED) === OWED_ABANDONED) return { tools, errors };
    for (const index of indexes) {
      const ext = settings.extensions[index]!;
      Atomics.store(this.host.control, CONTROL_LOADING, index + 1);
      // The bundled extensions' top levels are awl's code, known not to hoard memory: their thousands of
      // allocations need no call into JavaScript. Their handlers, like every extension's, run under the limit.
      if (this.isOwn(ext.file)) this.uncapMemory();
      else this.capMemory();
      const loaded = this.loadOne(ext, false);
      if ("error" in loaded) errors.push(loaded.error);
      else {
        tools.push(...loaded.tools);
        this.serving.push(ext.name);
      }
    }
    // In the load's order, whatever the order of its parts (their on_unload hooks run in it).
    const order = new Map(settings.extensions.map((e, index) => [e.name, index]));
    this.serving.sort((a, b) => (order.get(a) ?? Infinity) - (order.get(b) ?? Infinity));
    this.capMemory();
    return { tools, errors };
  }

  /**
   * A reload: each extension of `load` is loaded beside the version serving; when it loads, the old version's
   * on_unload hooks run (within `unloadTimeoutMs`) and the new one takes its place; when it fails, the old one
   * stays. The extensions of `remove` have their hooks run and are dropped.
   */
  reload(request: ReloadRequest): ReloadResult[] {
    const results: ReloadResult[] = [];
    for (const ext of request.load) {
      const loaded = this.loadOne(ext, true);
      if ("error" in loaded) {
        results.push({ extension: ext.name, error: loaded.error });
        continue;
      }
      this.retire(ext.name, request.unloadTimeoutMs);
      if (!this.serving.includes(ext.name)) this.serving.push(ext.name);
      results.push({ extension: ext.name, tools: loaded.tools });
    }
    for (const name of request.remove) {
      this.retire(name, request.unloadTimeoutMs);
      this.serving = this.serving.filter((n) => n !== name);
    }
    return results;
  }

  /** Runs the hooks of the version of `name` serving, then swaps in the staged one (or drops it: none staged). */
  private retire(name: string, unloadTimeoutMs: number): void {
    this.runEntry("unload_extension", name, unloadTimeoutMs);
    this.runEntry("commit_extension", name, this.limits.loadTimeoutMs);
  }

  /**
   * Runs every extension's on_unload hooks (awl exits), each extension's within `timeoutMs`: one that hangs is
   * stopped and the others still run theirs.
   */
  unload(timeoutMs: number): void {
    for (const name of this.serving) this.runEntry("unload_extension", name, timeoutMs);
  }

  private runEntry(entry: "unload_extension" | "commit_extension", name: string, timeoutMs: number): void {
    this.begin(0, this.init.cwd, timeoutMs);
    this.m._lua_rawgeti(this.L, LUA_REGISTRYINDEX, BigInt(this.entry[entry]));
    this.c.pushString(this.L, name);
    this.protectedCall(1, 0);
    this.reportStoppedHooks(name, timeoutMs);
    this.end();
  }

  /** Hooks stopped at their deadline cannot say so themselves (every instruction raises from then on). */
  private reportStoppedHooks(extension: string, timeoutMs: number): void {
    if (this.abort !== ABORT_TIMEOUT) return;
    const text = `on_unload failed: the hooks did not finish within ${timeoutMs / 1000} s and were stopped\n`;
    this.host.post({ type: "log", extension, stream: "warn", text });
  }

  /** Loads one extension (`replace`: staged beside the version serving, see awl.lua). */
  private loadOne(ext: ExtensionEntry, replace: boolean): { tools: LuaToolRegistration[] } | { error: ExtensionLoadError } {
    const { L, m, c } = this;
    this.begin(0, this.init.cwd, this.limits.loadTimeoutMs);
    m._lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(this.entry.load_extension));
    c.pushString(L, ext.name);
    c.pushString(L, ext.file);
    c.pushString(L, ext.root);
    if (ext.source) c.pushBytes(L, ext.source);
    else m._lua_pushnil(L);
    m._lua_pushboolean(L, replace ? 1 : 0);
    const status = this.protectedCall(5, 3);
    const fail = (message: string, traceback?: string) => {
      const line = lineIn(message, ext.file);
      return {
        error: {
          extension: ext.name,
          file: ext.file,
          ...(line !== undefined ? { line } : {}),
          message,
          ...(traceback ? { traceback } : {}),
        },
      };
    };
    let result: { tools: LuaToolRegistration[] } | { error: ExtensionLoadError };
    if (this.abort !== ABORT_NONE) {
      result = fail(
        this.abort === ABORT_EXIT
          ? `${ext.file}: called os.exit(${this.exitCode}) while loading`
          : `${ext.file}: did not finish loading within ${this.limits.loadTimeoutMs / 1000} s`,
      );
    } else if (status !== 0) {
      result = fail(`${ext.file}: ${c.string(L, -1) ?? "error while loading"}`);
    } else if (c.string(L, 1) === "ok") {
      result = { tools: JSON.parse(c.string(L, 2) ?? "[]") as LuaToolRegistration[] };
    } else {
      result = fail(c.string(L, 2) ?? "error while loading", c.string(L, 3) ?? undefined);
    }
    this.end();
    return result;
  }

  private begin(callId: number, cwd: string, timeoutMs: number): void {
    this.callId = callId;
    this.files.cwd = cwd;
    this.abort = ABORT_NONE;
    this.exitCode = 0;
    this.memoryRefused = false;
    this.memoryRefusedAt = "";
    this.deadline = performance.now() + timeoutMs;
    this.m._lua_settop(this.L, 0);
    this.m._lua_sethook(this.L, this.hookPtr, LUA_MASKCOUNT, HOOK_COUNT);
  }

  private end(): void {
    this.files.closeSpills();
    this.m._lua_settop(this.L, 0);
    this.m._lua_sethook(this.L, this.hookPtr, LUA_MASKCOUNT, HOOK_COUNT);
    this.abort = ABORT_NONE;
    this.deadline = Infinity;
    this.callId = 0;
  }

  /** Runs one handler (or a tool's available/render function) to its end, or until stopped. */
  call(req: CallRequest): WorkerOutcome {
    const { L, m, c } = this;
    this.begin(req.id, req.cwd, req.timeoutMs);
    this.spillDir = (JSON.parse(req.ctx) as { spill_dir?: string }).spill_dir ?? "";
    m._lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(this.entry[req.entry]));
    c.pushString(L, req.extension);
    c.pushString(L, req.tool);
    c.pushString(L, req.input);
    c.pushString(L, req.ctx);
    const status = this.protectedCall(4, 3);
    let outcome: WorkerOutcome;
    if (this.abort !== ABORT_NONE) {
      const reason = this.abort === ABORT_TIMEOUT ? "timeout" : this.abort === ABORT_CANCEL ? "cancel" : "exit";
      outcome = { status: "aborted", reason, exitCode: this.exitCode };
    } else if (status !== 0) {
      const message = c.string(L, -1) ?? "error in awl's dispatcher";
      outcome = { status: "crash", message, traceback: this.memoryRefusedAt, outOfMemory: this.memoryRefused };
    } else {
      const kind = c.string(L, 1);
      if (kind === "crash") {
        outcome = {
          status: "crash",
          message: c.string(L, 2) ?? "",
          traceback: c.string(L, 3) || this.memoryRefusedAt,
          outOfMemory: this.memoryRefused,
        };
      } else {
        const { text, invalid } = decodeContent(c.view(L, 2));
        const extra = c.string(L, 3);
        outcome = {
          status: kind === "ok" ? "ok" : "error",
          content: text,
          invalidUtf8: invalid,
          ...(extra !== null ? { extra } : {}),
        };
      }
    }
    this.end();
    return outcome;
  }

  private isOwn(file: string): boolean {
    return this.ownDirs.some((dir) => file.startsWith(dir + sep));
  }
}

function decodeContent(bytes: Uint8Array | null): { text: string; invalid: boolean } {
  if (!bytes) return { text: "", invalid: false };
  try {
    return { text: strictUtf8.decode(bytes), invalid: false };
  } catch {
    return { text: lenientUtf8.decode(bytes), invalid: true };
  }
}

/** The line of `file` an error message points at ("/x/y.lua:12: ..."), if any. */
function lineIn(message: string, file: string): number | undefined {
  const at = message.indexOf(`${file}:`);
  if (at < 0) return undefined;
  const match = /^(\d+):/.exec(message.slice(at + file.length + 1));
  return match ? Number(match[1]) : undefined;
}

/** Not for secrets: it only keeps the slots' math.random sequences apart (node:crypto costs ~10 ms to load). */
function randomSeed(): number {
  return Math.floor(Math.random() * 2 ** 47);
}

function stringValues(env: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (typeof v === "string" || typeof v === "number") out[k] = String(v);
  return out;
}
