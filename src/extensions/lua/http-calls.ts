/**
 * The main thread's side of `awl.http` (docs/extension-api.md): each request a handler makes runs here
 * (web/http-request.ts), under the pool's network gate (the permission engine's host rules), and is remembered
 * per call so that cancelling or timing out the call aborts its requests (the worker, blocked waiting for the
 * answer, then gets "cancelled" and the hook stops its Lua).
 */
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import type { HttpGate, HttpRequestSpec, HttpResult } from "../../web/http-request.js";
import type { SearchOutcome, SearchSettings } from "../../web/search.js";
import type { NetworkGate, NetworkRequest } from "./types.js";

/** The call a request belongs to, as the gate needs it. */
export interface HttpCaller {
  tool: string;
  extension: string;
  granted: readonly string[];
}

/** How long a response asked to be cached (`cache = true`) is served again. */
export const CACHE_TTL_MS = 15 * 60 * 1000;
/** The cache's most bytes of bodies, for the whole process (oldest dropped first). */
const CACHE_MAX_BYTES = 64 * 1024 * 1024;

/** Responses kept for `cache = true` requests, by method, URL, headers and limits; one for the whole process (the session). */
const cache = new Map<string, { at: number; result: HttpResult }>();
let cachedBytes = 0;

function cacheKey(spec: HttpRequestSpec): string {
  return JSON.stringify([spec.method.toUpperCase(), spec.url, spec.headers, spec.maxBytes, spec.redirect]);
}

function remember(key: string, result: HttpResult): void {
  if (!result.ok || result.status >= 400 || result.spill_file) return;
  cache.set(key, { at: Date.now(), result });
  cachedBytes += result.body.length;
  for (const [old, entry] of cache) {
    if (cachedBytes <= CACHE_MAX_BYTES) break;
    cache.delete(old);
    if (entry.result.ok) cachedBytes -= entry.result.body.length;
  }
}

function cached(key: string): HttpResult | undefined {
  const entry = cache.get(key);
  if (!entry) return undefined;
  if (Date.now() - entry.at <= CACHE_TTL_MS) return entry.result;
  cache.delete(key);
  if (entry.result.ok) cachedBytes -= entry.result.body.length;
  return undefined;
}

export class HttpCalls {
  /** The requests under way, by call id. */
  private readonly running = new Map<number, Set<AbortController>>();

  constructor(
    private readonly gate: NetworkGate | undefined,
    /** The `search` settings and the environment its keys come from. */
    private readonly search: { settings?: SearchSettings; env: NodeJS.ProcessEnv } = { env: process.env },
  ) {}

  /**
   * `awl.web.search`: the configured backend. Its host is the one the user configured (config files, where a
   * project's counts only once trusted), so it needs no `network` rule; nothing else is reached.
   */
  async runSearch(callId: number, query: string, count: number): Promise<SearchOutcome> {
    const controller = this.track(callId);
    try {
      const { searchWeb, resolveSearch } = await import("../../web/search.js");
      const resolved = resolveSearch(this.search.settings, this.search.env);
      const home = "url" in resolved ? new URL(resolved.url).host : "";
      const gate: HttpGate = {
        host: async (url) => (url.host === home ? undefined : `the search backend may reach ${home} only, not ${url.host}`),
        address: () => undefined,
      };
      return await searchWeb(this.search.settings, this.search.env, query, count, gate, controller.signal);
    } catch (error) {
      return { ok: false, message: (error as Error).message ?? String(error) };
    } finally {
      this.untrack(callId, controller);
    }
  }

  private track(callId: number): AbortController {
    const controller = new AbortController();
    let set = this.running.get(callId);
    if (!set) this.running.set(callId, (set = new Set()));
    set.add(controller);
    return controller;
  }

  private untrack(callId: number, controller: AbortController): void {
    const set = this.running.get(callId);
    set?.delete(controller);
    if (set?.size === 0) this.running.delete(callId);
  }

  async run(callId: number, spec: HttpRequestSpec, caller: HttpCaller): Promise<HttpResult> {
    const controller = this.track(callId);
    try {
      if (spec.spillPath) await mkdir(dirname(spec.spillPath), { recursive: true, mode: 0o700 });
      const gate = this.httpGate(caller);
      const key = spec.cache && spec.method.toUpperCase() === "GET" ? cacheKey(spec) : undefined;
      if (key !== undefined) {
        // A cached answer is served only where the request would be allowed now.
        const hit = cached(key);
        const denied = hit && (await gate.host(new URL(spec.url)));
        if (hit && !denied) return hit;
      }
      const { httpRequest } = await import("../../web/http-request.js");
      const result = await httpRequest(spec, gate, controller.signal);
      if (key !== undefined) remember(key, result);
      return result;
    } catch (error) {
      return { ok: false, kind: "network", message: (error as Error).message ?? String(error) };
    } finally {
      this.untrack(callId, controller);
    }
  }

  /** Aborts every request the call has under way (cancel, timeout). */
  abortCall(callId: number): void {
    for (const controller of this.running.get(callId) ?? []) controller.abort();
  }

  abortAll(): void {
    for (const callId of this.running.keys()) this.abortCall(callId);
  }

  private httpGate(caller: HttpCaller): HttpGate {
    const gate = this.gate;
    const request = (url: URL): NetworkRequest => ({ url, tool: caller.tool, extension: caller.extension, granted: caller.granted });
    return {
      host: async (url) => (gate ? gate.host(request(url)) : undefined),
      address: (url, address) => gate?.address(request(url), address),
    };
  }
}
