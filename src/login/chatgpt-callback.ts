/**
 * The localhost page OpenAI's sign-in sends the browser back to (`http://localhost:1455/auth/callback`, else 1457,
 * the redirects registered for the codex CLI's client): it checks `state`, takes the authorization code and tells
 * the browser to return to the terminal. A pasted redirect URL (a browser on another machine) is read the same way.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { CALLBACK_PATH } from "./chatgpt.js";
import type { LoginResult } from "./types.js";

export interface CallbackServer {
  redirectUri: string;
  /** Settles with the code once a callback with the right state came, or with the error the page reported. */
  code: Promise<LoginResult<string>>;
  /** The code from a redirect URL the user pasted; undefined when the text is not one for this sign-in. */
  fromPasted(text: string): LoginResult<string> | undefined;
  close(): void;
}

const DONE_PAGE = "<!doctype html><meta charset=utf-8><title>awl</title><p>Signed in to ChatGPT. You can close this tab and return to the terminal.</p>";

/** Listens on the first free port of `ports` (0: any, for tests) on the loopback address. */
export async function startCallbackServer(state: string, ports: readonly number[]): Promise<LoginResult<CallbackServer>> {
  let settle!: (result: LoginResult<string>) => void;
  const code = new Promise<LoginResult<string>>((resolve) => (settle = resolve));
  const read = (url: URL): LoginResult<string> | "wrong-state" => {
    if (url.searchParams.get("state") !== state) return "wrong-state";
    const error = url.searchParams.get("error");
    if (error) return { ok: false, message: `the sign-in page reported ${error}${url.searchParams.get("error_description") ? `: ${url.searchParams.get("error_description")}` : ""}` };
    const given = url.searchParams.get("code");
    return given ? { ok: true, value: given } : { ok: false, message: "the sign-in page sent no authorization code" };
  };
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    if (url.pathname !== CALLBACK_PATH) {
      response.writeHead(404).end("Not found");
      return;
    }
    const result = read(url);
    // A callback with another state was not started by this sign-in (another page's forgery): refused, still waiting.
    if (result === "wrong-state") {
      response.writeHead(400, { "content-type": "text/plain" }).end("State mismatch");
      return;
    }
    response.writeHead(result.ok ? 200 : 400, { "content-type": "text/html; charset=utf-8", connection: "close" }).end(result.ok ? DONE_PAGE : `<p>${escapeHtml(result.message)}</p>`);
    settle(result);
  });
  let port: number | undefined;
  let lastError = "";
  for (const candidate of ports) {
    const bound = await listen(server, candidate);
    if (bound === true) {
      port = (server.address() as AddressInfo).port;
      break;
    }
    lastError = bound;
  }
  if (port === undefined) return { ok: false, message: `no port for the sign-in page (${ports.join(", ")}: ${lastError}); another sign-in may be running` };
  return {
    ok: true,
    value: {
      redirectUri: `http://localhost:${port}${CALLBACK_PATH}`,
      code,
      fromPasted(text) {
        let url: URL;
        try {
          url = new URL(text.trim());
        } catch {
          return undefined;
        }
        const result = read(url);
        return result === "wrong-state" ? undefined : result;
      },
      close: () => {
        server.closeAllConnections();
        server.close();
      },
    },
  };
}

function listen(server: Server, port: number): Promise<true | string> {
  return new Promise((resolve) => {
    const failed = (error: NodeJS.ErrnoException): void => resolve(error.code ?? error.message);
    server.once("error", failed);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", failed);
      resolve(true);
    });
  });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
