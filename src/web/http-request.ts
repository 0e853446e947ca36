/**
 * One HTTP request for `awl.http` (docs/extension-api.md), performed on awl's main thread by undici, the library
 * behind Node's fetch: HTTP/1.1 and HTTP/2, proxies from `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY`, Node's CA store plus
 * `NODE_EXTRA_CA_CERTS`. The gate decides every host before a connection (the first and every redirect) and every
 * address a name resolves to (the address connected to, not only the name: a DNS name that resolves to
 * 127.0.0.1 is loopback). Bodies are decompressed here, counted after decompression (a gzip bomb stops at the
 * limit), cut at `maxBytes`, optionally streamed whole to a spill file, and read as text by their charset
 * (body-text.ts). Never throws: a failure is a result with a kind and a message.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { createWriteStream, type WriteStream } from "node:fs";
import { isIP } from "node:net";
import type { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { bodyText } from "./body-text.js";

/** A spilled body stops here even when it goes on (an endless body must not fill the disk). */
export const SPILL_MAX_BYTES = 256 * 1024 * 1024;
/** Redirects followed at most. */
const MAX_REDIRECTS = 10;

export type RedirectMode = "follow" | "same-host" | "manual";

export interface HttpRequestSpec {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Uint8Array;
  timeoutMs: number;
  /** Most bytes of the (decompressed) body returned; the rest is read only into the spill file. */
  maxBytes: number;
  /** `follow` every redirect; `same-host`: only those to the same host (else the redirect is the answer); `manual`: none. */
  redirect: RedirectMode;
  /** Write the whole body here (up to SPILL_MAX_BYTES). */
  spillPath?: string;
  /** A GET whose response may be served again for 15 minutes (extensions/lua/http-calls.ts). */
  cache?: boolean;
}

/** What decides where a request may go (the permission engine, through the Lua bridge). */
export interface HttpGate {
  /** Before each connection to `url`'s host: undefined when allowed, else why not. */
  host(url: URL): Promise<string | undefined>;
  /** For each address the host resolved to (or is): undefined when allowed, else why not. */
  address(url: URL, address: string): string | undefined;
}

export type HttpFailureKind = "invalid" | "denied" | "network" | "tls" | "timeout" | "cancelled";

export type HttpResult =
  | {
      ok: true;
      status: number;
      /** The URL that answered (after the redirects followed). */
      url: string;
      /** Lower-case names; repeated headers joined with ", ". */
      headers: Record<string, string>;
      body: Buffer;
      binary: boolean;
      /** The body was longer than `maxBytes` (or, spilled, than SPILL_MAX_BYTES). */
      truncated: boolean;
      /** Bytes read (decompressed). */
      size: number;
      charset?: string;
      note?: string;
      spill_file?: string;
      /** A redirect not followed (`same-host` to another host, or `manual`): where it pointed. */
      redirect_to?: string;
    }
  | { ok: false; kind: HttpFailureKind; message: string };

class Refused extends Error {
  readonly code = "AWL_REFUSED";
}

type Undici = typeof import("undici");
let undici: Promise<Undici> | undefined;

/** Performs the request (see the module's comment). */
export async function httpRequest(spec: HttpRequestSpec, gate: HttpGate, signal: AbortSignal): Promise<HttpResult> {
  let url: URL;
  try {
    url = new URL(spec.url);
  } catch {
    return { ok: false, kind: "invalid", message: `${JSON.stringify(spec.url)} is not a valid URL` };
  }
  const timeout = AbortSignal.timeout(spec.timeoutMs);
  const both = AbortSignal.any([signal, timeout]);
  const failed = (error: unknown): HttpResult => failure(error, url, spec.timeoutMs, timeout.aborted, signal.aborted);
  const lib = await (undici ??= import("undici"));
  let method = spec.method.toUpperCase();
  let body = spec.body;
  for (let hop = 0; ; hop++) {
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      return { ok: false, kind: "invalid", message: `${url.href}: awl.http reaches http:// and https:// URLs only, not ${url.protocol}` };
    }
    const denied = await gate.host(url);
    if (denied) return { ok: false, kind: "denied", message: denied };
    const literal = url.hostname.replace(/^\[(.*)\]$/, "$1");
    if (isIP(literal)) {
      const refused = gate.address(url, literal);
      if (refused) return { ok: false, kind: "denied", message: refused };
    }
    const agent = new lib.EnvHttpProxyAgent({ allowH2: true, connect: { lookup: guardedLookup(url, gate) } });
    try {
      const response = await lib.request(url, {
        method: method as never,
        headers: { "accept-encoding": "gzip, deflate, br", "user-agent": "awl", ...spec.headers },
        ...(body && method !== "GET" && method !== "HEAD" && { body: Buffer.from(body) }),
        signal: both,
        dispatcher: agent,
      });
      const headers = headerRecord(response.headers);
      const location = headers.location;
      if (response.statusCode >= 300 && response.statusCode < 400 && location !== undefined && spec.redirect !== "manual") {
        const next = resolveLocation(location, url);
        const sameHost = next !== undefined && next.host === url.host && next.protocol === url.protocol;
        if (next && hop < MAX_REDIRECTS && (spec.redirect === "follow" || sameHost)) {
          response.body.resume();
          if (response.statusCode === 303 || ((response.statusCode === 301 || response.statusCode === 302) && method === "POST")) {
            method = "GET";
            body = undefined;
          }
          url = next;
          continue;
        }
        if (next && hop >= MAX_REDIRECTS) {
          response.body.destroy();
          return { ok: false, kind: "network", message: `${spec.url}: more than ${MAX_REDIRECTS} redirects` };
        }
      }
      const read = await readBody(response.body, headers["content-encoding"], spec, both);
      const text = bodyText(read.bytes, headers["content-type"]);
      const redirect = response.statusCode >= 300 && response.statusCode < 400 && location !== undefined ? resolveLocation(location, url)?.href : undefined;
      const notes = [read.note, text.note].filter(Boolean).join("; ");
      return {
        ok: true,
        status: response.statusCode,
        url: url.href,
        headers,
        body: text.body,
        binary: text.binary,
        truncated: read.truncated,
        size: read.size,
        ...(text.charset && { charset: text.charset }),
        ...(notes && { note: notes }),
        ...(spec.spillPath && { spill_file: spec.spillPath }),
        ...(redirect && { redirect_to: redirect }),
      };
    } catch (error) {
      return failed(error);
    } finally {
      void agent.destroy().catch(() => undefined);
    }
  }
}

