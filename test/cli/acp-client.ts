/** Drives the built `awl acp` with the ACP SDK's own client side, as an editor would. */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { tmpdir } from "node:os";
import { client, ndJsonStream, PROTOCOL_VERSION, type ClientCapabilities, type ClientContext, type SessionNotification, type RequestPermissionResponse, type RequestPermissionRequest, type ReadTextFileRequest, type WriteTextFileRequest } from "@agentclientprotocol/sdk";
import { startReplayServer, type ReplayServer } from "../support/replay-server.js";
import { AWL, tempDir } from "./run-awl.js";

export interface AcpProcess {
  child: ChildProcessWithoutNullStreams;
  /** Every session/update received, in order. */
  updates: SessionNotification[];
  /** Every byte awl wrote to the client so far (its stdout), as text. */
  stdout(): string;
  stderr(): string;
  exit: Promise<number | null>;
  /** Resolves once an update matching `match` has come (from index `from` on). */
  waitForUpdate(match: (n: SessionNotification) => boolean, from?: number): Promise<SessionNotification>;
}

export interface ClientHandlers {
  capabilities?: ClientCapabilities;
  permission?(request: RequestPermissionRequest): RequestPermissionResponse | Promise<RequestPermissionResponse>;
  readTextFile?(request: ReadTextFileRequest): { content: string };
  writeTextFile?(request: WriteTextFileRequest): void;
}

/**
 * Spawns `awl acp` in `cwd` with `home` as HOME, connects, initializes, and runs `op`; then closes awl's stdin
 * (an editor going away) and waits for it to exit, which must be with code 0.
 */
export async function withAcp<T>(
  options: { home: string; cwd: string; env: Record<string, string>; args?: string[]; handlers?: ClientHandlers },
  op: (ctx: ClientContext, awl: AcpProcess) => Promise<T>,
): Promise<T> {
  mkdirSync(options.home, { recursive: true });
  const child = spawn(process.execPath, [AWL, "acp", ...(options.args ?? [])], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "", TMPDIR: tmpdir(), HOME: options.home, XDG_CONFIG_HOME: join(options.home, ".config"), ...options.env },
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const written: Buffer[] = [];
  child.stdout.on("data", (d: Buffer) => written.push(d));
  const exit = new Promise<number | null>((resolve) => child.on("close", resolve));
  const updates: SessionNotification[] = [];
  const waiters: (() => void)[] = [];
  const handlers = options.handlers ?? {};
  const app = client({ name: "test-editor" }).onNotification("session/update", ({ params }) => {
    updates.push(params);
    for (const wake of waiters.splice(0)) wake();
  });
  if (handlers.permission) app.onRequest("session/request_permission", ({ params }) => handlers.permission!(params));
  if (handlers.readTextFile) app.onRequest("fs/read_text_file", ({ params }) => handlers.readTextFile!(params));
  if (handlers.writeTextFile) app.onRequest("fs/write_text_file", ({ params }) => void handlers.writeTextFile!(params));
  const awl: AcpProcess = {
    child,
    updates,
    stdout: () => Buffer.concat(written).toString("utf8"),
    stderr: () => stderr,
    exit,
    async waitForUpdate(match, from = 0) {
      for (;;) {
        const found = updates.slice(from).find(match);
        if (found) return found;
        if (child.exitCode !== null) throw new Error(`awl acp exited (${child.exitCode}); stderr: ${stderr}`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
  const stream = ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>);
  const value = await app.connectWith(stream, async (ctx) => {
    await ctx.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: handlers.capabilities ?? {} });
    return op(ctx, awl);
  });
  child.stdin.end();
  const code = await exit;
  if (code !== 0) throw new Error(`awl acp exited with ${code}; stderr: ${stderr}`);
  return value;
}

/** The text of the agent's message chunks among `updates`. */
export function agentText(updates: readonly SessionNotification[]): string {
  return updates.map((n) => (n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text" ? n.update.content.text : "")).join("");
}

/** A replay server and a fresh home and project folder (`prefix` names the temporary root), for one test. */
export async function acpPlaces(prefix: string): Promise<{ server: ReplayServer; home: string; cwd: string }> {
  const root = tempDir(prefix);
  const cwd = join(root, "project");
  mkdirSync(cwd, { recursive: true });
  return { server: await startReplayServer(), home: join(root, "home"), cwd };
}
