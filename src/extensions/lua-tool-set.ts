/**
 * The ToolSet the agent uses (src/tools/types.ts), backed by Lua extensions: discovery finds them, the LuaPool
 * loads and runs them in worker threads, the registry holds their tools, and results are shaped to the
 * result limit (spilled to a file when longer).
 *
 * Start-up: when the registration cache matches every extension, the tools are known before any Lua runs, and
 * the pool (its module included) starts only when needed: at the first call, or earlier through `prewarm()`. The
 * agent calls it when the model starts streaming a tool call, or when a model call offering tools is still
 * unanswered after PREWARM_AFTER_MS (src/agent/agent.ts); not beside every first request: measured, that delays
 * the request itself and the exit by ~30–80 ms on two cores, for replies that need no tool at all.
 * Without a matching cache the first request waits for the load, so nothing else comes before the worker's
 * start on that path: the schema checks that follow it are loaded meanwhile.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compareCodeUnits, ToolRegistry, type RegisteredTool, type RegistryProblem } from "../tools/registry.js";
import { DEFAULT_RESULT_LIMIT, limitResult } from "../tools/spill.js";
import type { ToolCall, ToolOutcome, ToolProgress, ToolRenderView, ToolSet } from "../tools/types.js";
import { preloadSchemaChecker, schemaProblem } from "../tools/validate-input.js";
import { knownSecrets, SecretScrubber } from "../util/secrets.js";
import { defaultExtensionRoots, discoverExtensions, type DiscoveredExtension, type DiscoveryResult, type ExtensionSource } from "./discover.js";
import type { LuaPool, LuaPoolOptions } from "./lua/pool.js";
import type { ExtensionLoadError, LuaToolRegistration, ToolContextData } from "./lua/types.js";
import { awlDataDir, userConfigDir } from "../config/paths.js";
import { defaultToolCachePath, extensionKeys, readToolCache, writeToolCache, type LoadSnapshot } from "./tool-cache.js";

/** The package's `extensions/` folder: awl's bundled `std.*` extensions. */
export const BUNDLED_EXTENSIONS_DIR = fileURLToPath(new URL("../../extensions/", import.meta.url));

/** Handler timeout for tools that declare none (`--tool-timeout`). */
export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;

/** An `available(ctx)` check is a quick probe: it never gets longer than this. */
const AVAILABLE_TIMEOUT_MS = 10_000;

/** A `render(state, view)` runs for at most this long once it has a worker... */
export const RENDER_TIMEOUT_MS = 1_000;
/** ...and waits at most this long in all (the renders' worker may be starting, or busy with other renders): the block falls back. */
const RENDER_WAIT_MS = 3_000;

export interface LuaToolSetOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** `--extensions-dir` folders, highest precedence first. */
  extensionDirs?: readonly string[];
  /**
   * Bundled `std.*` extensions (the core tools); default: the package's `extensions/` folder. `false` offers
   * none of them (an embedder with tools of its own, a test about something else).
   */
  bundledDir?: string | false;
  /** For tools that declare no timeout. Default {@link DEFAULT_TOOL_TIMEOUT_MS}. */
  defaultTimeoutMs?: number;
  /** `ctx.result_limit`, and the cut-off for results. Default {@link DEFAULT_RESULT_LIMIT}. */
  resultLimit?: number;
  /** `ctx.spill_dir`; default a fresh folder under `<data>/spill/`, created on the first call. */
  spillDir?: string;
  /**
   * Keys replaced by `[REDACTED]` in spill files, besides those of `env` (its `*_API_KEY` variables and awl's
   * own, found by `knownSecrets`), which are always scrubbed.
   */
  secrets?: readonly (string | undefined)[];
  maxSlots?: number;
  memoryLimitBytes?: number;
  /** What extensions print; `callId`: printed by the handler of that tool call (`ToolCall.id`) while it ran. */
  onLog?: (extension: string, text: string, callId?: string) => void;
  /** The registration cache file; `false` turns it off. Default `$XDG_CACHE_HOME/awl/extension-tools.json`. */
  cachePath?: string | false;
  /** Wait for every extension to load even when the cache could answer (listing commands want the real state). */
  waitForLoad?: boolean;
}

export type ExtensionState = "loaded" | "failed" | "shadowed";

