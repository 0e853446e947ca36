/**
 * The ToolSet the agent uses (src/tools/types.ts), backed by Lua extensions: discovery finds them, the LuaPool
 * loads and runs them in worker threads, the registry holds their tools, and results are shaped to the
 * result limit (spilled to a file when longer).
 *
 * Start-up: when the registration cache matches every extension, the tools are known before any Lua runs, and
 * the pool (its module included) starts only when needed: at the first call, or earlier through `prewarm()`, which
 * headless awl calls as soon as the tools are open (src/runtime/chat-tools.ts) and the agent as soon as a request
 * offering tools is on its way (src/agent/agent.ts). A reply that needs no tool does not wait for that start at
 * exit: a start whose extensions are owed no on_unload hook is given up (`unload`), even while they load, its
 * worker stopped as soon as that is safe.
 * Without a matching cache the first request waits for the load, so nothing else comes before the worker's
 * start on that path: the schema checks that follow it are loaded meanwhile.
 */
import { pluginLuaDirs } from "../plugins/parts.js";
import { promises as fsp } from "node:fs"; // not node:fs/promises, which loads more than a reply needs (tools/spill.ts)
import { dirname, join } from "node:path";
import { compareCodeUnits, ToolRegistry, type RegisteredTool, type RegistryProblem } from "../tools/registry.js";
import { DEFAULT_RESULT_LIMIT, limitResult, pruneSpillDirs, runSpillDir } from "../tools/spill.js";
import type { PrewarmReason, ToolCall, ToolOutcome, ToolProgress, ToolRenderView, ToolSet } from "../tools/types.js";
import { preloadSchemaChecker } from "../tools/validate-input.js";
import { childEnv, KNOWN_KEY_VARIABLES, knownSecrets, SecretScrubber } from "../util/secrets.js";
import { defaultExtensionRoots } from "./default-roots.js";
import {
  type DiscoveredExtension,
  type DiscoveryResult,
  type ExtensionRoot,
  type ExtensionSource,
} from "./discover.js";
import type { LuaPool, LuaPoolOptions } from "./lua/pool.js";
import type { ExtensionEntry, ExtensionLoadError, LuaCommand, LuaToolRegistration, NetworkGate, ProcessSandbox, TextHost, ToolContextData } from "./lua/types.js";
import type { ReloadResult } from "./lua/protocol.js";
import { withEnvironmentKey, type SearchSettings } from "../web/search-settings.js";
import { toolChanges, type ExtensionReload, type ReloadReport } from "./reload-report.js";
import { readVersion, settledVersion, type ExtensionVersion } from "./versions.js";
import type { CapabilityMetadata } from "./metadata.js";
import { findEnabled, metadataOf } from "./enabled-extensions.js";
import { checkedSchemas, failedLoad, sameSnapshot, withSchemaChecks } from "./load-snapshot.js";
import type { FolderWatcher, WatchGroup } from "./watch.js";
import { awlDataDir } from "../config/paths.js";
import { packagePath } from "../util/package-path.js";
import { cachedSnapshot, defaultToolCachePath, extensionKeys, readToolCache, writeToolCache, type LoadSnapshot } from "./tool-cache.js";

/** The package's `extensions/` folder: awl's bundled `std.*` extensions. */
export const BUNDLED_EXTENSIONS_DIR = packagePath("extensions", "/");

/** Handler timeout for tools that declare none (`--tool-timeout`). */
export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;

/** An `available(ctx)` check is a quick probe: it never gets longer than this. */
const AVAILABLE_TIMEOUT_MS = 10_000;

/** A `render(state, view)` runs for at most this long once it has a worker... */
export const RENDER_TIMEOUT_MS = 1_000;
/** ...and waits at most this long behind other renders (its worker's start not counted): the block falls back. */
const RENDER_WAIT_MS = 3_000;
/** A call of a tool with a render that runs longer than this starts the renders' worker (LuaPool.prewarmRender). */
const RENDER_PREWARM_AFTER_MS = 50;

export interface LuaToolSetOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** `--extensions-dir` folders, highest precedence first. */
  extensionDirs?: readonly string[];
  /**
   * Load the folder's own `.awl/extensions/` (its code runs at load). Default false: a folder's code is input
   * until the user trusted it (docs/permissions.md, "Trust"); the CLI passes true for a trusted folder.
   */
  trustProject?: boolean;
  /** Project extensions changed since the folder was trusted (src/trust/pin.ts): not loaded, listed as disabled. */
  unpinnedExtensions?: ReadonlySet<string>;
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
  /**
   * Variables of `env` that extensions and the programs they start never see, besides every `*_API_KEY` and any
   * holding a known key (util/secrets.ts `childEnv`). Default {@link KNOWN_KEY_VARIABLES} (the CLI adds the
   * config's `api_key_env` names).
   */
  withheldEnv?: readonly string[];
  /** Credential variables they see all the same: the user's `permissions.pass_env`. */
  passEnv?: readonly string[];
  maxSlots?: number;
  memoryLimitBytes?: number;
  /** What extensions print; `callId`: printed by the handler of that tool call (`ToolCall.id`) while it ran. */
  onLog?: (extension: string, text: string, callId?: string) => void;
  /** Where `awl.fs.read_text` / `write_text` (the std file tools' text) go instead of the disk: e.g. an ACP client. */
  textHost?: TextHost;
  /**
   * Runs every program the extensions start inside this sandbox (`--sandbox`, docs/permissions.md), which decides
   * whether a program may reach the network (awl's: a `network` rule).
   */
  sandbox?: ProcessSandbox;
  /** Decides every host `awl.http` reaches (awl's: the permission engine's `network` rules); none: every request goes out. */
  network?: NetworkGate;
  /** The `search` config key: the backend `awl.web.search` (the `search` tool) asks. */
  search?: SearchSettings;
  /** The registration cache file; `false` turns it off. Default `$XDG_CACHE_HOME/awl/extension-tools.json`. */
  cachePath?: string | false;
  /** Wait for every extension to load even when the cache could answer (listing commands want the real state). */
  waitForLoad?: boolean;
}

