/**
 * A local HTTP server that replays scripted responses byte for byte, for provider tests.
 *
 * ```ts
 * const server = await startReplayServer();
 * server.enqueue(
 *   { status: 429, headers: { "retry-after-ms": "10" }, body: '{"error":{"message":"slow down"}}' },
 *   { body: splitEveryByte(sseData([{ choices: [...] }, "[DONE]"])) },
 * );
 * // ... point the provider at server.url, then:
 * expect(server.requests[1]!.json()).toMatchObject({ stream: true });
 * await server.close();
 * ```
 *
 * Responses are served in order, one per request; a request with nothing left in the queue gets a 500 whose
 * body says so (tests fail loudly instead of hanging). Each body piece is written with its own `write`, so the
 * client sees it as its own read (chunked transfer encoding keeps the boundaries), after its optional gate and delay.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { afterAll, beforeAll, beforeEach, expect } from "vitest";

/**
 * A piece of body: bytes or text (sent as UTF-8), optionally after a pause, or once `after` settles (a gate the
 * test opens when it has seen what it waits for: a stream held mid-way, however slow the machine).
 */
export type Piece = Buffer | string | { data: Buffer | string; delayMs?: number; after?: Promise<unknown> };

/** A gate for a piece's `after`: the pieces behind it wait until the test calls `open()`. */
export function bodyGate(): { until: Promise<void>; open: () => void } {
  let open!: () => void;
  const until = new Promise<void>((resolve) => (open = resolve));
  return { until, open };
}

/**
 * How a response ends:
 * - `"end"` (default): the body ends cleanly;
 * - `"kill"`: the socket is destroyed right after the last piece (a connection lost mid-body);
 * - `"stall"`: status, headers and pieces are sent, then nothing more, ever;
 * - `"hang"`: the request is accepted and never answered (not even a status line).
 */
export type Ending = "end" | "kill" | "stall" | "hang";

export interface ScriptedResponse {
  /** Default 200. */
  status?: number;
  /** Default `{"content-type": "text/event-stream"}` when omitted; give `{}` for no headers at all. */
  headers?: Record<string, string | string[]>;
  /** One string/Buffer (one write), or a list of pieces (one write each). */
  body?: Piece | Piece[];
  ending?: Ending;
}

/** A request the server received. */
export interface LoggedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** `JSON.parse(body)`. */
  json(): any;
}

export interface ReplayServer {
  /** `http://127.0.0.1:PORT` (no trailing slash). */
  readonly url: string;
  readonly port: number;
  /** Every request so far, in arrival order. */
  readonly requests: LoggedRequest[];
  /** Appends responses to the queue. */
  enqueue(...responses: ScriptedResponse[]): void;
  /** Responses not yet served. */
  pending(): number;
  /** Resolves once `count` requests have arrived. */
  waitForRequests(count: number): Promise<void>;
  /** Destroys every open connection (hanging and stalled ones too) and stops listening. */
  close(): Promise<void>;
}

/** Starts a server on 127.0.0.1 with an ephemeral port. */
export async function startReplayServer(): Promise<ReplayServer> {
  const queue: ScriptedResponse[] = [];
  const requests: LoggedRequest[] = [];
  const sockets = new Set<Socket>();
  const waiters: Array<{ count: number; resolve: () => void }> = [];

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body, json: () => JSON.parse(body) });
      for (const waiter of waiters.filter((w) => requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      const scripted = queue.shift() ?? {
        status: 500,
        headers: { "content-type": "text/plain" },
        body: `replay-server: no scripted response left for request #${requests.length} (${req.method} ${req.url})`,
      };
      void play(scripted, res);
    });
  });
  server.on("connection", (socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("replay-server: no TCP address");

  return {
    url: `http://127.0.0.1:${address.port}`,
    port: address.port,
    requests,
    enqueue: (...responses) => void queue.push(...responses),
    pending: () => queue.length,
    waitForRequests: (count) =>
      requests.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve })),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function play(scripted: ScriptedResponse, res: ServerResponse): Promise<void> {
  const ending = scripted.ending ?? "end";
  if (ending === "hang") return;
  res.writeHead(scripted.status ?? 200, scripted.headers ?? { "content-type": "text/event-stream" });
  res.flushHeaders();
  const pieces = scripted.body === undefined ? [] : Array.isArray(scripted.body) ? scripted.body : [scripted.body];
  for (const piece of pieces) {
    const { data, delayMs, after } = typeof piece === "string" || Buffer.isBuffer(piece) ? { data: piece, delayMs: 0, after: undefined } : piece;
    if (after) await after.catch(() => undefined);
    if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (res.destroyed) return;
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    if (bytes.length > 0) res.write(bytes);
  }
  if (ending === "end") res.end();
  else if (ending === "kill") {
    // Let the last write reach the socket before it dies, so the client really sees a cut mid-body.
    await new Promise((resolve) => setImmediate(resolve));
    res.socket?.destroy();
  }
  // "stall": nothing more; close() destroys the socket.
}