/** One extension as `awl extensions` shows it. */
export interface ExtensionReport {
  name: string;
  file: string;
  source: ExtensionSource;
  state: ExtensionState;
  /** For a shadowed extension: the entry point that hides it. */
  shadowed_by?: string;
  tools: RegisteredTool[];
  /** Load errors and refused registrations, each naming file and line. */
  errors: string[];
}

/** A load in progress: `begun` once the pool exists and its first worker is starting, `done` when it ends. */
interface Loading {
  begun: Promise<void>;
  done: Promise<void>;
}

export class LuaToolSet implements ToolSet {
  /** The load, once started; every call waits for it. */
  private loading: Loading | undefined;
  /** Creates the pool and starts its load, resolving with the rest of it (nothing to load without extensions). */
  private beginLoad: () => Promise<{ rest: Promise<void> }> = async () => ({ rest: Promise.resolve() });
  /** Settles once the tools are known: at once from the cache, else at the end of the load. */
  private known: Promise<void> = Promise.resolve();
  private loadErrors: ExtensionLoadError[] = [];
  /** Tools whose `available(ctx)` said no (`extension/tool` → why), and the offered list it leaves. */
  private unavailable: Record<string, string> = {};
  private offered: { from: readonly RegisteredTool[]; tools: readonly RegisteredTool[] } | undefined;
  private spillReady: Promise<unknown> | undefined;
  /** The pool, once its load has started (its module is imported only then); `poolReady` settles when it exists. */
  private pool: LuaPool | undefined;
  private poolReady: Promise<LuaPool> | undefined;
  /** Settles once wasmoon's module is compiled (or failed to: the pool reports it). */
  private wasmCompiled: Promise<void> | undefined;
  private closing = false;
  /** Where what a tool call printed goes (`LuaToolSetOptions.onLog`). */
  private callLog: LuaToolSetOptions["onLog"];

  private constructor(
    readonly discovery: DiscoveryResult,
    private readonly registry: ToolRegistry,
    private readonly context: ToolContextData,
    private readonly defaultTimeoutMs: number,
    private readonly scrub: SecretScrubber,
  ) {}

  /** Discovers the extensions and loads them (or takes their tools from the cache and loads them later). */
  static async open(options: LuaToolSetOptions): Promise<LuaToolSet> {
    const toolSet = await LuaToolSet.start(options);
    await toolSet.ready();
    return toolSet;
  }

  /**
   * {@link open}, without waiting for a load the cache cannot spare: resolves once the first Lua worker is
   * starting, so the caller can do other work meanwhile; `ready()` says when the tools are known.
   */
  static async start(options: LuaToolSetOptions): Promise<LuaToolSet> {
    const defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    const roots = defaultExtensionRoots({
      cwd: options.cwd,
      env: options.env,
      extraDirs: options.extensionDirs ?? [],
      ...(options.bundledDir !== false && { bundledDir: options.bundledDir ?? BUNDLED_EXTENSIONS_DIR }),
    });
    const discovery = discoverExtensions(roots);
    const home = awlDataDir(options.env);
    const context: ToolContextData = {
      cwd: options.cwd,
      workspace: options.cwd,
      home,
      spill_dir: options.spillDir ?? join(home, "spill", `${new Date().toISOString().replace(/[:.]/g, "-")}-${process.pid}`),
      result_limit: options.resultLimit ?? DEFAULT_RESULT_LIMIT,
    };
    const registry = new ToolRegistry({ defaultTimeoutMs });
    const scrub = new SecretScrubber([...knownSecrets(options.env), ...(options.secrets ?? [])]);
    const toolSet = new LuaToolSet(discovery, registry, context, defaultTimeoutMs, scrub);
    toolSet.callLog = options.onLog;
    if (discovery.extensions.length === 0) return toolSet;

    const cachePath = options.cachePath ?? defaultToolCachePath(options.env);
    const keys = cachePath === false ? undefined : extensionKeys(discovery.extensions);
    const cached = cachePath !== false && keys ? readToolCache(cachePath, keys) : undefined;
    const poolOptions: LuaPoolOptions = {
      // The bundled extensions load last: the user's own come first (SPEC §4).
      extensions: [...discovery.extensions.filter((e) => e.source !== "bundled"), ...discovery.extensions.filter((e) => e.source === "bundled")].map(toEntry),
      defaultTimeoutMs,
      luaPath: [join(userConfigDir(options.env), "lua")],
      env: options.env,
      ...(options.maxSlots !== undefined && { maxSlots: options.maxSlots }),
      ...(options.memoryLimitBytes !== undefined && { memoryLimitBytes: options.memoryLimitBytes }),
      ...(options.onLog && { onLog: options.onLog }),
    };
    toolSet.beginLoad = async () => {
      let pool: LuaPool;
      try {
        pool = await toolSet.createPool(poolOptions);
      } catch (error) {
        toolSet.apply(failedLoad(discovery.extensions, error));
        return { rest: Promise.resolve() };
      }
      const loading = pool.load();
      preloadSchemaChecker(); // after the worker's start was asked for: it is needed only once the load ends
      // The starting worker gets wasmoon's module before whoever waits for this start holds the thread (ajv...).
      await toolSet.wasmCompiled;
      const rest = loading.then(
        async (loaded) => {
          const [tools, unavailable] = await Promise.all([withSchemaChecks(loaded.tools), toolSet.checkAvailability(loaded.tools)]);
          const snapshot = { ...loaded, tools, unavailable };
          toolSet.apply(snapshot);
          if (cachePath !== false && keys && !sameSnapshot(snapshot, cached)) writeToolCache(cachePath, keys, snapshot);
        },
        (error: unknown) => toolSet.apply(failedLoad(discovery.extensions, error)),
      );
      return { rest };
    };
    if (cached && !options.waitForLoad) {
      toolSet.apply(cached);
    } else {
      const loading = toolSet.startLoading();
      toolSet.known = loading.done;
      await loading.begun;
    }
    return toolSet;
  }