/** A lookup for the connection to `url`'s host that refuses an address the gate refuses (the proxy's own name is not checked). */
function guardedLookup(url: URL, gate: HttpGate) {
  return (hostname: string, options: LookupOptions, callback: (...args: never[]) => void): void => {
    const answer = callback as (...args: unknown[]) => void;
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return answer(error);
      if (hostname === url.hostname) {
        for (const { address } of addresses) {
          const refused = gate.address(url, address);
          if (refused) return answer(new Refused(refused));
        }
      }
      if (options.all) return answer(null, addresses);
      const first = addresses[0];
      if (!first) return answer(new Error(`${hostname} has no address`));
      answer(null, first.address, first.family);
    });
  };
}

function resolveLocation(location: string, base: URL): URL | undefined {
  try {
    return new URL(location, base);
  } catch {
    return undefined;
  }
}

function headerRecord(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  return out;
}

/** The body's first `maxBytes` bytes after decompression (and the whole of it in the spill file, when asked). */
async function readBody(raw: Readable, encoding: string | undefined, spec: HttpRequestSpec, signal: AbortSignal): Promise<{ bytes: Buffer; size: number; truncated: boolean; note?: string }> {
  const coding = (encoding ?? "").trim().toLowerCase();
  const decoder = coding === "gzip" || coding === "x-gzip" ? createGunzip() : coding === "deflate" ? createInflate() : coding === "br" ? createBrotliDecompress() : undefined;
  const note = coding && coding !== "identity" && !decoder ? `the body is ${coding}-encoded, which awl cannot decompress: its bytes are as sent` : undefined;
  const stream: Readable = decoder ? raw.pipe(decoder) : raw;
  if (decoder) raw.on("error", (e) => decoder.destroy(e));
  const limit = spec.spillPath ? SPILL_MAX_BYTES : spec.maxBytes;
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let size = 0;
  let truncated = false;
  let spill: WriteStream | undefined;
  if (spec.spillPath) spill = createWriteStream(spec.spillPath, { mode: 0o600 });
  try {
    for await (const piece of stream) {
      signal.throwIfAborted();
      let chunk = piece as Buffer;
      if (size + chunk.length > limit) {
        chunk = chunk.subarray(0, limit - size);
        truncated = true;
      }
      size += chunk.length;
      if (keptBytes < spec.maxBytes) {
        const part = chunk.subarray(0, spec.maxBytes - keptBytes);
        kept.push(part);
        keptBytes += part.length;
        if (!spill && part.length < chunk.length) truncated = true;
      }
      if (spill && !spill.write(chunk)) await new Promise<void>((resolve) => spill!.once("drain", () => resolve()));
      if (truncated || (!spill && keptBytes >= spec.maxBytes && size > keptBytes)) break;
    }
    if (!spill && keptBytes >= spec.maxBytes && !truncated) truncated = await hasMore(stream);
  } finally {
    raw.destroy();
    decoder?.destroy();
    if (spill) await new Promise<void>((resolve) => spill!.end(() => resolve()));
  }
  return { bytes: Buffer.concat(kept), size, truncated, ...(note && { note }) };
}

/** Whether a stream read up to a limit had more to give (one more read). */
async function hasMore(stream: Readable): Promise<boolean> {
  if (stream.readableEnded) return false;
  const it = stream[Symbol.asyncIterator]();
  const next = await it.next().catch(() => ({ done: true }));
  return next.done !== true;
}

function failure(error: unknown, url: URL, timeoutMs: number, timedOut: boolean, cancelled: boolean): HttpResult {
  const where = `${url.protocol}//${url.host}`;
  if (cancelled) return { ok: false, kind: "cancelled", message: `the request to ${where} was cancelled` };
  if (timedOut) return { ok: false, kind: "timeout", message: `${where} did not answer within ${timeoutMs / 1000} s` };
  const chain: Error[] = [];
  for (let e: unknown = error; e instanceof Error && chain.length < 5; e = (e as { cause?: unknown }).cause) chain.push(e);
  const refused = chain.find((e) => e instanceof Refused);
  if (refused) return { ok: false, kind: "denied", message: refused.message };
  const code = chain.map((e) => (e as { code?: string }).code).find((c) => typeof c === "string" && c !== "UND_ERR_SOCKET") ?? "";
  const message = chain.at(-1)?.message ?? String(error);
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_(?:GET|VERIFY)|ERR_OSSL/.test(code) || /certificate/i.test(message)) {
    return {
      ok: false,
      kind: "tls",
      message: `${where}: TLS error (${code || message}): ${message}. awl checks certificates against Node's CA store and NODE_EXTRA_CA_CERTS; it has no way to skip the check`,
    };
  }
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return { ok: false, kind: "network", message: `${url.hostname}: no such host (DNS lookup failed: ${code})` };
  return { ok: false, kind: "network", message: `${where}: ${code ? `${code}: ` : ""}${message}` };
}