/** Splits bytes (or UTF-8 text) at the given byte offsets, in any order; offsets out of range are ignored. */
export function splitAt(data: Buffer | string, offsets: readonly number[]): Buffer[] {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  const cuts = [...new Set(offsets)].filter((o) => o > 0 && o < bytes.length).sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let start = 0;
  for (const cut of cuts) {
    pieces.push(bytes.subarray(start, cut));
    start = cut;
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}

/** One piece per byte. */
export function splitEveryByte(data: Buffer | string): Buffer[] {
  return splitEvery(data, 1);
}

/** Pieces of `size` bytes (the last may be shorter). */
export function splitEvery(data: Buffer | string, size: number): Buffer[] {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  const pieces: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) pieces.push(bytes.subarray(i, i + size));
  return pieces;
}

/** Byte offsets that fall inside a multi-byte UTF-8 sequence (cutting there splits a character). */
export function utf8InteriorOffsets(data: Buffer | string): number[] {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  const offsets: number[] = [];
  for (let i = 1; i < bytes.length; i++) if ((bytes[i]! & 0xc0) === 0x80) offsets.push(i);
  return offsets;
}

/** Byte offsets between a CR and the LF after it (cutting there splits a CRLF line ending). */
export function crlfOffsets(data: Buffer | string): number[] {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  const offsets: number[] = [];
  for (let i = 1; i < bytes.length; i++) if (bytes[i - 1] === 0x0d && bytes[i] === 0x0a) offsets.push(i);
  return offsets;
}

/** Byte offsets just after each occurrence of `needle` (e.g. `'"arguments":"'` to cut mid-JSON). */
export function offsetsAfter(data: Buffer | string, needle: string): number[] {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  const offsets: number[] = [];
  for (let i = bytes.indexOf(needle); i !== -1; i = bytes.indexOf(needle, i + 1)) offsets.push(i + Buffer.byteLength(needle));
  return offsets;
}

/** One SSE event for {@link sseEvents}; a non-string `data` is JSON-encoded. */
export interface SseEventSpec {
  event?: string;
  data: unknown;
}

/**
 * Builds an SSE body from events with optional names (Anthropic style), `eol` being the line ending.
 * Multi-line data becomes several `data:` lines.
 */
export function sseEvents(events: ReadonlyArray<SseEventSpec>, eol: "\n" | "\r\n" | "\r" = "\n"): string {
  return events
    .map((spec) => {
      const data = typeof spec.data === "string" ? spec.data : JSON.stringify(spec.data);
      const lines = spec.event === undefined ? [] : [`event: ${spec.event}`];
      for (const line of data.split("\n")) lines.push(`data: ${line}`);
      return lines.join(eol) + eol + eol;
    })
    .join("");
}

/** Builds an SSE body of unnamed events (OpenAI style): `sseData([{ choices: [] }, "[DONE]"])`. */
export function sseData(payloads: ReadonlyArray<unknown>, eol: "\n" | "\r\n" | "\r" = "\n"): string {
  return sseEvents(payloads.map((data) => ({ data })), eol);
}

/**
 * One replay server for a whole test file: started before its tests, closed after them, its request log cleared
 * before each test (which first checks that the test before used up everything it queued).
 */
export function sharedReplayServer(): { readonly server: ReplayServer } {
  let server: ReplayServer | undefined;
  beforeAll(async () => {
    server = await startReplayServer();
  });
  afterAll(() => server?.close());
  beforeEach(() => {
    server!.requests.length = 0;
    expect(server!.pending()).toBe(0);
  });
  return {
    get server() {
      if (!server) throw new Error("sharedReplayServer(): the server exists only inside a test");
      return server;
    },
  };
}