  /** Resolves once the tools are known (from the cache, or loaded): `definitions()` is complete from then on. */
  ready(): Promise<void> {
    return this.known;
  }

  /** The tools offered to the model: every registered tool except those whose `available(ctx)` said no. */
  definitions(): readonly RegisteredTool[] {
    const all = this.registry.definitions();
    if (this.offered?.from !== all) this.offered = { from: all, tools: all.filter((t) => this.unavailableReason(t) === undefined) };
    return this.offered.tools;
  }

  /** A registered tool by name, offered or not. */
  tool(name: string): RegisteredTool | undefined {
    return this.registry.get(name);
  }

  /** Why a registered tool is not offered (its `available(ctx)` said no, or failed), or undefined. */
  unavailableReason(tool: Pick<RegisteredTool, "extension" | "name">): string | undefined {
    return this.unavailable[`${tool.extension}/${tool.name}`];
  }

  /**
   * Resolves once every extension has really loaded. After a cache head start the pool has not started yet:
   * this starts it.
   */
  loaded(): Promise<void> {
    return this.startLoading().done;
  }

  private startLoading(): Loading {
    if (!this.loading) {
      const begun = this.beginLoad();
      this.loading = { begun: begun.then(() => undefined), done: begun.then((load) => load.rest) };
    }
    return this.loading;
  }

  /**
   * Starts the Lua workers now (e.g. when the model starts streaming a tool call), so the call does not pay their
   * start-up; resolves once the first worker is starting, not when it is ready. Calls start them anyway.
   */
  prewarm(): Promise<void> {
    return this.startLoading().begun;
  }

  /** Runs one call in the pool and shapes its result. Never throws. */
  execute(call: ToolCall, signal: AbortSignal, onProgress?: (update: ToolProgress) => void): Promise<ToolOutcome> {
    return this.run(call, { signal, ...(onProgress && { onProgress }) });
  }

