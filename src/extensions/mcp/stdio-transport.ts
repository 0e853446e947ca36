/**
 * The stdio transport for MCP servers: the SDK's framing (`ReadBuffer`, `serializeMessage`) over a child process
 * that awl owns. Unlike the SDK's own `StdioClientTransport`, the server runs in its own process group, so closing
 * it (or awl's exit) kills the whole tree a server started (`npx`, shells, language servers), and its stderr is
 * kept as a short tail for the message when it fails. A line on stdout that is not JSON-RPC is reported once as
 * an error and skipped; the server keeps serving.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { StderrTail } from "./stderr-tail.js";

export interface StdioServerSpawn {
  command: string;
  args: readonly string[];
  env: Record<string, string>;
  cwd: string;
}

/** The largest message awl takes from a server (results above the result limit are spilled to a file anyway). */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** How long a server may take to exit after its stdin closed (then SIGTERM), and after SIGTERM (then SIGKILL). */
const STDIN_GRACE_MS = 100;
const TERM_GRACE_MS = 400;

/** Process groups of running servers: killed synchronously when awl exits, whatever else happens. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** Kills every MCP server process group still running (awl is exiting or was signalled). */
export function killAllServerProcesses(): void {
  for (const pid of liveGroups) killGroup(pid, "SIGKILL");
  liveGroups.clear();
}

export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly stderr = new StderrTail();
  private child: ChildProcess | undefined;
  /** The bytes of the line being received, in pieces (a 10 MB result must not be re-copied per chunk). */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private exited: Promise<void> = Promise.resolve();
  private garbageReported = false;

  constructor(private readonly params: StdioServerSpawn) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.on("exit", killAllServerProcesses);
    }
    return new Promise((resolve, reject) => {
      const child = spawn(this.params.command, [...this.params.args], {
        cwd: this.params.cwd,
        env: this.params.env,
        detached: true, // its own process group: closing kills everything it started
        stdio: ["pipe", "pipe", "pipe"],
      });
      this.child = child;
      this.exited = new Promise((done) => child.once("close", () => done()));
      child.once("error", (error: NodeJS.ErrnoException) => {
        const message = error.code === "ENOENT" ? `the command "${this.params.command}" was not found (PATH or cwd ${this.params.cwd})` : `cannot start "${this.params.command}": ${error.message}`;
        const failure = new Error(message);
        reject(failure);
        this.onerror?.(failure);
      });
      child.once("spawn", () => {
        if (child.pid !== undefined) liveGroups.add(child.pid);
        resolve();
      });
      child.once("close", () => {
        if (child.pid !== undefined) liveGroups.delete(child.pid);
        if (this.child === child) this.child = undefined;
        this.onclose?.();
      });
      child.stdin!.on("error", (error) => this.onerror?.(error));
      child.stdout!.on("data", (chunk: Buffer) => this.receive(chunk));
      child.stderr!.on("data", (chunk: Buffer) => this.stderr.push(chunk));
    });
  }

  /** Splits stdout into lines (the SDK's framing: one JSON-RPC message per line) without re-copying long ones. */
  private receive(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      this.pending.push(chunk.subarray(start, end));
      const line = Buffer.concat(this.pending).toString("utf8").replace(/\r$/, "");
      this.pending = [];
      this.pendingBytes = 0;
      start = end + 1;
      if (line.trim() !== "") this.dispatch(line);
    }
    if (start < chunk.length) {
      this.pendingBytes += chunk.length - start;
      if (this.pendingBytes > MAX_MESSAGE_BYTES) {
        // One message too large to hold: the connection cannot be trusted to frame the rest.
        this.pending = [];
        this.pendingBytes = 0;
        this.onerror?.(new Error(`sent a message larger than ${MAX_MESSAGE_BYTES / 1024 / 1024} MB; awl stops it`));
        this.kill();
        return;
      }
      this.pending.push(chunk.subarray(start));
    }
  }

  private dispatch(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (error) {
      // A line that is not JSON-RPC (a server that logs to stdout): skipped, told once.
      if (!this.garbageReported) {
        this.garbageReported = true;
        this.onerror?.(new Error(`printed something that is not MCP on stdout (${(error as Error).message.split("\n")[0]}); servers must log to stderr`));
      }
      return;
    }
    this.onmessage?.(message);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) return Promise.reject(new Error("the server process is not running"));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /** Closes stdin, then SIGTERM, then SIGKILL to the whole group, each after a short grace. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child || child.pid === undefined) return;
    const pid = child.pid;
    const waitExit = (ms: number): Promise<boolean> =>
      Promise.race([this.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
    child.stdin?.end();
    if (!(await waitExit(STDIN_GRACE_MS))) {
      killGroup(pid, "SIGTERM");
      if (!(await waitExit(TERM_GRACE_MS))) killGroup(pid, "SIGKILL");
    }
    // The server is gone; its children may not be: the group goes too.
    killGroup(pid, "SIGKILL");
    await waitExit(TERM_GRACE_MS);
    liveGroups.delete(pid);
    this.pending = [];
  }

  /** Kills the whole group at once (a restart after a hang, or awl being signalled). */
  kill(): void {
    const pid = this.child?.pid;
    if (pid !== undefined) {
      killGroup(pid, "SIGKILL");
      liveGroups.delete(pid);
    }
  }
}
