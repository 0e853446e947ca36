/**
 * One MCP server, through the official SDK's `Client`: started in the background (never awaited by start-up),
 * its tools listed, re-listed after `notifications/tools/list_changed` when the tool set asks (between model
 * calls), calls with a timeout, progress and cancellation, and a restart with backoff when it dies. A call in
 * flight when the server dies gets an `is_error` result naming the server. Nothing here throws at the caller.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ToolOutcome, ToolProgress } from "../../tools/types.js";
import { awlVersion } from "../../version.js";
import type { McpServerConfig, McpTransportConfig } from "./config.js";
import { describeConnectError } from "./describe-error.js";
import type { ToolAnnotations } from "./kinds.js";
import { mapCallResult, type McpCallResult } from "./map-result.js";
import type { ProcessTransport } from "./stdio-transport.js";
import { untilAborted } from "../../util/until-aborted.js";

export type McpServerState = "starting" | "ready" | "failed" | "disabled" | "unapproved";

/** A tool as the server lists it. */
export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema: unknown;
  annotations?: ToolAnnotations;
}

export interface ConnectionOptions {
  /** The environment stdio servers inherit (their own `env` goes on top). */
  env: NodeJS.ProcessEnv;
  /** How long connecting and listing tools may take. */
  startupTimeoutMs: number;
  /** Something worth a redraw or a refresh happened: state, tools, or a list_changed to apply. */
  onChange: () => void;
  /** What the server listed last time (tool-list-cache.ts): offered until it lists its own. */
  cached?: { tools: McpToolInfo[]; instructions?: string };
  /** The server listed its tools (at each start, and after list_changed). */
  onListed?: (tools: McpToolInfo[], instructions: string | undefined) => void;
}

/** Waits between restarts of a server that died: doubling from the first, at most this many in a row. */
const RESTART_DELAYS_MS = [500, 1_000, 2_000, 4_000, 8_000];
/** A server up this long has recovered: its next death starts the backoff over. */
const HEALTHY_AFTER_MS = 30_000;
/** Re-listing tools after list_changed. */
const LIST_TIMEOUT_MS = 10_000;

export class McpConnection {
  state: McpServerState;
  /** Why it failed (or died last), with its last stderr lines. */
  error: string | undefined;
  tools: McpToolInfo[] = [];
  instructions: string | undefined;
  /** The transport in use: `stdio`, `http` or `sse` (after a fallback from http). */
  transportKind: "stdio" | "http" | "sse";
  /** Bumped by each list_changed; the tools are current when it equals `listedAt`. */
  private changes = 0;
  private listedAt = 0;
  private client: Client | undefined;
  private transport: Transport | undefined;
  private attempt: Promise<void> = Promise.resolve();
  private restarts = 0;
  private readyAt = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** The tools are known: listed by this server once, or taken from the cache. */
  private known = false;
  private started = false;

  constructor(
    readonly config: McpServerConfig,
    private readonly options: ConnectionOptions,
  ) {
    this.transportKind = config.transport?.type ?? "stdio";
    this.state = config.error ? "failed" : config.disabled ? "disabled" : config.unapproved ? "unapproved" : "starting";
    this.error = config.error ?? config.unapproved;
    if (options.cached && this.state === "starting") {
      this.tools = options.cached.tools;
      this.instructions = options.cached.instructions;
      this.known = true;
    }
  }

  /**
   * Its tools are offered: it is ready, or starting (first start or restart) with its tools known from before;
   * a call then waits for it.
   */
  get offersTools(): boolean {
    return this.state === "ready" || (this.state === "starting" && this.known);
  }

  /** Starting, and nothing known of its tools yet: print mode waits for such a server. */
  get unknown(): boolean {
    return this.state === "starting" && !this.known;
  }

  get name(): string {
    return this.config.name;
  }

  /** Starts connecting, once (returns at once); `settled()` says when the attempt ended. */
  start(): void {
    if (this.started || this.state !== "starting" || this.closed) return;
    this.started = true;
    this.attempt = this.connect();
  }

  /** Resolves once the current start (or restart) attempt has ended, ready or failed. Never rejects. */
  settled(): Promise<void> {
    return this.attempt;
  }

  /** The server told us its tools changed and they were not listed since. */
  get toolsStale(): boolean {
    return this.state === "ready" && this.changes !== this.listedAt;
  }

  /** Re-lists the tools when the server said they changed; keeps the old list if that fails. */
  async relist(): Promise<void> {
    const client = this.client;
    if (!client || !this.toolsStale) return;
    const seen = this.changes;
    try {
      this.tools = await listTools(client, LIST_TIMEOUT_MS);
      this.listedAt = seen;
      this.options.onListed?.(this.tools, this.instructions);
    } catch (error) {
      this.listedAt = seen; // not asked again until it says so again
      this.error = `re-listing its tools failed: ${(error as Error).message}`;
    }
  }

