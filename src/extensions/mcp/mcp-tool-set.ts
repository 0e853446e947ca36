/**
 * The ToolSet of MCP servers (SPEC §10), beside the Lua one: every configured server starts in the background,
 * in parallel, and nothing waits for it unless asked (`waitForStart`, print mode). Its tools are offered from
 * the first `refresh()` after it is ready (the agent refreshes before every model call), named
 * `<server>_<tool>` (names.ts). A tool whose schema is not an object is refused with a message; the server's
 * other tools are offered.
 */
import { DEFAULT_RESULT_LIMIT, limitResult } from "../../tools/spill.js";
import type { PrewarmReason, ToolCall, ToolDefinition, ToolOutcome, ToolProgress, ToolSet } from "../../tools/types.js";
import type { SecretScrubber } from "../../util/secrets.js";
import type { McpServerConfig } from "./config.js";
import { McpConnection, type McpServerState, type McpToolInfo } from "./connection.js";
import { kindsFromAnnotations, type ToolAnnotations } from "./kinds.js";
import { assignToolNames, toolNamePrefix } from "./names.js";
import type { McpToolListCache } from "./tool-list-cache.js";

/** How long a server may take to start (spawn or connect, initialize, list its tools) before it counts as failed. */
export const DEFAULT_MCP_STARTUP_TIMEOUT_MS = 15_000;
/** Per-call timeout of MCP tools whose server sets none. */
export const DEFAULT_MCP_CALL_TIMEOUT_MS = 120_000;
/** Each server's `instructions` go into the system prompt cut to this many characters... */
export const MAX_INSTRUCTIONS_CHARS = 2_000;
/** ...and all servers' together to this many (servers in name order; what is past it is left out, with a note). */
export const MAX_ALL_INSTRUCTIONS_CHARS = 8_000;

export interface McpToolSetOptions {
  servers: readonly McpServerConfig[];
  env: NodeJS.ProcessEnv;
  startupTimeoutMs?: number;
  /** Per-call timeout for servers that set none. */
  callTimeoutMs?: number;
  /** Names other tools (Lua) already use: MCP tools never take them. */
  reservedNames?: () => Iterable<string>;
  resultLimit?: number;
  /** Where results longer than the limit are saved whole. */
  spillDir: string;
  scrub?: SecretScrubber;
  /** A server changed state or tools (a UI may redraw its listing). */
  onChange?: () => void;
  /** Told each new problem ({@link McpToolSet.problems}) once, as it appears; see {@link McpToolSet.reportProblemsTo}. */
  onProblem?: (text: string) => void;
  /**
   * Print mode: the first `refresh()` (before the first model call) waits this long at most for servers still
   * starting, then tells `onLate` which are not ready (their tools come at a later refresh, if any).
   */
  firstRefreshWaitMs?: number;
  onLate?: (servers: string[]) => void;
  /** Tool lists of earlier runs: servers in it are offered at once, before they are ready. */
  cache?: McpToolListCache;
  /**
   * Servers whose tools are known from the cache start only when needed: at `startAll()`, `prewarm()` (a tool call
   * may be coming) or their first call; so a reply that needs no MCP tool never shares the CPU with their start.
   */
  deferKnown?: boolean;
}

/** An MCP tool as the agent sees it. */
export interface McpToolDefinition extends ToolDefinition {
  /** The server's name for it (the model sees `name`). */
  server: string;
  tool: string;
  annotations?: ToolAnnotations;
}

/** One server as `awl extensions` shows it. */
export interface McpServerReport {
  name: string;
  state: McpServerState;
  source: McpServerConfig["source"];
  file: string;
  transport: "stdio" | "http" | "sse";
  /** What it runs or where it is. */
  target: string;
  tools: string[];
  /** The bytes its tools add to every request, and about as many tokens (bytes / 4). */
  schema_bytes: number;
  schema_tokens: number;
  error?: string;
  stderr: string[];
  /** Tools refused (schema not an object...), each with its reason. */
  refused: string[];
  /** A running stdio server's process id. */
  pid?: number;
}

