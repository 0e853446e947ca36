/**
 * The exec sandbox's proxy (docs/permissions.md, "Sandbox"): an HTTP proxy that awl runs for the connections a
 * sandboxed program's bridge relays (sandbox-relay.ts). `CONNECT host:port` (HTTPS, and anything tunnelled) and
 * plain `GET http://host/...` requests are allowed or refused by host: the name the program asked for, checked
 * against the `network` rules, then the address awl connects to (resolved here, so a name that resolves to a
 * loopback or private address needs a rule naming that address). A refusal is a `403` whose status line, an
 * `X-Awl-Denied` header and body say why and which rule would allow it. Nothing else is spoken: no SOCKS, no raw
 * TCP or UDP, no DNS.
 */
import { lookup } from "node:dns/promises";
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect, isIP } from "node:net";
import type { Duplex } from "node:stream";

/** Why a connection to `host:port` (at `address`, once resolved) may not be made; undefined: it may. */
export type HostRefusal = (host: string, port: number, address?: string) => string | undefined;

/** Request headers meant for the proxy itself, not passed on. */
const PROXY_HEADERS = new Set(["proxy-connection", "proxy-authorization", "proxy-authenticate"]);

/** An HTTP proxy server (never listening: connections are handed to it with `emit("connection", …)`). */
export function sandboxProxy(refusal: HostRefusal): Server {
  const server = createServer((req, res) => void forward(req, res, refusal));
  server.on("connect", (req: IncomingMessage, socket: Duplex, head: Buffer) => void tunnel(req, socket, head, refusal));
  server.on("clientError", (_error, socket: Duplex) => socket.destroy());
  return server;
}

/** `CONNECT host:port`: a tunnel to an allowed host. */
async function tunnel(req: IncomingMessage, socket: Duplex, head: Buffer, refusal: HostRefusal): Promise<void> {
  socket.on("error", () => undefined);
  const target = targetOf(`http://${req.url ?? ""}`);
  if (!target || target.path !== "/") return refuseRaw(socket, 400, `the CONNECT target ${JSON.stringify(req.url)} is not host:port`);
  const checked = await checkedAddress(target.host, target.port, refusal);
  if ("refused" in checked) return refuseRaw(socket, checked.status, checked.refused);
  const upstream = connect({ host: checked.address, port: target.port });
  upstream.on("connect", () => {
    socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0) upstream.write(head);
    upstream.pipe(socket);
    socket.pipe(upstream);
  });
  upstream.on("error", (e) => (upstream.bytesRead === 0 && !socket.writableEnded ? refuseRaw(socket, 502, `cannot connect to ${req.url}: ${e.message}`) : socket.destroy()));
  socket.on("close", () => upstream.destroy());
}

/** A plain HTTP request in absolute form (`GET http://host/path`): passed on to an allowed host. */
async function forward(req: IncomingMessage, res: ServerResponse, refusal: HostRefusal): Promise<void> {
  const target = targetOf(req.url ?? "");
  if (!target) return refuse(res, 400, `the sandbox's proxy takes http://host/... requests and CONNECT, not ${JSON.stringify(req.url)}`);
  const checked = await checkedAddress(target.host, target.port, refusal);
  if ("refused" in checked) return refuse(res, checked.status, checked.refused);
  const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !PROXY_HEADERS.has(name)));
  const upstream = httpRequest({ host: checked.address, port: target.port, method: req.method, path: target.path, headers, setHost: false }, (reply) => {
    res.writeHead(reply.statusCode ?? 502, reply.statusMessage, reply.rawHeaders);
    reply.pipe(res);
  });
  upstream.on("error", (e) => (res.headersSent ? res.destroy() : refuse(res, 502, `cannot reach ${target.host}:${target.port}: ${e.message}`)));
  req.pipe(upstream);
}

/** The host, port and path of an `http://` URL; undefined when it is none. */
function targetOf(text: string): { host: string; port: number; path: string } | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" || !url.hostname) return undefined;
  return { host: url.hostname.replace(/^\[(.*)\]$/, "$1"), port: url.port ? Number(url.port) : 80, path: `${url.pathname}${url.search}` };
}

/** The address to connect to for an allowed host, or why not (the name first, then the address it resolves to). */
async function checkedAddress(host: string, port: number, refusal: HostRefusal): Promise<{ address: string } | { refused: string; status: number }> {
  const byName = refusal(host, port);
  if (byName) return { refused: byName, status: 403 };
  let address = host;
  if (isIP(host) === 0) {
    try {
      address = (await lookup(host)).address;
    } catch (e) {
      return { refused: `cannot resolve ${host}: ${(e as Error).message}`, status: 502 };
    }
  }
  const byAddress = refusal(host, port, address);
  return byAddress ? { refused: byAddress, status: 403 } : { address };
}

/** A refusal that the program prints: the status line and a header hold the reason too (some clients show only those). */
function refuse(res: ServerResponse, status: number, reason: string): void {
  const body = `awl sandbox: ${reason}\n`;
  res.writeHead(status, statusText(status, reason), { "content-type": "text/plain; charset=utf-8", "content-length": Buffer.byteLength(body), "x-awl-denied": headerText(reason), connection: "close" });
  res.end(body);
}

function refuseRaw(socket: Duplex, status: number, reason: string): void {
  const body = `awl sandbox: ${reason}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${statusText(status, reason)}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
      `x-awl-denied: ${headerText(reason)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

function statusText(status: number, reason: string): string {
  return `${status === 403 ? "Forbidden" : status === 400 ? "Bad Request" : "Bad Gateway"} (awl sandbox: ${headerText(reason)})`;
}

/** The reason as header text: printable ASCII on one line. */
function headerText(reason: string): string {
  return reason.replace(/[^\x20-\x7e]/g, "?");
}
