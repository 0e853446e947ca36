/**
 * A local OpenAI-compatible server whose answers depend on the request (its system prompt, its messages), for
 * conversations that run side by side (sub-agents): the test's `route` decides each response, and may hold it
 * until something else happened (another request arrived). Requests are logged in arrival order.
 */
import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";

/** One request as the server got it: the parsed body, and its system prompt (first system message). */
export interface RoutedRequest {
  json: any;
  system: string;
  /** The conversation's messages after the system prompt. */
  messages: any[];
  /** Names of the tools offered. */
  tools: string[];
}

/** A response: SSE text (see `openaiText` / `openaiToolCalls`), or an HTTP error. */
export type Routed = string | { status: number; body: string };

export interface RoutingServer {
  url: string;
  requests: RoutedRequest[];
  /** Resolves once a request matching `test` has arrived (at once if one has). */
  waitFor(test: (r: RoutedRequest) => boolean): Promise<RoutedRequest>;
  close(): Promise<void>;
}

export async function startRoutingServer(route: (request: RoutedRequest, server: RoutingServer) => Routed | Promise<Routed>): Promise<RoutingServer> {
  const requests: RoutedRequest[] = [];
  const sockets = new Set<Socket>();
  const waiters: { test: (r: RoutedRequest) => boolean; resolve: (r: RoutedRequest) => void }[] = [];
  // eslint-disable-next-line prefer-const
  let self: RoutingServer;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const json = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
      const all: any[] = json.messages ?? [];
      const system = all[0]?.role === "system" ? String(all[0].content) : "";
      const request: RoutedRequest = {
        json,
        system,
        messages: all[0]?.role === "system" ? all.slice(1) : all,
        tools: (json.tools ?? []).map((t: any) => t.function?.name ?? t.name),
      };
      requests.push(request);
      for (const w of [...waiters]) {
        if (!w.test(request)) continue;
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(request);
      }
      void Promise.resolve(route(request, self)).then((answer) => {
        if (res.destroyed) return;
        if (typeof answer === "string") {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.end(answer);
        } else {
          res.writeHead(answer.status, { "content-type": "application/json" });
          res.end(answer.body);
        }
      });
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("routing-server: no TCP address");
  self = {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    waitFor(test) {
      const seen = requests.find(test);
      return seen ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ test, resolve }));
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  return self;
}

/** Text of a message's content, whatever its shape (a string or parts). */
export function contentText(message: any): string {
  if (typeof message?.content === "string") return message.content;
  if (Array.isArray(message?.content)) return message.content.map((p: any) => p.text ?? "").join("");
  return "";
}