  /** {@link execute}, with a timeout that overrides the tool's own (`awl tool call --timeout`). Never throws. */
  async run(call: ToolCall, options: { signal: AbortSignal; timeoutMs?: number; onProgress?: (update: ToolProgress) => void }): Promise<ToolOutcome> {
    const { signal, onProgress } = options;
    try {
      await this.loaded();
      const tool = this.registry.get(call.name);
      if (!tool || !this.pool) {
        return { status: "result", content: `unknown tool "${call.name}": no loaded extension registers it`, is_error: true };
      }
      const unavailable = this.unavailableReason(tool);
      if (unavailable !== undefined) {
        return { status: "result", content: `the tool "${call.name}" is not available here: ${unavailable}`, is_error: true };
      }
      this.spillReady ??= mkdir(this.context.spill_dir, { recursive: true }).catch(() => undefined);
      await this.spillReady;
      const outcome = await this.pool.call(tool.extension, tool.name, call.input, this.context, {
        signal,
        timeoutMs: options.timeoutMs ?? tool.timeout_ms,
        ...(onProgress && { onProgress }),
        ...(this.callLog && { onLog: (_stream: string, text: string) => this.callLog!(tool.extension, text, call.id) }),
      });
      if (outcome.status === "crash") return { ...outcome, traceback: tracebackOnly(outcome.traceback, outcome.message) };
      if (outcome.status !== "result") return outcome;
      const limited = await limitResult(outcome.content, call.name, call.id, {
        limit: this.context.result_limit,
        spillDir: this.context.spill_dir,
        scrub: this.scrub,
      });
      return { ...outcome, content: limited.content };
    } catch (error) {
      return { status: "result", content: `awl could not run tool "${call.name}": ${(error as Error).message ?? String(error)}`, is_error: true };
    }
  }

  /**
   * The tool's `render(state, view)` in a worker: never its `run`, limited to {@link RENDER_TIMEOUT_MS}.
   * Undefined when the tool is unknown or has no render; rejects with what went wrong when the render failed.
   */
  async render(toolName: string, state: unknown, view: ToolRenderView): Promise<string | undefined> {
    await this.loaded();
    const tool = this.registry.get(toolName);
    if (!tool?.has_render || !this.pool) return undefined;
    const outcome = await this.pool.render(tool.extension, tool.name, state, view, this.context, {
      signal: AbortSignal.timeout(RENDER_WAIT_MS),
      timeoutMs: RENDER_TIMEOUT_MS,
    });
    switch (outcome.status) {
      case "result":
        if (!outcome.is_error) return outcome.content;
        throw new Error(outcome.content);
      case "crash":
        throw new Error(outcome.message);
      case "timeout":
        throw new Error(`render(state, view) ran past ${outcome.timeout_ms} ms`);
      case "cancelled":
        return undefined; // every worker stayed busy: the fallback text, without a note
    }
  }

  /** Every extension found, loaded, failed or shadowed, sorted by name. */
  extensions(): ExtensionReport[] {
    const reports: ExtensionReport[] = this.discovery.extensions.map((extension) => {
      const loadErrors = this.loadErrors.filter((e) => e.extension === extension.name).map((e) => e.message);
      const refused = this.registry.problemsOf(extension.name).map((p: RegistryProblem) => p.message);
      return {
        name: extension.name,
        file: extension.file,
        source: extension.source,
        state: loadErrors.length > 0 ? "failed" : "loaded",
        tools: this.registry.toolsOf(extension.name),
        errors: [...loadErrors, ...refused],
      };
    });
    for (const hidden of this.discovery.shadowed) {
      reports.push({
        name: hidden.name,
        file: hidden.file,
        source: hidden.source,
        state: "shadowed",
        shadowed_by: hidden.shadowed_by,
        tools: [],
        errors: [],
      });
    }
    return reports.sort((a, b) => compareCodeUnits(a.name, b.name) || SOURCES.indexOf(a.source) - SOURCES.indexOf(b.source));
  }

  /**
   * Everything worth telling the user at start-up, one message each: folders or files discovery skipped,
   * bundled extensions replaced by others (never silently, SPEC §4), extensions that failed to load,
   * registrations the registry refused. A project extension hiding a user one is normal and not listed here;
   * `awl extensions` shows it.
   */
  problems(): string[] {
    return [
      ...this.discovery.problems.map((p) => p.message),
      ...this.discovery.shadowed
        .filter((s) => s.source === "bundled")
        .map((s) => `the bundled extension "${s.name}" is replaced by ${s.shadowed_by}`),
      ...this.loadErrors.map((e) => `extension "${e.extension}" failed to load: ${e.message}`),
      ...this.registry.problems().map((p) => p.message),
    ];
  }

  /** Stops every worker (a pool still being created is closed as soon as it exists; none is created after). */
  async close(): Promise<void> {
    this.closing = true;
    const pool = await this.poolReady?.catch(() => undefined);
    await pool?.close();
  }

