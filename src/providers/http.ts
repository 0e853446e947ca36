/**
 * One streaming HTTP POST over node:http / node:https (not global fetch: it costs ~50 ms of start-up).
 * The caller sees the response head, then every body read as it arrives, synchronously (no added latency).
 * Failures come back as values: `network` before any response, `stalled` when no response head arrives
 * within `firstByteTimeoutMs` or no byte for `stallTimeoutMs`, `truncated` when the connection dies mid-body, `aborted` on the signal.
 */
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { providerError, type ProviderError } from "./errors.js";
import { describeUrl } from "./classify-http-error.js";

export interface PostRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  signal?: AbortSignal;
  /** No byte (head or body) for this long is a `stalled` error. 0 or Infinity disables it. */
  stallTimeoutMs: number;
  /** No response head this long after sending is a `stalled` error; the shorter of this and the stall timeout applies. */
  firstByteTimeoutMs?: number;
}

export interface ResponseHead {
  status: number;
  headers: IncomingHttpHeaders;
}

/** Receives each body read; return false to stop reading (the rest of the body is drained and discarded). */
export type BodySink = (chunk: Buffer) => boolean;

export type PostOutcome =
  /** The body ended cleanly (`stopped: false`) or the sink stopped reading (`stopped: true`). */
  | { ok: true; stopped: boolean }
  /** `afterHead` tells whether the sink had been given a response head before it failed. */
  | { ok: false; error: ProviderError; afterHead: boolean };

/** node:http or node:https for a URL's scheme (`https:`, `http:`): https pulls in tls, loaded only when an https URL is used. */
export function transportFor(protocol: string): Promise<typeof import("node:http") | typeof import("node:https")> {
  return protocol === "https:" ? import("node:https") : import("node:http");
}

/**
 * Sends `request` and streams the response into the sink `onHead` returns. Never throws, never hangs
 * past the stall timeout, and always settles once.
 */
export async function postStreaming(request: PostRequest, onHead: (head: ResponseHead) => BodySink): Promise<PostOutcome> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return { ok: false, afterHead: false, error: providerError("config", `invalid URL ${JSON.stringify(request.url)}: check the base URL`) };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return { ok: false, afterHead: false, error: providerError("config", `unsupported URL scheme in ${describeUrl(request.url)}: use http:// or https://`) };
  if (request.signal?.aborted) return { ok: false, afterHead: false, error: abortedError() };
  const transport = await transportFor(url.protocol);
  const body = Buffer.from(request.body, "utf8");

  return new Promise<PostOutcome>((resolve) => {
    let settled = false;
    let afterHead = false;
    let response: IncomingMessage | undefined;
    const stallMs = request.stallTimeoutMs;
    const headMs = Math.min(...[stallMs, request.firstByteTimeoutMs ?? Infinity].map((ms) => (Number.isFinite(ms) && ms > 0 ? ms : Infinity)));

    const settle = (outcome: PostOutcome): void => {
      if (settled) return;
      settled = true;
      request.signal?.removeEventListener("abort", onAbort);
      if (outcome.ok && outcome.stopped && response && !response.complete) drain(response);
      else if (timer) clearTimeout(timer);
      resolve(outcome);
    };
    const fail = (error: ProviderError): void => {
      settle({ ok: false, error, afterHead });
      req.destroy();
    };
    const onAbort = (): void => fail(abortedError());
    // After a stop, the stall timer keeps guarding the drain (unref'd: it never holds the process open).
    const drain = (res: IncomingMessage): void => {
      res.removeAllListeners("data");
      res.resume();
      if (!timer) return;
      const drainTimer = timer;
      drainTimer.unref();
      res.on("end", () => clearTimeout(drainTimer));
    };
    let timer: NodeJS.Timeout | undefined;
    /** (Re)starts the silence timer: `ms` until the head, then the stall timeout between reads. */
    const arm = (ms: number): void => {
      if (timer) clearTimeout(timer);
      timer = Number.isFinite(ms) && ms > 0
        ? setTimeout(() => {
            if (settled) req.destroy();
            else fail(stalledError(request.url, ms, afterHead));
          }, ms)
        : undefined;
    };
    arm(headMs);

    const req = transport.request(url, {
      method: "POST",
      headers: { ...request.headers, "content-length": String(body.length) },
    });
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (afterHead) fail(truncatedError(request.url, error.message));
      else fail(networkError(request.url, error));
    });
    req.on("response", (res) => {
      response = res;
      afterHead = true;
      arm(stallMs);
      let sink: BodySink;
      try {
        sink = onHead({ status: res.statusCode ?? 0, headers: res.headers });
      } catch (error) {
        fail(providerError("stream_error", `internal error while reading the response: ${String(error)}`));
        return;
      }
      res.on("data", (chunk: Buffer) => {
        if (settled) return;
        timer?.refresh();
        if (!sink(chunk)) settle({ ok: true, stopped: true });
      });
      res.on("end", () => settle({ ok: true, stopped: false }));
      res.on("error", (error) => fail(truncatedError(request.url, error.message)));
      res.on("close", () => {
        if (!res.complete) fail(truncatedError(request.url, "connection closed"));
      });
    });
    request.signal?.addEventListener("abort", onAbort, { once: true });
    req.end(body);
  });
}

function abortedError(): ProviderError {
  return providerError("aborted", "the request was cancelled");
}

function stalledError(url: string, ms: number, afterHead: boolean): ProviderError {
  const what = afterHead ? "the response stream stalled" : "the server accepted the connection but sent no response";
  return providerError("stalled", `${what}: no data from ${describeUrl(url)} for ${ms} ms`);
}

function truncatedError(url: string, reason: string): ProviderError {
  return providerError("truncated", `the connection to ${describeUrl(url)} was lost in the middle of the response (${reason})`);
}

const PERMANENT_NETWORK_CODES: ReadonlySet<string> = new Set([
  "ENOTFOUND",
  "CERT_HAS_EXPIRED",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

function networkError(url: string, error: NodeJS.ErrnoException): ProviderError {
  const where = describeUrl(url);
  const host = (() => {
    try {
      return new URL(url).host;
    } catch {
      return where;
    }
  })();
  let message: string;
  switch (error.code) {
    case "ECONNREFUSED":
      message = `could not connect to ${host} (connection refused) for ${where}: check that the server is running and that the base URL is right`;
      break;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      message = `could not resolve the host ${host} (${error.code}) for ${where}: check the base URL and your network`;
      break;
    case "ECONNRESET":
      message = `the connection to ${host} was reset before the server answered (${where})`;
      break;
    case "ETIMEDOUT":
    case "ENETUNREACH":
    case "EHOSTUNREACH":
      message = `could not reach ${host} (${error.code}) for ${where}: check your network and the base URL`;
      break;
    default:
      message = `the request to ${where} failed: ${error.message}${error.code ? ` (${error.code})` : ""}`;
  }
  const result = providerError("network", message);
  if (error.code !== undefined && PERMANENT_NETWORK_CODES.has(error.code)) result.retryable = false;
  return result;
}