export class McpToolSet implements ToolSet {
  private readonly connections: McpConnection[];
  private offered: McpToolDefinition[] = [];
  private byName = new Map<string, McpToolDefinition>();
  private refused = new Map<string, string[]>();
  private offeredInstructions: string[] = [];
  private readonly reported = new Set<string>();
  private problemListener: ((text: string) => void) | undefined;
  private refreshed = false;
  private readonly listeners = new Set<() => void>();
  private readonly onClosed: (() => void)[] = [];

  private constructor(private readonly options: McpToolSetOptions) {
    this.problemListener = options.onProblem;
    const startupTimeoutMs = options.startupTimeoutMs ?? DEFAULT_MCP_STARTUP_TIMEOUT_MS;
    const cache = options.cache;
    this.connections = options.servers.map((config) => {
      const cached = config.transport && cache?.get(config);
      return new McpConnection(config, {
        env: options.env,
        startupTimeoutMs,
        onChange: () => {
          this.reportProblems();
          options.onChange?.();
          for (const listener of this.listeners) listener();
        },
        ...(cached && { cached }),
        ...(cache && { onListed: (tools, instructions) => cache.set(config, { tools, ...(instructions !== undefined && { instructions }) }) }),
      });
    });
  }

  /** Starts every enabled server in the background (but those `deferKnown` leaves for later); returns at once. */
  static start(options: McpToolSetOptions): McpToolSet {
    const set = new McpToolSet(options);
    set.reportProblems();
    for (const connection of set.connections) if (!options.deferKnown || connection.unknown) connection.start();
    return set;
  }

  /**
   * Problems found from now on go to `listener` instead (the interactive mode, once its prompt is drawn, prints
   * them above it rather than over it).
   */
  reportProblemsTo(listener: (text: string) => void): void {
    this.problemListener = listener;
  }

  private reportProblems(): void {
    for (const problem of this.problems()) {
      if (this.reported.has(problem)) continue;
      this.reported.add(problem);
      this.problemListener?.(problem);
    }
  }

  /** Starts every server not started yet (the interactive mode, once its prompt is drawn). */
  startAll(): void {
    for (const connection of this.connections) connection.start();
  }

  /** Names of the servers started and not yet ready or failed (a status line shows them). */
  starting(): string[] {
    return this.connections.filter((c) => c.state === "starting").map((c) => c.name);
  }

  /** Calls `listener` after any server changed state or tools; returns the function that stops it. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * A tool call may be coming: servers whose start was deferred start now; not merely because a request offering
   * tools went out (`request`): starting a server is a process, and most replies need no tool.
   */
  prewarm(why?: PrewarmReason): void {
    if (why !== "request") this.startAll();
  }

  /** The tools offered since the last `refresh()`, sorted by name. */
  definitions(): readonly McpToolDefinition[] {
    return this.offered;
  }

  /**
   * Between model calls: re-lists the tools of servers that said they changed, and offers the tools of every
   * ready server (servers that became ready since, or were restarted). Never rejects.
   */
  async refresh(): Promise<void> {
    const wait = this.options.firstRefreshWaitMs;
    if (wait !== undefined && !this.refreshed && this.connections.some((c) => c.unknown)) {
      const late = await this.waitForStart(wait, (c) => c.unknown);
      if (late.length > 0) this.options.onLate?.(late);
    }
    this.refreshed = true;
    await Promise.all(this.connections.filter((c) => c.toolsStale).map((c) => c.relist()));
    this.rebuild();
  }

  /**
   * Waits until every server (or those `which` picks) has started or failed, up to `timeoutMs`; resolves with
   * the names of those still starting.
   */
  async waitForStart(timeoutMs: number, which: (c: McpConnection) => boolean = () => true): Promise<string[]> {
    const waited = this.connections.filter(which);
    for (const connection of waited) connection.start();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([Promise.all(waited.map((c) => c.settled())), deadline]);
    clearTimeout(timer);
    return waited.filter((c) => c.state === "starting").map((c) => c.name);
  }