  /**
   * Resolves once no Lua worker is starting or stopping, without stopping any: what awl waits for before it
   * exits (a process that exits while a worker starts can abort inside Node), e.g. after a prewarm.
   */
  async quiesce(): Promise<void> {
    const pool = await this.poolReady?.catch(() => undefined);
    await pool?.quiesce();
  }

  /** Kills, synchronously, the programs running handlers started (awl is being stopped by a signal). */
  killProcesses(): void {
    this.pool?.killProcesses();
  }

  private createPool(options: LuaPoolOptions): Promise<LuaPool> {
    if (!this.poolReady && !this.closing) {
      // wasmoon's module compiles (in V8's background threads) while the pool's own modules load; the pool
      // reports a failure.
      this.wasmCompiled = import("./lua/assets.js").then((assets) => assets.luaWasmModule()).then(
        () => undefined,
        () => undefined,
      );
    }
    this.poolReady ??= this.closing
      ? Promise.reject(new Error("awl is stopping"))
      : import("./lua/pool.js").then(({ LuaPool }) => (this.pool = new LuaPool(options)));
    return this.poolReady;
  }

  /** Asks every tool that has an `available(ctx)` whether to offer it, all at once. */
  private async checkAvailability(tools: readonly LuaToolRegistration[]): Promise<Record<string, string>> {
    const unavailable: Record<string, string> = {};
    const pool = this.pool;
    if (!pool) return unavailable;
    const signal = new AbortController().signal;
    await Promise.all(
      tools
        .filter((t) => t.has_available)
        .map(async (t) => {
          const timeoutMs = Math.min(t.timeout_ms ?? this.defaultTimeoutMs, AVAILABLE_TIMEOUT_MS);
          const answer = await pool.available(t.extension, t.name, this.context, { signal, timeoutMs });
          if (!answer.available) unavailable[`${t.extension}/${t.name}`] = answer.error ?? "its available() returned false";
        }),
    );
    return unavailable;
  }

  private apply(snapshot: LoadSnapshot): void {
    this.loadErrors = snapshot.errors;
    this.unavailable = snapshot.unavailable;
    this.offered = undefined;
    for (const extension of this.discovery.extensions) {
      this.registry.setExtension(
        extension.name,
        snapshot.tools.filter((t) => t.extension === extension.name),
        { fallback: extension.source === "bundled" },
      );
    }
  }
}

const SOURCES: readonly ExtensionSource[] = ["flag", "project", "user", "bundled"];

function toEntry(extension: DiscoveredExtension): { name: string; file: string; root: string } {
  return { name: extension.name, file: extension.file, root: join(extension.file, "..") };
}

/**
 * The registrations, each schema checked against JSON Schema's meta-schema: a schema that is not valid JSON Schema
 * would make the provider refuse every request, so the tool is refused instead (the registry reports it). Runs when
 * the real load completes, never on the cached start-up path; the cache keeps the verdict.
 */
async function withSchemaChecks(tools: readonly LuaToolRegistration[]): Promise<LuaToolRegistration[]> {
  if (tools.every((t) => t.schema_error !== undefined)) return [...tools];
  return Promise.all(
    tools.map(async (tool) => {
      if (tool.schema_error !== undefined) return tool;
      const problem = await schemaProblem(tool.schema);
      return problem === undefined ? tool : { ...tool, schema_error: `is not a valid JSON Schema (${problem}); fix it in the extension` };
    }),
  );
}

function failedLoad(extensions: readonly DiscoveredExtension[], error: unknown): LoadSnapshot {
  const message = `the Lua runtime failed to start: ${(error as Error).message ?? String(error)}`;
  return { tools: [], errors: extensions.map((e) => ({ extension: e.name, file: e.file, message })), unavailable: {} };
}

/** Lua's `debug.traceback(message)` repeats the message above the stack; the crash report already shows it. */
function tracebackOnly(traceback: string, message: string): string {
  return traceback.startsWith(message) ? traceback.slice(message.length).replace(/^\n/, "") : traceback;
}

function sameSnapshot(a: LoadSnapshot, b: LoadSnapshot | undefined): boolean {
  return b !== undefined && JSON.stringify(a) === JSON.stringify(b);
}