export type ExtensionState = "loaded" | "failed" | "shadowed" | "disabled";

/** One extension as `awl extensions` shows it. */
export interface ExtensionReport {
  name: string;
  file: string;
  source: ExtensionSource;
  state: ExtensionState;
  /** For a shadowed extension: the entry point that hides it. */
  shadowed_by?: string;
  /** For a disabled extension: the config file that switches it off. */
  disabled_by?: string;
  /** Its `awl.capability { ... }` metadata, read without running it (metadata.ts). */
  metadata?: CapabilityMetadata;
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
  /** The workers were started by `prewarm()` alone: no call, render or listing has waited for them yet. */
  private speculative = false;
  private loading: Loading | undefined;
  /** Creates the pool and starts its load, resolving with the rest of it (nothing to load without extensions). */
  private beginLoad: () => Promise<{ rest: Promise<void> }> = async () => ({ rest: Promise.resolve() });
  /** The tools offered came from the registration cache (a failed start of the workers leaves them offered). */
  private offeredFromCache = false;
  /** Settles once the tools are known: at once from the cache, else at the end of the load. */
  private known: Promise<void> = Promise.resolve();
  private loadErrors: ExtensionLoadError[] = [];
  /** Tools whose `available(ctx)` said no (`extension/tool` → why), and the offered list it leaves. */
  private unavailable: Record<string, string> = {};
  private offered: { from: readonly RegisteredTool[]; tools: readonly RegisteredTool[] } | undefined;
  private spillReady: Promise<unknown> | undefined;
  /** `<data>/spill/` when the spill folder is awl's own (not one the library was given): old runs' are pruned. */
  private ownSpillRoot: string | undefined;
  /** The pool, once its load has started (its module is imported only then); `poolReady` settles when it exists. */
  private pool: LuaPool | undefined;
  private poolReady: Promise<LuaPool> | undefined;
  /** Settles once wasmoon's module is compiled (or failed to: the pool reports it). */
  private wasmCompiled: Promise<void> | undefined;
  private closing = false;
  /** What each extension registered, before the registry's checks (what the cache keeps). */
  private registrations = new Map<string, LuaToolRegistration[]>();
  /** Hot reload: the version of each extension serving (key of its Lua files' content, see versions.ts). */
  private readonly versions = new Map<string, string>();
  /** Versions tried and refused, so the same broken text is not tried again at every refresh. */
  private readonly attempted = new Map<string, string>();
  /** Extensions whose new version was refused while an older one keeps serving: why. */
  private readonly reloadErrors = new Map<string, string>();
  /** Work for the next refresh: files changed (a save the watcher saw), or everything (`reload()`). */
  private pending: "none" | "files" | "all" = "none";
  private applying: Promise<ReloadReport> | undefined;
  private readonly reloadListeners = new Set<(report: ReloadReport) => void>();
  private watching: Promise<void> | undefined;
  private watcher: FolderWatcher | undefined;
  /** Calls running now: a forced reload waits until none runs. */
  private running = 0;
  private idleWaiters: (() => void)[] = [];
  /** Extensions switched off in a config file (never run), each with that file; what was wrong with those files. */
  private disabled: (DiscoveredExtension & { disabled_by: string })[] = [];
  private unpinned: ReadonlySet<string> | undefined;
  private enablementProblems: string[] = [];
  private env: NodeJS.ProcessEnv = {};
  /** The registration cache (false: off) and the keys of the extensions as found. */
  private cachePath: string | false = false;
  private cacheKeys: ReturnType<typeof extensionKeys>;
  /** A prewarm started a Lua worker ahead of the pool (head-start.ts). */
  private startedAhead = false;
  /**
   * Whether this run has drawn a tool block yet (the interactive UI, ACP's replay): only then does a long call start
   * the renders' worker ahead. Print mode and stream-json never draw one, and a worker started for nothing stays.
   */
  private drawsBlocks = false;
  private readonly onClosed: (() => void)[] = [];
  /**
   * When a prewarm starts the workers (see prewarm): at the request (the interactive mode), once a call is likely
   * (headless: a request slow to answer, a call streaming), or only once a call streams (a run of one turn).
   */
  private workersStart: "request" | "likely" | "call" = "request";
  /** head-start.ts once imported: a call that comes sends that worker its load at once, not a microtask later. */
  private ahead: typeof import("./lua/head-start.js") | undefined;
  private importingAhead: Promise<typeof import("./lua/head-start.js") | undefined> | undefined;
  /** What the pool is created with (its extensions aside). */
  private poolOptions: Omit<LuaPoolOptions, "extensions"> = {};
  /** Where what a tool call printed goes (`LuaToolSetOptions.onLog`). */
  private callLog: LuaToolSetOptions["onLog"];
  /** The tool a call named before the load began (a call streaming, or the call itself). */
  private firstCall: string | undefined;
  /** The extension the first worker loads before the others (its tool's call runs as soon as it is loaded). */
  private firstExtension: string | undefined;