  async execute(call: ToolCall, signal: AbortSignal, onProgress?: (update: ToolProgress) => void): Promise<ToolOutcome> {
    const definition = this.byName.get(call.name);
    const connection = definition && this.connections.find((c) => c.name === definition.server);
    if (!definition || !connection) return { status: "result", content: `unknown tool "${call.name}": no MCP server offers it`, is_error: true };
    let args: Record<string, unknown>;
    try {
      const parsed: unknown = call.input.trim() === "" ? {} : JSON.parse(call.input);
      args = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
    } catch {
      return { status: "result", content: `the input for tool "${call.name}" is not valid JSON`, is_error: true };
    }
    const outcome = await connection.call(definition.tool, args, { signal, timeoutMs: definition.timeout_ms, ...(onProgress && { onProgress }) });
    if (outcome.status !== "result") return outcome;
    const limited = await limitResult(outcome.content, call.name, call.id, {
      limit: this.options.resultLimit ?? DEFAULT_RESULT_LIMIT,
      spillDir: this.options.spillDir,
      ...(this.options.scrub && { scrub: this.options.scrub }),
    });
    return { ...outcome, content: limited.content };
  }

  /**
   * The `instructions` of each server whose tools are offered, for the system prompt, as of the last `refresh()`
   * (a server ready after a model call adds its instructions from the next one on): in server-name order whatever
   * the order the servers started in, each headed by the server's name and cut to {@link MAX_INSTRUCTIONS_CHARS},
   * all of them to {@link MAX_ALL_INSTRUCTIONS_CHARS}; a cut says so.
   */
  instructions(): readonly string[] {
    return this.offeredInstructions;
  }

  /** Every configured server with its state, transport, tools and schema cost. */
  servers(): McpServerReport[] {
    // What each server offers now, ready since the last refresh or not: the listing shows the live state.
    const { offered, refused } = this.compute();
    return this.connections.map((c) => {
      const tools = offered.filter((t) => t.server === c.name);
      const schemaBytes = tools.reduce((sum, t) => sum + schemaCost(t), 0);
      const transport = c.config.transport;
      return {
        name: c.name,
        state: c.state,
        source: c.config.source,
        file: c.config.file,
        transport: c.transportKind,
        target: !transport ? "" : transport.type === "stdio" ? [transport.command, ...transport.args].join(" ") : transport.url,
        tools: tools.map((t) => t.name),
        schema_bytes: schemaBytes,
        schema_tokens: Math.ceil(schemaBytes / 4),
        ...(c.error !== undefined && { error: c.error }),
        stderr: c.state === "failed" ? c.stderrLines() : [],
        refused: refused.get(c.name) ?? [],
        ...(c.pid !== undefined && { pid: c.pid }),
      };
    });
  }

  /** Messages worth telling at start-up: servers that failed or wait for approval, tools refused. */
  problems(): string[] {
    const out: string[] = [];
    for (const c of this.connections) {
      if (c.state === "failed") out.push(`MCP server "${c.name}" failed: ${c.error ?? "unknown error"}`);
      if (c.state === "unapproved") out.push(`MCP server "${c.name}" is not started: ${c.error ?? "not approved"}`);
      for (const reason of this.refused.get(c.name) ?? []) out.push(`MCP server "${c.name}": ${reason}`);
    }
    return out;
  }