  private async connect(): Promise<void> {
    const transportConfig = this.config.transport!;
    try {
      const { client, transport, kind } = await this.open(transportConfig);
      this.client = client;
      this.transport = transport;
      this.transportKind = kind;
      const seen = this.changes;
      this.tools = await listTools(client, this.options.startupTimeoutMs);
      this.listedAt = seen;
      this.instructions = client.getInstructions();
      if (this.closed) return void (await this.shutdown());
      this.known = true;
      this.options.onListed?.(this.tools, this.instructions);
      this.state = "ready";
      this.error = undefined;
      this.readyAt = Date.now();
    } catch (error) {
      const stderr = this.stderrLines();
      await this.shutdown();
      if (this.closed) return;
      this.error = describeConnectError(error, transportConfig, this.options.startupTimeoutMs) + stderrSuffix(stderr);
      if (this.restarts > 0 && this.restarts < RESTART_DELAYS_MS.length) return this.scheduleRestart();
      this.state = "failed";
    } finally {
      this.options.onChange();
    }
  }

  /** Connects over the configured transport; Streamable HTTP falls back to the legacy SSE transport. */
  private async open(config: McpTransportConfig): Promise<{ client: Client; transport: Transport; kind: McpConnection["transportKind"] }> {
    if (config.type === "stdio") {
      const { ProcessTransport } = await import("./stdio-transport.js");
      const transport = new ProcessTransport({ command: config.command, args: config.args, cwd: config.cwd, env: stdioEnv(this.options.env, config.env) });
      return { client: await this.handshake(transport), transport, kind: "stdio" };
    }
    const url = new URL(config.url);
    const requestInit = { headers: config.headers };
    if (config.type === "http") {
      const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
      const transport = new StreamableHTTPClientTransport(url, { requestInit });
      try {
        return { client: await this.handshake(transport), transport, kind: "http" };
      } catch (error) {
        // Servers of the 2024-11-05 protocol answer the POST with 404/405: they speak SSE.
        if (!isOldProtocolAnswer(error)) throw error;
        await transport.close().catch(() => undefined);
      }
    }
    const { SSEClientTransport } = await import("@modelcontextprotocol/sdk/client/sse.js");
    const transport = new SSEClientTransport(url, { requestInit });
    return { client: await this.handshake(transport), transport, kind: "sse" };
  }

  /** `initialize` with a time limit; the client's close starts a restart once it is ready. */
  private async handshake(transport: Transport): Promise<Client> {
    const [{ Client }, { ToolListChangedNotificationSchema }] = await Promise.all([
      import("@modelcontextprotocol/sdk/client/index.js"),
      import("@modelcontextprotocol/sdk/types.js"),
    ]);
    const client = new Client({ name: "awl", version: awlVersion() }, { capabilities: {} });
    // Set before connecting: a server may say so before it even answers initialize.
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.changes++;
      this.options.onChange();
    });
    client.onerror = (error) => {
      // Garbage on stdout and similar: worth showing, not fatal.
      if (this.state === "ready") this.error = error.message;
    };
    this.transport = transport;
    const timeout = this.options.startupTimeoutMs;
    await withTimeout(client.connect(transport, { timeout }), timeout, "did not answer initialize");
    client.onclose = () => this.onClosed(client);
    responsesAfterNotifications(transport);
    return client;
  }

  /** The server went away while awl was using it: calls in flight are answered by the SDK; restart it. */
  private onClosed(client: Client): void {
    if (client !== this.client || this.closed) return;
    const stderr = this.stderrLines();
    this.client = undefined;
    void this.shutdown();
    if (Date.now() - this.readyAt >= HEALTHY_AFTER_MS) this.restarts = 0;
    this.error = `stopped${stderrSuffix(stderr)}`;
    if (this.restarts >= RESTART_DELAYS_MS.length) {
      this.state = "failed";
      this.error = `stopped ${this.restarts + 1} times in a row; awl gave up restarting it${stderrSuffix(stderr)}`;
    } else {
      this.scheduleRestart();
    }
    this.options.onChange();
  }

  private scheduleRestart(): void {
    this.state = "starting";
    const delay = RESTART_DELAYS_MS[this.restarts]!;
    this.restarts++;
    let begin!: () => void;
    this.attempt = new Promise<void>((resolve) => (begin = resolve)).then(() => this.connect());
    this.restartTimer = setTimeout(begin, delay);
    this.restartTimer.unref();
  }

  /** Runs one call. Never throws; a server that is not ready, dies or times out is an `is_error` result or a timeout. */
  async call(
    tool: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal; timeoutMs: number; onProgress?: (update: ToolProgress) => void },
  ): Promise<ToolOutcome> {
    this.start(); // a server whose start was deferred (tool-list cache) starts at its first call
    if (this.state === "starting") await untilAborted(this.attempt, options.signal, undefined);
    if (options.signal.aborted) return { status: "cancelled" };
    const client = this.client;
    if (this.state !== "ready" || !client) {
      return { status: "result", content: `the MCP server "${this.name}" is not running: ${this.error ?? this.state}`, is_error: true };
    }
    const onProgress = options.onProgress;
    // A signal per call: the SDK never removes its abort listener, and a turn's signal serves many calls.
    const callSignal = new AbortController();
    const forward = (): void => callSignal.abort();
    options.signal.addEventListener("abort", forward, { once: true });
    try {
      // The loose result schema: mapCallResult reads whatever blocks a server sends (mapping unknown ones to a notice).
      const { ResultSchema } = await import("@modelcontextprotocol/sdk/types.js");
      const result = await client.request({ method: "tools/call", params: { name: tool, arguments: args } }, ResultSchema, {
        signal: callSignal.signal,
        timeout: options.timeoutMs,
        ...(onProgress && {
          onprogress: (p: { progress: number; total?: number; message?: string }) =>
            onProgress({ kind: "progress", fraction: p.total ? Math.min(1, p.progress / p.total) : 0, ...(p.message !== undefined ? { detail: p.message } : p.total ? {} : { detail: `${p.progress}` }) }),
        }),
      });
      const mapped = mapCallResult(result as McpCallResult);
      return { status: "result", ...mapped };
    } catch (error) {
      if (options.signal.aborted) return { status: "cancelled" };
      const code = (error as { code?: unknown }).code;
      if (code === -32001) return { status: "timeout", timeout_ms: options.timeoutMs };
      if (code === -32000 || this.client !== client) {
        return { status: "result", content: `the MCP server "${this.name}" stopped during the call (awl restarts it): ${this.error ?? (error as Error).message}`, is_error: true };
      }
      return { status: "result", content: `the MCP server "${this.name}" refused the call: ${(error as Error).message}`, is_error: true };
    } finally {
      options.signal.removeEventListener("abort", forward);
    }
  }

  /** A running stdio server's process id. */
  get pid(): number | undefined {
    const transport = this.transport as ProcessTransport | undefined;
    return transport && "pid" in transport ? transport.pid : undefined;
  }

  /** The server's last stderr lines (stdio servers only). */
  stderrLines(): string[] {
    const transport = this.transport as ProcessTransport | undefined;
    return transport && "stderr" in transport ? transport.stderr.last() : [];
  }

  /** Stops the server for good (awl exits); its process tree is killed. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.restartTimer);
    // One still starting has nothing to finish: killed at once (awl is exiting, maybe right after a reply).
    if (this.state === "starting") this.kill();
    await this.shutdown();
  }

  /** Kills a stdio server's process tree at once (awl was signalled). */
  kill(): void {
    this.closed = true;
    const transport = this.transport as ProcessTransport | undefined;
    if (transport && "kill" in transport) transport.kill();
  }

  private async shutdown(): Promise<void> {
    const client = this.client;
    const transport = this.transport;
    this.client = undefined;
    if (client) client.onclose = undefined;
    await (client ? client.close() : transport?.close())?.catch(() => undefined);
  }
}

