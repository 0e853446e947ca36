/**
 * A local web site for the web tests: routes answered by handlers, on 127.0.0.1 (HTTP, or HTTPS with a certificate
 * made for the test and its CA, passed to awl through NODE_EXTRA_CA_CERTS). Nothing leaves the machine.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { Socket } from "node:net";
import { join } from "node:path";
import { tempDir } from "../support/temp-dir.js";

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

export interface Site {
  url: string;
  port: number;
  /** Requests seen, in order: method, path, headers. */
  seen: { method: string; path: string; headers: IncomingMessage["headers"]; body: string }[];
  route(path: string, handler: Handler): void;
  close(): Promise<void>;
}

export async function startSite(tls?: { key: string; cert: string }): Promise<Site> {
  const routes = new Map<string, Handler>();
  const seen: Site["seen"] = [];
  const sockets = new Set<Socket>();
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const path = (req.url ?? "/").split("?")[0]!;
      seen.push({ method: req.method ?? "", path: req.url ?? "/", headers: req.headers, body });
      const handler = routes.get(path);
      if (!handler) {
        res.writeHead(404, { "content-type": "text/plain" }).end("not found");
        return;
      }
      handler(req, res, body);
    });
  };
  const server: Server = tls ? createHttpsServer(tls, listener) : createHttpServer(listener);
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `${tls ? "https" : "http"}://127.0.0.1:${port}`,
    port,
    seen,
    route: (path, handler) => routes.set(path, handler),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A CA and a certificate for 127.0.0.1 and localhost signed by it (openssl), in a temp folder. */
export function testCertificates(): { caFile: string; key: string; cert: string } {
  const dir = tempDir("awl-tls-");
  const run = (args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  run(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=awl test CA"]);
  run(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "site.key", "-out", "site.csr", "-subj", "/CN=127.0.0.1"]);
  writeFileSync(join(dir, "ext.cnf"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  run(["x509", "-req", "-in", "site.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "site.pem", "-days", "2", "-extfile", "ext.cnf"]);
  return { caFile: join(dir, "ca.pem"), key: readFileSync(join(dir, "site.key"), "utf8"), cert: readFileSync(join(dir, "site.pem"), "utf8") };
}

/** Another name for 127.0.0.1 in /etc/hosts than localhost (a DNS name that resolves to loopback), if there is one. */
export function loopbackAlias(): string | undefined {
  try {
    for (const line of readFileSync("/etc/hosts", "utf8").split("\n")) {
      const [address, ...names] = line.replace(/#.*/, "").trim().split(/\s+/);
      if (address !== "127.0.0.1") continue;
      const name = names.find((n) => n && n !== "localhost" && !n.endsWith(".localhost") && !n.includes("localhost"));
      if (name) return name;
    }
  } catch {
    // no hosts file
  }
  return undefined;
}