  /** Stops every server and kills its process tree. */
  async close(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.close()));
    for (const listener of this.onClosed.splice(0)) listener();
  }

  /** Calls `listener` once the set is closed (e.g. to let go of what would have cleaned it up at a signal). */
  whenClosed(listener: () => void): void {
    this.onClosed.push(listener);
  }

  /** Kills every stdio server's process tree at once (awl was signalled). */
  kill(): void {
    for (const c of this.connections) c.kill();
  }

  /** Offers the tools of every ready server (and those known from before): see {@link compute}. */
  private rebuild(): void {
    const { offered, refused } = this.compute();
    this.refused = refused;
    this.reportProblems();
    const instructions = boundedInstructions(this.connections.filter((c) => c.offersTools));
    if (JSON.stringify(instructions) !== JSON.stringify(this.offeredInstructions)) this.offeredInstructions = instructions;
    if (JSON.stringify(offered) === JSON.stringify(this.offered)) return; // same array: the request bytes stay put
    this.offered = offered;
    this.byName = new Map(offered.map((t) => [t.name, t]));
  }

  /** The tools every server that offers tools would give now: schemas checked, names assigned, sorted by name. */
  private compute(): { offered: McpToolDefinition[]; refused: Map<string, string[]> } {
    const accepted: { connection: McpConnection; info: McpToolInfo; schema: string }[] = [];
    const refusedBy = new Map<string, string[]>();
    for (const connection of this.connections.filter((c) => c.offersTools)) {
      const refused: string[] = [];
      for (const info of connection.tools) {
        const schema = objectSchema(info.inputSchema);
        if (typeof schema === "string") refused.push(`tool "${info.name}" is not offered: its input schema ${schema}`);
        else accepted.push({ connection, info, schema: JSON.stringify(schema) });
      }
      if (refused.length > 0) refusedBy.set(connection.name, refused);
    }
    const names = assignToolNames(
      accepted.map((a) => ({ server: a.connection.name, tool: a.info.name })),
      new Set(this.options.reservedNames?.() ?? []),
    );
    const callTimeout = this.options.callTimeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS;
    const offered = accepted.map(({ connection, info, schema }): McpToolDefinition => ({
      name: names.get(`${connection.name}\u0000${info.name}`)!,
      description: typeof info.description === "string" ? info.description : "",
      schema,
      extension: `mcp:${connection.name}`,
      file: connection.config.file,
      parallel: true,
      timeout_ms: connection.config.timeoutMs ?? callTimeout,
      server: connection.name,
      tool: info.name,
      kinds: kindsFromAnnotations(info.annotations),
      ...(info.annotations && { annotations: info.annotations }),
    }));
    offered.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { offered, refused: refusedBy };
  }
}

/**
 * The schema as a JSON Schema object for the providers (`type: "object"` added when a server left it out,
 * `$schema` dropped: awl checks inputs with its own dialect), or why it cannot be one.
 */
function objectSchema(schema: unknown): Record<string, unknown> | string {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return `is not a JSON object (got ${JSON.stringify(schema)?.slice(0, 60) ?? "nothing"})`;
  const { $schema: _dialect, ...rest } = schema as Record<string, unknown>;
  if (rest.type === undefined) return { type: "object", ...rest };
  if (rest.type !== "object") return `has type ${JSON.stringify(rest.type)}, but tool input must be an object`;
  return rest;
}

/** The bytes one tool adds to a request: its name, description and schema as a provider's tools entry. */
function schemaCost(tool: ToolDefinition): number {
  return Buffer.byteLength(`{"name":${JSON.stringify(tool.name)},"description":${JSON.stringify(tool.description)},"input_schema":${tool.schema}}`);
}

/** The servers' instructions for the system prompt: see {@link McpToolSet.instructions}. */
function boundedInstructions(connections: readonly McpConnection[]): string[] {
  const given = connections
    .filter((c) => c.instructions?.trim())
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: string[] = [];
  let room = MAX_ALL_INSTRUCTIONS_CHARS;
  for (const [i, c] of given.entries()) {
    if (room <= 0) {
      const left = given.slice(i).map((s) => `"${s.name}"`);
      out.push(`[awl: the instructions of the MCP server${left.length > 1 ? "s" : ""} ${left.join(", ")} were left out: all servers' instructions are limited to ${MAX_ALL_INSTRUCTIONS_CHARS} characters]`);
      break;
    }
    const text = c.instructions!.trim();
    const limit = Math.min(MAX_INSTRUCTIONS_CHARS, room);
    const cut = text.length > limit ? `${text.slice(0, limit)}\n[awl: cut here; this server's instructions are ${text.length} characters, more than awl sends]` : text;
    room -= Math.min(text.length, limit);
    out.push(`Instructions from the MCP server "${c.name}" (its tools are named ${toolNamePrefix(c.name)}_*):\n${cut}`);
  }
  return out;
}
