/**
 * The exec sandbox's way out to its proxy (docs/permissions.md, "Sandbox"). A sandboxed program that may reach
 * some host has no network namespace of the machine's (`--unshare-net`): a bridge started inside the sandbox with
 * awl's own node listens on `127.0.0.1:PORT` there, starts the program with `HTTP_PROXY` and friends naming that
 * port, and carries each connection it accepts over one socket-pair descriptor it inherited from awl (fd N). No
 * Unix socket is made or named inside the sandbox (the seccomp filter refuses them all, the bridge's included):
 * what reaches awl is only frames on that descriptor, and awl's end ({@link RelayEnd}) hands each connection to
 * the proxy (sandbox-proxy.ts), which decides its host.
 *
 * A frame: kind (1 byte), connection id (4 bytes), payload length (4 bytes, big-endian), payload. Kinds: OPEN (a
 * new connection), DATA, END (no more data from this side), CLOSE (gone).
 */
import { Duplex } from "node:stream";

const OPEN = 1;
const DATA = 2;
const END = 3;
const CLOSE = 4;
const HEAD = 9;

/**
 * The bridge, run inside the sandbox as `node -e BRIDGE_SCRIPT FD PROGRAM ARGS...`: listens, starts the program
 * with the proxy variables, relays, and exits as the program did. Loopback stays the sandbox's own (`NO_PROXY`).
 */
export const BRIDGE_SCRIPT = `"use strict";
const net = require("net");
const { spawn } = require("child_process");
const relay = new net.Socket({ fd: Number(process.argv[1]), readable: true, writable: true });
const sockets = new Map();
let next = 1;
let buffered = Buffer.alloc(0);
function send(kind, id, data) {
  const head = Buffer.alloc(${HEAD});
  head[0] = kind;
  head.writeUInt32BE(id, 1);
  head.writeUInt32BE(data ? data.length : 0, 5);
  return relay.writable ? relay.write(data ? Buffer.concat([head, data]) : head) : true;
}
relay.on("data", (chunk) => {
  buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
  while (buffered.length >= ${HEAD} && buffered.length >= ${HEAD} + buffered.readUInt32BE(5)) {
    const kind = buffered[0], id = buffered.readUInt32BE(1), end = ${HEAD} + buffered.readUInt32BE(5);
    const data = buffered.subarray(${HEAD}, end);
    buffered = buffered.subarray(end);
    const socket = sockets.get(id);
    if (!socket) continue;
    if (kind === ${DATA} && !socket.write(data)) {
      relay.pause();
      socket.once("drain", () => relay.resume());
    } else if (kind === ${END}) socket.end();
    else if (kind === ${CLOSE}) {
      sockets.delete(id);
      socket.destroy();
    }
  }
});
relay.on("error", () => {});
relay.on("close", () => { for (const socket of sockets.values()) socket.destroy(); sockets.clear(); });
const server = net.createServer({ allowHalfOpen: true }, (socket) => {
  const id = next++;
  sockets.set(id, socket);
  send(${OPEN}, id);
  socket.on("data", (data) => {
    if (!send(${DATA}, id, data)) {
      socket.pause();
      relay.once("drain", () => socket.resume());
    }
  });
  socket.on("end", () => send(${END}, id));
  socket.on("error", () => {});
  socket.on("close", () => { if (sockets.delete(id)) send(${CLOSE}, id); });
});
server.listen(0, "127.0.0.1", () => {
  const proxy = "http://127.0.0.1:" + server.address().port;
  const env = { ...process.env };
  for (const name of ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"]) env[name] = env[name.toLowerCase()] = proxy;
  env.NO_PROXY = env.no_proxy = "localhost,127.0.0.1,::1";
  env.NODE_USE_ENV_PROXY = "1";
  const child = spawn(process.argv[2], process.argv.slice(3), { stdio: "inherit", env });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  child.on("error", (e) => { process.stderr.write(process.argv[2] + ": " + e.message + "\\n"); process.exit(127); });
  child.on("exit", (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code === null ? 128 + (require("os").constants.signals[signal] || 0) : code);
  });
});
`;

/** awl's end of a bridge's descriptor: each connection the bridge opens arrives as a Duplex. */
export class RelayEnd {
  private readonly connections = new Map<number, Duplex>();
  /** Connections whose reader has enough for now: the descriptor is paused until none is left. */
  private readonly stalled = new Set<number>();
  private buffered: Buffer = Buffer.alloc(0);

  constructor(
    private readonly stream: Duplex,
    private readonly onConnection: (connection: Duplex) => void,
  ) {
    stream.on("data", (chunk: Buffer) => this.received(chunk));
    stream.on("error", () => undefined);
    stream.on("close", () => {
      for (const connection of this.connections.values()) connection.destroy();
      this.connections.clear();
    });
  }

  private received(chunk: Buffer): void {
    this.buffered = this.buffered.length > 0 ? Buffer.concat([this.buffered, chunk]) : chunk;
    while (this.buffered.length >= HEAD && this.buffered.length >= HEAD + this.buffered.readUInt32BE(5)) {
      const kind = this.buffered[0];
      const id = this.buffered.readUInt32BE(1);
      const end = HEAD + this.buffered.readUInt32BE(5);
      const data = this.buffered.subarray(HEAD, end);
      this.buffered = this.buffered.subarray(end);
      if (kind === OPEN) this.open(id);
      const connection = this.connections.get(id);
      if (!connection) continue;
      if (kind === DATA && !connection.push(data)) {
        this.stalled.add(id);
        this.stream.pause();
      } else if (kind === END) connection.push(null);
      else if (kind === CLOSE) {
        this.connections.delete(id);
        connection.destroy();
      }
    }
  }

  private open(id: number): void {
    const connection = new Duplex({
      allowHalfOpen: true,
      read: () => {
        this.stalled.delete(id);
        if (this.stalled.size === 0) this.stream.resume();
      },
      write: (chunk: Buffer, _encoding, done) => this.send(DATA, id, chunk, done),
      final: (done) => this.send(END, id, undefined, done),
      destroy: (error, done) => {
        this.stalled.delete(id);
        if (this.stalled.size === 0) this.stream.resume();
        if (this.connections.delete(id)) this.send(CLOSE, id, undefined, () => undefined);
        done(error);
      },
    });
    this.connections.set(id, connection);
    this.onConnection(connection);
  }

  /** Sends a frame; `done` once the descriptor takes more (backpressure per connection). */
  private send(kind: number, id: number, data: Buffer | undefined, done: () => void): void {
    if (!this.stream.writable) return done();
    const head = Buffer.alloc(HEAD);
    head[0] = kind;
    head.writeUInt32BE(id, 1);
    head.writeUInt32BE(data?.length ?? 0, 5);
    if (this.stream.write(data ? Buffer.concat([head, data]) : head)) done();
    else this.stream.once("drain", done);
  }
}