/**
 * Hands the SDK each response one microtask late. The SDK handles a notification in a microtask but a response at
 * once, and a response drops its call's progress handler: progress notifications read in the same chunk as their
 * call's result (a busy awl reads a server's pipe late) would arrive after it and be lost as "unknown token".
 * Queued behind the notifications before it, the response comes after them, as the server sent it.
 */
function responsesAfterNotifications(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) return;
  transport.onmessage = (message, extra) => {
    // JSON-RPC: a response has an id and no method (a request has both, a notification no id).
    if ("id" in message && !("method" in message)) queueMicrotask(() => deliver(message, extra));
    else deliver(message, extra);
  };
}

/**
 * Every page of `tools/list`. Read with the SDK's loose result schema, not its strict one: one tool with a bad
 * schema would make the SDK refuse the whole list, while awl refuses that tool alone (mcp-tool-set.ts).
 */
async function listTools(client: Client, timeoutMs: number): Promise<McpToolInfo[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const { ResultSchema } = await import("@modelcontextprotocol/sdk/types.js");
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.request({ method: "tools/list", ...(cursor && { params: { cursor } }) }, ResultSchema, { timeout: timeoutMs });
    const listed = Array.isArray(page.tools) ? (page.tools as unknown[]) : [];
    for (const tool of listed) {
      if (typeof tool === "object" && tool !== null && typeof (tool as McpToolInfo).name === "string" && (tool as McpToolInfo).name !== "") tools.push(tool as McpToolInfo);
    }
    cursor = typeof page.nextCursor === "string" && page.nextCursor !== "" ? page.nextCursor : undefined;
  } while (cursor);
  return tools;
}

/** A stdio server's environment: awl's own, less its API keys, plus the server's `env`. */
function stdioEnv(base: NodeJS.ProcessEnv, own: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (value !== undefined && !/^(AWL|OPENAI|ANTHROPIC)_API_KEY$/.test(key)) env[key] = value;
  }
  return { ...env, ...own };
}

function isOldProtocolAnswer(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 404 || code === 405;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

function stderrSuffix(lines: readonly string[]): string {
  return lines.length > 0 ? `\nlast stderr lines:\n${lines.map((l) => `  ${l}`).join("\n")}` : "";
}