  private constructor(
    /** The extensions as last found (a reload finds them again). */
    public discovery: DiscoveryResult,
    private readonly roots: readonly ExtensionRoot[],
    private readonly registry: ToolRegistry,
    private readonly context: ToolContextData,
    /** A handler's deadline when its tool names none (also slash commands'). */
    readonly defaultTimeoutMs: number,
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
      project: options.trustProject === true,
      ...(options.bundledDir !== false && { bundledDir: options.bundledDir ?? BUNDLED_EXTENSIONS_DIR }),
    });
    const { discovery, disabled, problems } = findEnabled(roots, options.cwd, options.env, options.unpinnedExtensions);
    const home = awlDataDir(options.env);
    const context: ToolContextData = {
      cwd: options.cwd,
      workspace: options.cwd,
      home,
      spill_dir: options.spillDir ?? runSpillDir(home),
      result_limit: options.resultLimit ?? DEFAULT_RESULT_LIMIT,
    };
    const registry = new ToolRegistry({ defaultTimeoutMs });
    const scrub = new SecretScrubber([...knownSecrets(options.env), ...(options.secrets ?? [])]);
    const toolSet = new LuaToolSet(discovery, roots, registry, context, defaultTimeoutMs, scrub);
    toolSet.disabled = disabled;
    toolSet.unpinned = options.unpinnedExtensions;
    toolSet.enablementProblems = problems;
    toolSet.env = options.env;
    if (options.spillDir === undefined) toolSet.ownSpillRoot = dirname(context.spill_dir);
    toolSet.callLog = options.onLog;
    const cachePath = options.cachePath ?? defaultToolCachePath(options.env);
    toolSet.cachePath = cachePath;
    // Installed rocks' modules are required from awl's own Lua tree (docs/plugins.md); none: the default boot.
    const luaPath = pluginLuaDirs(options.env, options.cwd, options.trustProject === true);
    // The search key is read from awl's environment now: the one Lua gets has none.
    const search = withEnvironmentKey(options.search, options.env);
    const poolOptions: Omit<LuaPoolOptions, "extensions"> = (toolSet.poolOptions = {
      cwd: options.cwd,
      ...(luaPath.length > 0 && { luaPath }),
      defaultTimeoutMs,
      env: childEnv(options.env, { withheld: options.withheldEnv ?? KNOWN_KEY_VARIABLES, secrets: scrub.known, pass: options.passEnv ?? [] }),
      secrets: scrub.known,
      ...(options.maxSlots !== undefined && { maxSlots: options.maxSlots }),
      ...(options.memoryLimitBytes !== undefined && { memoryLimitBytes: options.memoryLimitBytes }),
      ...(options.onLog && { onLog: options.onLog }),
      ...(options.textHost && { textHost: options.textHost }),
      ...(options.sandbox && { sandbox: options.sandbox }),
      ...(options.network && { network: options.network }),
      ...(search && { search }),
    });
    let cached: LoadSnapshot | undefined;
    toolSet.beginLoad = async () => {
      // The extensions as found when the load begins (a change seen before that is part of it).
      const extensions = toolSet.discovery.extensions;
      if (extensions.length === 0) return { rest: Promise.resolve() };
      const versions = new Map<string, ExtensionVersion>();
      let pool: LuaPool;
      let keys: ReturnType<typeof extensionKeys>;
      try {
        // The bundled extensions load last: the user's own come first (SPEC §4).
        const order = [...extensions.filter((e) => e.source !== "bundled"), ...extensions.filter((e) => e.source === "bundled")];
        toolSet.firstExtension = toolSet.extensionToLoadFirst();
        const first = toolSet.firstExtension;
        const shared = new Map<string, string[]>();
        const options = { ...poolOptions, extensions: order.map((e) => toolSet.entryOf(e, versions, shared)), ...(first && { loadFirst: [first] }) };
        // A thread started ahead loads them while the pool's own modules load (its first worker takes it).
        toolSet.ahead?.loadLuaThreadAhead(options);
        // A start without a cache file to match keys them only now, while the worker starts (see start()).
        keys = toolSet.cacheKeys ??= cachePath === false ? undefined : extensionKeys(extensions);
        pool = await toolSet.createPool(options);
        // awl began to exit while the pool's module loaded, and only a prewarm wanted it: no worker starts.
        if (toolSet.closing) return { rest: Promise.resolve() };
      } catch (error) {
        toolSet.apply(failedLoad(extensions, error));
        return { rest: Promise.resolve() };
      }
      const loading = pool.load();
      // After the worker's start was asked for: it is needed only once the load ends. A start that only a prewarm
      // asked for (the cached tools are offered meanwhile) leaves it to then: a reply needing no tool never loads it.
      if (!toolSet.speculative) preloadSchemaChecker();
      // The starting worker gets wasmoon's module before whoever waits for this start holds the thread (ajv...).
      await toolSet.wasmCompiled;
      const rest = loading.then(
        async (loaded) => {
          // A start given up at exit (unload: only a prewarm asked for it) loads nothing: that is no registration
          // to apply, and above all none to cache (the next run would offer no tools).
          if (toolSet.closing) return;
          const [tools, unavailable] = await Promise.all([withSchemaChecks(loaded.tools, checkedSchemas(cached)), toolSet.checkAvailability(loaded.tools)]);
          const snapshot = { ...loaded, tools, unavailable };
          toolSet.apply(snapshot);
          toolSet.noteVersions(extensions, versions);
          if (cachePath !== false && keys && !sameSnapshot(snapshot, cached)) writeToolCache(cachePath, keys, snapshot);
        },
        (error: unknown) => {
          // The worker could not start (nothing loaded: nothing to cache). The next call starts one again; until
          // then the tools the cache offered stay offered, and the calls that waited for this start get why.
          if (toolSet.closing) return; // a start given up at exit (unload)
          toolSet.loading = undefined;
          const failed = failedLoad(extensions, error);
          if (toolSet.offeredFromCache) throw new Error(failed.errors[0]?.message ?? String(error));
          toolSet.apply(failed);
        },
      );
      return { rest };
    };
    if (discovery.extensions.length === 0) return toolSet;
    // The extensions are keyed (stat'ed, hashed where that says nothing) only for a cache file that can match them:
    // without one (removed, cut short, another version's) the worker starts first, and they are keyed while it does.
    const file = cachePath === false ? undefined : readToolCache(cachePath, discovery.extensions);
    if (cachePath !== false && file) ({ keys: toolSet.cacheKeys, cached } = cachedSnapshot(cachePath, file, discovery.extensions, discovery.stats));
    if (cached && !options.waitForLoad) {
      toolSet.apply(cached);
      toolSet.offeredFromCache = true;
    } else {
      // Its thread first: Node's start of it runs beside the pool's own modules and the extensions' keys.
      await toolSet.startAhead();
      const loading = toolSet.startLoading();
      toolSet.known = loading.done;
      await loading.begun;
    }
    return toolSet;
  }

  /** Resolves once the tools are known (from the cache, or loaded): `definitions()` is complete from then on. */
  /**
   * Scrubs these secrets too from now on (one that became known while awl runs, such as a sign-in's refreshed
   * token): from the results the model and the session get, and from the workers' spill files.
   */
  addSecrets(secrets: readonly string[]): void {
    this.scrub.add(secrets);
    this.pool?.knowSecrets(this.scrub.known);
  }

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
    this.speculative = false;
    return this.startLoading().done;
  }

  private startLoading(): Loading {
    if (!this.loading) {
      const begun = this.beginLoad();
      const done = begun.then((load) => load.rest);
      done.catch(() => undefined); // a start that failed is reported to the calls that wait for it (loaded())
      this.loading = { begun: begun.then(() => undefined), done };
    }
    return this.loading;
  }

  /**
   * Gets the Lua workers ready ahead of a call, so that it does not pay their start-up; resolves once the first
   * worker is starting, not when it is ready. Without `why` (the tools were just opened: headless awl, an ACP
   * session) nothing starts yet: most replies need no tool, and a worker costs a thread (≈ 10 MB, ≈ 25 MB once
   * its extensions are loaded) and its start's CPU (issue 30). Such tools start only once a call is likely (`slow`:
   * a model at work, `tool_use`: a call streams, its name before its arguments): a worker then starts ahead and
   * boots awl's Lua runtime while the pool's own modules load (head-start.ts), and the extensions load into it.
   * After `startForCallsOnly()` (a run of one turn) a slow request starts no thread: it only loads the module that
   * starts one, so that a call streaming starts it at once. Otherwise (the interactive mode) a request offering
   * tools starts them too (`request`). Calls start it all anyway. A load that only a prewarm asked for is given up
   * at exit if no extension registered an on_unload hook (see unload), so a reply that needs no tool does not wait
   * for it.
   */
  prewarm(why?: PrewarmReason, tool?: string): Promise<void> {
    if (why === "tool_use" && !this.loading) this.firstCall ??= tool;
    if (!why) {
      if (this.workersStart === "request") this.workersStart = "likely";
      return Promise.resolve();
    }
    if (this.workersStart !== "request" && !this.loading) {
      if (why === "request") return Promise.resolve();
      if (why === "slow" && this.workersStart === "call") return this.importAhead().then(() => undefined);
      void this.startAhead();
    }
    if (!this.loading) this.speculative = true;
    return this.startLoading().begun;
  }

  /**
   * This process answers one turn and exits (print mode): its Lua workers start only once a call streams, or at
   * the call. A thread started while a model thinks costs ≈ 25 MB by the time a reply without a call comes (its
   * own start, wasmoon's memory, the runtime and the extensions: docs/benchmarks.md), which such a run never uses.
   */
  startForCallsOnly(): void {
    this.workersStart = "call";
  }

  /**
   * head-start.ts, imported once (undefined when it cannot be); a thread asked for meanwhile (`startAhead`) starts
   * as soon as it is there, before anything else that waited for the same chunk (the pool's first worker takes it).
   */
  private importAhead(): Promise<typeof import("./lua/head-start.js") | undefined> {
    this.importingAhead ??= import("./lua/head-start.js").then(
      (ahead) => {
        this.ahead = ahead;
        if (this.startedAhead) this.startThreadAhead(ahead);
        return ahead;
      },
      () => undefined, // the pool's own start of a worker then fails too, and says why
    );
    return this.importingAhead;
  }

  /**
   * Starts a worker ahead of the pool, booting awl's Lua runtime (head-start.ts); once, and only with extensions to
   * run. Resolves once its thread is starting: at once when the module is there already (a slow request loaded it).
   */
  private startAhead(): Promise<void> {
    if (this.startedAhead || this.discovery.extensions.length === 0) return Promise.resolve();
    this.startedAhead = true;
    if (this.ahead) this.startThreadAhead(this.ahead);
    return this.importAhead().then(() => undefined);
  }

  private startThreadAhead(ahead: typeof import("./lua/head-start.js")): void {
    if (this.closing) return; // closed meanwhile: no thread starts
    const { cwd, env, luaPath, textHost } = this.poolOptions;
    // The pool's boot exactly (its Lua path too), or its first worker would not take this thread.
    const options = { cwd, env, ...(luaPath && { luaPath }), ...(textHost && { textHost }) };
    ahead.startLuaThreadAhead(options);
    ahead.bootLuaThreadAhead(options);
  }

  /**
   * Applies what changed since the last time (ToolSet.refresh; the agent awaits it before every model call): the
   * extensions saved, added or removed while `watch()` runs, and a pending `reload()`. Each changed extension is
   * loaded again in every Lua worker, never under a running call; the others keep their state. Never rejects.
   */
  async refresh(): Promise<void> {
    await this.applyPending();
  }

  /**
   * Finds and loads every extension again now (`/reload`): their top-level code and `discover_tools` handlers run
   * again, after each old version's on_unload hooks. Waits for the calls running to end first. Resolves with what
   * changed (the listeners of `onReload` hear it too); never rejects.
   */
  async reload(): Promise<ReloadReport> {
    this.pending = "all";
    await this.whenIdle();
    return this.applyPending();
  }

  /** Tells `listener` about every reload that changed something (hot reload, `reload()`); returns the unsubscribe. */
  onReload(listener: (report: ReloadReport) => void): () => void {
    this.reloadListeners.add(listener);
    return () => this.reloadListeners.delete(listener);
  }

  /**
   * Watches the extension folders (not the bundled one) from now on: a save marks the change for the next
   * `refresh()`, and `onChange` hears of it (once per burst of saves) so an idle caller can refresh at once.
   * `groups`: other folders the same watcher watches for their own listeners (skills, prompt commands, agents).
   * Resolves once the watch is in place; a watch that cannot be set up (the system's limit of file watches) is
   * reported to `onProblem` and awl goes on without it.
   */
  watch(options: { onChange?: () => void; onProblem?: (message: string) => void; groups?: readonly WatchGroup[] } = {}): Promise<void> {
    // The folders holding the project's and the user's extensions hold their config files too (enable/disable).
    const folders = this.roots
      .filter((r) => r.source !== "bundled")
      .map((r) => (r.source === "project" || r.source === "user" ? dirname(r.dir) : r.dir));
    const report = (message: string) => options.onProblem?.(message);
    this.watching ??= import("./watch.js")
      .then(({ watchFolders }) =>
        watchFolders(folders, {
          onChange: () => {
            if (this.pending === "none") this.pending = "files";
            options.onChange?.();
          },
          onProblem: report,
          ...(options.groups && { groups: options.groups }),
        }),
      )
      .then(
        (watcher) => {
          if (this.closing) void watcher.close();
          else this.watcher = watcher;
        },
        (error: unknown) => report(`cannot watch the extension folders: ${(error as Error).message ?? String(error)}`),
      );
    return this.watching;
  }

  /** Whether a refresh has changes to apply. */
  get hasPendingChanges(): boolean {
    return this.pending !== "none";
  }

  private applyPending(): Promise<ReloadReport> {
    this.applying ??= (async () => {
      const extensions: ExtensionReload[] = [];
      try {
        while (this.pending !== "none" && !this.closing) {
          const all = this.pending === "all";
          this.pending = "none";
          extensions.push(...(await this.applyChanges(all)).extensions);
        }
      } catch (error) {
        // A reload must never break a turn: say what happened; the tools stay as they were.
        extensions.push({ name: "(all)", change: "failed", added: [], removed: [], changed: [], kept: true, error: String(error) });
      }
      const report = { extensions };
      if (extensions.length > 0) for (const listener of this.reloadListeners) listener(report);
      return report;
    })().finally(() => (this.applying = undefined));
    return this.applying;
  }

  private whenIdle(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * The entry the pool loads for an extension: its text as read now (the version read goes into `versions`).
   * `shared`: the folders' shared modules listed already in this round (readVersion).
   */
  private entryOf(extension: DiscoveredExtension, versions: Map<string, ExtensionVersion>, shared: Map<string, string[]>): ExtensionEntry {
    const version = readVersion(extension, shared);
    versions.set(extension.name, version);
    return { ...toEntry(extension), ...(version.source && { source: version.source }) };
  }

  /** Notes the versions serving once they loaded (`loaded`: as read for the load; see settledVersion). */
  private noteVersions(extensions: readonly DiscoveredExtension[], loaded: Map<string, ExtensionVersion>): void {
    const shared = new Map<string, string[]>(); // each folder's shared modules listed once
    for (const extension of extensions) {
      const version = loaded.get(extension.name);
      this.versions.set(extension.name, version ? settledVersion(extension, version, shared) : readVersion(extension, shared).key);
    }
  }

  /** One round of hot reload: finds the extensions again and loads those that changed (`all`: every one). */
  private async applyChanges(all: boolean): Promise<ReloadReport> {
    const found = findEnabled(this.roots, this.context.cwd, this.env, this.unpinned);
    const discovery = found.discovery;
    this.disabled = found.disabled;
    this.enablementProblems = found.problems;
    const before = new Map(this.discovery.extensions.map((e) => [e.name, e]));
    const toolsBefore = new Map([...before.keys()].map((name) => [name, this.registry.toolsOf(name)]));
    if (!this.pool) {
      // No Lua has run yet (the cache answered, or there was nothing to load): load the folders as they are now.
      this.discovery = discovery;
      this.cacheKeys = this.cachePath === false ? undefined : extensionKeys(discovery.extensions);
      this.loading = undefined;
      for (const name of before.keys()) if (!discovery.extensions.some((e) => e.name === name)) this.forget(name);
      await this.loaded();
      return { extensions: this.changesSince(toolsBefore, new Set()) };
    }
    await this.loaded();
    const load: ExtensionEntry[] = [];
    const versions = new Map<string, ExtensionVersion>();
    const shared = new Map<string, string[]>();
    for (const extension of discovery.extensions) {
      const version = readVersion(extension, shared);
      const known = before.get(extension.name);
      const same = known?.file === extension.file && (version.key === this.versions.get(extension.name) || version.key === this.attempted.get(extension.name));
      if (same && !all) continue;
      versions.set(extension.name, version);
      load.push({ ...toEntry(extension), ...(version.source && { source: version.source }) });
    }
    const remove = [...before.keys()].filter((name) => !discovery.extensions.some((e) => e.name === name));
    this.discovery = discovery;
    if (load.length === 0 && remove.length === 0) return { extensions: [] };

    const results = await this.pool.reload(load, remove);
    const failed = new Set<string>();
    await Promise.all(results.map((result) => this.applyReloaded(result, versions.get(result.extension)!, failed)));
    for (const name of remove) this.forget(name);
    this.offered = undefined;
    this.writeCache();
    return { extensions: this.changesSince(toolsBefore, failed, new Set([...load.map((e) => e.name), ...remove])) };
  }

  /** Takes one extension's reload result: its new tools, or the error (an older version may keep serving). */
  private async applyReloaded(result: ReloadResult, version: ExtensionVersion, failed: Set<string>): Promise<void> {
    const name = result.extension;
    if ("error" in result) {
      failed.add(name);
      this.attempted.set(name, version.key);
      const serving = this.registrations.has(name) && !this.loadErrors.some((e) => e.extension === name);
      if (serving) this.reloadErrors.set(name, result.error.message);
      else this.loadErrors = [...this.loadErrors.filter((e) => e.extension !== name), result.error];
      return;
    }
    const [tools, unavailable] = await Promise.all([withSchemaChecks(result.tools), this.checkAvailability(result.tools)]);
    const extension = this.discovery.extensions.find((e) => e.name === name);
    this.versions.set(name, extension ? settledVersion(extension, version) : version.key);
    this.attempted.delete(name);
    this.reloadErrors.delete(name);
    this.loadErrors = this.loadErrors.filter((e) => e.extension !== name);
    for (const k of Object.keys(this.unavailable)) if (k.startsWith(`${name}/`)) delete this.unavailable[k];
    Object.assign(this.unavailable, unavailable);
    this.registrations.set(name, tools);
    this.registry.setExtension(name, tools.filter(isTool), claim(extension));
  }

  /** Drops an extension that is gone. */
  private forget(name: string): void {
    this.registry.removeExtension(name);
    this.registrations.delete(name);
    this.versions.delete(name);
    this.attempted.delete(name);
    this.reloadErrors.delete(name);
    this.loadErrors = this.loadErrors.filter((e) => e.extension !== name);
    for (const k of Object.keys(this.unavailable)) if (k.startsWith(`${name}/`)) delete this.unavailable[k];
    this.offered = undefined;
  }

  /**
   * What changed for each extension, tool by tool, since `before`: those in `touched` (reloaded or removed) all
   * count; without `touched` (a first load) those whose tools changed.
   */
  private changesSince(before: Map<string, RegisteredTool[]>, failed: Set<string>, touched?: Set<string>): ExtensionReload[] {
    const out: ExtensionReload[] = [];
    const present = new Set(this.discovery.extensions.map((e) => e.name));
    for (const name of [...new Set([...before.keys(), ...present])].sort(compareCodeUnits)) {
      if (failed.has(name)) {
        const error = this.reloadErrors.get(name) ?? this.loadErrors.find((e) => e.extension === name)?.message;
        out.push({ name, change: "failed", added: [], removed: [], changed: [], kept: this.reloadErrors.has(name), ...(error && { error }) });
        continue;
      }
      const changes = toolChanges(before.get(name) ?? [], present.has(name) ? this.registry.toolsOf(name) : []);
      const change = !before.has(name) ? "added" : !present.has(name) ? "removed" : "changed";
      const toolsMoved = changes.added.length + changes.removed.length + changes.changed.length > 0;
      if (touched ? touched.has(name) : change !== "changed" || toolsMoved) out.push({ name, change, ...changes });
    }
    return out;
  }

  /** The cache after a reload, unless a refused version is on disk while an older one serves (a start would differ). */
  private writeCache(): void {
    if (this.cachePath === false || this.reloadErrors.size > 0) return;
    const keys = extensionKeys(this.discovery.extensions);
    if (!keys) return;
    const tools = this.discovery.extensions.flatMap((e) => this.registrations.get(e.name) ?? []);
    writeToolCache(this.cachePath, keys, { tools, errors: this.loadErrors, unavailable: this.unavailable });
  }

  /**
   * The slash commands the extensions registered (`awl.register_command`), in the extensions' order; a name a
   * previous extension took is left out. Complete once `ready()` settled.
   */
  commands(): LuaCommand[] {
    const out: LuaCommand[] = [];
    for (const extension of this.discovery.extensions) {
      for (const r of this.registrations.get(extension.name) ?? []) {
        const name = r.name.slice(1);
        if (r.command && !out.some((c) => c.name === name)) out.push({ extension: r.extension, name, description: r.description, file: r.file, line: r.line });
      }
    }
    return out;
  }

  /**
   * The event hooks the extensions registered (`awl.on`), each with its extension's source, in the extensions'
   * order (discovery's); current after each reload.
   */
  hooks(): (LuaToolRegistration & { source: ExtensionSource })[] {
    return this.discovery.extensions.flatMap((e) => (this.registrations.get(e.name) ?? []).filter((r) => r.hook !== undefined).map((r) => ({ ...r, source: e.source })));
  }

  /**
   * Runs a registered handler that is no tool (a slash command, an event hook) in the pool, its input as JSON:
   * its outcome, texts scrubbed of API keys; what it prints goes to the log as `logId`'s. Never throws.
   */
  async callHandler(extension: string, name: string, input: string, options: { signal: AbortSignal; timeoutMs: number }): Promise<ToolOutcome> {
    this.running++;
    try {
      await this.loaded();
      if (!this.pool) return { status: "result", content: `the extension ${extension} is not loaded`, is_error: true };
      const outcome = await this.pool.call(extension, name, input, this.context, {
        ...options,
        ...(this.callLog && { onLog: (_stream: string, text: string) => this.callLog!(extension, text, name) }),
      });
      if (outcome.status === "result") {
        // A slash command's `prompt` (awl.lua's `extras`) goes to the model: scrubbed as the content is.
        const { prompt } = outcome as { prompt?: unknown };
        return { ...outcome, content: this.scrub.text(outcome.content), ...(typeof prompt === "string" && { prompt: this.scrub.text(prompt) }) };
      }
      if (outcome.status === "crash") return { ...outcome, message: this.scrub.text(outcome.message) };
      return outcome;
    } catch (error) {
      return { status: "result", content: `awl could not run it: ${(error as Error).message ?? String(error)}`, is_error: true };
    } finally {
      if (--this.running === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  /** Runs one call in the pool and shapes its result. Never throws. */
  execute(call: ToolCall, signal: AbortSignal, onProgress?: (update: ToolProgress) => void): Promise<ToolOutcome> {
    return this.run(call, { signal, ...(onProgress && { onProgress }) });
  }

  /** {@link execute}, with a timeout that overrides the tool's own (`awl tool call --timeout`). Never throws. */
  async run(call: ToolCall, options: { signal: AbortSignal; timeoutMs?: number; onProgress?: (update: ToolProgress) => void }): Promise<ToolOutcome> {
    const { signal, onProgress } = options;
    this.running++;
    try {
      // The call's spill folder is made while the workers load (the first call of a run waits for both); old runs'
      // folders are removed meanwhile (only from awl's own spill folder, not from one the library was given).
      this.spillReady ??= Promise.all([
        fsp.mkdir(this.context.spill_dir, { recursive: true, mode: 0o700 }).catch(() => undefined), // private, as sessions are
        this.ownSpillRoot !== undefined ? pruneSpillDirs(this.ownSpillRoot) : undefined,
      ]);
      const tool = await this.toolFor(call.name);
      if (!tool || !this.pool) {
        return { status: "result", content: `unknown tool "${call.name}": no loaded extension registers it`, is_error: true };
      }
      const unavailable = this.unavailableReason(tool);
      if (unavailable !== undefined) {
        return { status: "result", content: `the tool "${call.name}" is not available here: ${unavailable}`, is_error: true };
      }
      await this.spillReady;
      const running = this.pool.call(tool.extension, tool.name, call.input, this.context, {
        signal,
        timeoutMs: options.timeoutMs ?? tool.timeout_ms,
        ...(onProgress && { onProgress }),
        ...(call.granted_hosts && { grantedHosts: call.granted_hosts }),
        ...(this.callLog && { onLog: (_stream: string, text: string) => this.callLog!(tool.extension, text, call.id) }),
      });
      // A call that runs a while will have its block redrawn: the renders' worker starts meanwhile. Not for a quick
      // call: a thread's start holds this one for a few ms (more on a busy machine), which its result would wait for.
      const pool = this.pool;
      const prewarmRender = tool.has_render && this.drawsBlocks ? setTimeout(() => pool.prewarmRender(), RENDER_PREWARM_AFTER_MS) : undefined;
      const outcome = await running.finally(() => clearTimeout(prewarmRender));
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
    } finally {
      if (--this.running === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  /**
   * The tool a call names, once it can run: once every extension has loaded, or, for the tool whose extension the
   * first worker loads first (see `extensionToLoadFirst`), as soon as that one has.
   */
  private async toolFor(name: string): Promise<RegisteredTool | undefined> {
    if (!this.loading) this.firstCall ??= name;
    const loading = this.startLoading();
    this.speculative = false;
    const tool = this.registry.get(name);
    if (tool && tool.extension === this.firstExtension) {
      await loading.begun;
      // A worker that could not start: the error comes from the whole load's end, as for any call.
      const ready = await this.pool?.readyFor(tool.extension, tool.name).then(
        () => true,
        () => false,
      );
      if (ready) return this.registry.get(name);
    }
    await loading.done;
    return this.registry.get(name);
  }

  /**
   * The extension of the tool a call named before the load began, when its registration is known already (the
   * cache offered it) and no `available(ctx)` decides on it (that answer comes from the whole load): the first
   * worker loads it before the others, so the call need not wait for them.
   */
  private extensionToLoadFirst(): string | undefined {
    const tool = this.offeredFromCache && this.firstCall !== undefined ? this.registry.get(this.firstCall) : undefined;
    return tool && !tool.has_available ? tool.extension : undefined;
  }

  /**
   * The tool's `render(state, view)` in a worker: never its `run`, limited to {@link RENDER_TIMEOUT_MS}.
   * Undefined when the tool is unknown or has no render; rejects with what went wrong when the render failed.
   */
  async render(toolName: string, state: unknown, view: ToolRenderView): Promise<string | undefined> {
    this.drawsBlocks = true;
    await this.loaded();
    const tool = this.registry.get(toolName);
    if (!tool?.has_render || !this.pool) return undefined;
    // A timer cleared as the render ends (AbortSignal.timeout's would stay armed for its whole wait, one per render).
    const wait = new AbortController();
    const timer = setTimeout(() => wait.abort(), RENDER_WAIT_MS).unref();
    const outcome = await this.pool.render(tool.extension, tool.name, state, view, this.context, { signal: wait.signal, timeoutMs: RENDER_TIMEOUT_MS }).finally(() => clearTimeout(timer));
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
      const reload = this.reloadErrors.get(extension.name);
      const notReloaded = reload === undefined ? [] : [`not reloaded (the previous version keeps serving): ${reload}`];
      return {
        name: extension.name,
        file: extension.file,
        source: extension.source,
        state: loadErrors.length > 0 ? "failed" : "loaded",
        tools: this.registry.toolsOf(extension.name),
        errors: [...loadErrors, ...notReloaded, ...refused],
      };
    });
    for (const off of this.disabled) {
      reports.push({ name: off.name, file: off.file, source: off.source, state: "disabled", disabled_by: off.disabled_by, tools: [], errors: [] });
    }
    for (const report of reports) {
      const read = metadataOf(report.file);
      if (read.metadata) report.metadata = read.metadata;
      if (read.error) report.errors.push(read.error);
    }
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
      ...this.enablementProblems,
      ...this.discovery.shadowed
        .filter((s) => s.source === "bundled")
        .map((s) => `the bundled extension "${s.name}" is replaced by ${s.shadowed_by}`),
      ...this.loadErrors.map((e) => `extension "${e.extension}" failed to load: ${e.message}`),
      ...[...this.reloadErrors].map(([name, error]) => `extension "${name}" not reloaded (the previous version keeps serving): ${error}`),
      ...this.registry.problems().map((p) => p.message),
    ];
  }

  /** Stops every worker (a pool still being created is closed as soon as it exists; none is created after). */
  /** `ctx.spill_dir`: this run's folder for whole outputs (background jobs keep theirs there too). */
  get spillDir(): string {
    return this.context.spill_dir;
  }

  /** How the extensions' programs run (background jobs run so too): their environment, and the sandbox if any. */
  get programs(): { env: NodeJS.ProcessEnv; sandbox?: ProcessSandbox } {
    const { env, sandbox } = this.poolOptions;
    return { env: env ?? {}, ...(sandbox && { sandbox }) };
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.watcher?.close();
    const pool = await this.poolReady?.catch(() => undefined);
    await pool?.close();
    // Closed before its pool was there (a signal during the start): the thread started ahead for it, which no pool
    // took, is stopped before awl exits (a process that exits while a worker starts can abort inside Node).
    if (this.startedAhead && !this.pool) await (await import("./lua/head-start.js")).stopLuaThreadsAhead();
    await this.removeEmptySpillDir();
    for (const listener of this.onClosed.splice(0)) listener();
  }

  /** Calls `listener` once the set is closed (e.g. to let go of what would have cleaned it up at a signal). */
  whenClosed(listener: () => void): void {
    this.onClosed.push(listener);
  }

  /** This run's own spill folder goes when nothing was spilled into it (no empty folder left per run). */
  private async removeEmptySpillDir(): Promise<void> {
    if (this.ownSpillRoot === undefined || !this.spillReady) return;
    await this.spillReady; // still being made when a call was answered without it (an unknown tool)
    await fsp.rmdir(this.context.spill_dir).catch(() => undefined);
  }

  /**
   * Runs every extension's on_unload hooks (time-limited; a hook that errors or hangs is stopped and logged) and
   * stops watching, without stopping the workers: what awl does before it exits. Nothing to do when no Lua ran.
   */
  async unload(): Promise<void> {
    // Only a prewarm asked for the workers and their pool is still being created: it starts none.
    if (this.speculative && !this.pool) this.closing = true;
    await this.watcher?.close();
    const pool = await this.poolReady?.catch(() => undefined);
    if (pool && this.speculative && pool.abandonStart()) {
      // Only a prewarm started the worker and its extensions registered no on_unload hook: none is owed.
      this.closing = true;
      return;
    }
    await this.loading?.done.catch(() => undefined); // a load under way ends first (a failed start: none)
    await pool?.unload();
    await this.removeEmptySpillDir();
  }

  /**
   * Resolves once no Lua worker is starting or stopping, without stopping any: what awl waits for before it
   * exits (a process that exits while a worker starts can abort inside Node), e.g. after a prewarm; of a start
   * given up at `unload`, only until its worker is stopped (see LuaPool.abandonStart).
   */
  async quiesce(): Promise<void> {
    const pool = await this.poolReady?.catch(() => undefined);
    await pool?.quiesce();
    if (this.startedAhead) await (await import("./lua/head-start.js")).stopLuaThreadsAhead(); // one no pool took
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
      const tools = snapshot.tools.filter((t) => t.extension === extension.name);
      this.registrations.set(extension.name, tools);
      this.registry.setExtension(extension.name, tools.filter(isTool), claim(extension));
    }
  }
}

const SOURCES: readonly ExtensionSource[] = ["flag", "project", "user", "bundled"];

/** A registration of a tool (not of a slash command or an event hook). */
function isTool(registration: LuaToolRegistration): boolean {
  return registration.command !== true && registration.hook === undefined;
}

/** An extension's claim on tool names: bundled ones' are reserved, then --extensions-dir, project, user. */
function claim(extension: DiscoveredExtension | undefined): { rank: number; bundled: boolean } {
  return { rank: SOURCES.indexOf(extension?.source ?? "user"), bundled: extension?.source === "bundled" };
}

function toEntry(extension: DiscoveredExtension): { name: string; file: string; root: string } {
  return { name: extension.name, file: extension.file, root: join(extension.file, "..") };
}

/** Lua's `debug.traceback(message)` repeats the message above the stack; the crash report already shows it. */
function tracebackOnly(traceback: string, message: string): string {
  return traceback.startsWith(message) ? traceback.slice(message.length).replace(/^\n/, "") : traceback;
}
