/**
 * The main thread's side of `awl.http` (docs/extension-api.md): each request a handler makes runs here
 * (web/http-request.ts), under the pool's network gate (the permission engine's host rules), and is remembered
 * per call so that cancelling or timing out the call aborts its requests (the worker, blocked waiting for the
 * answer, then gets "cancelled" and the hook stops its Lua).
 */
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import type { HttpGate, HttpRequestSpec, HttpResult } from "../../web/http-request.js";
import type { NetworkGate, NetworkRequest } from "./types.js";

/** The call a request belongs to, as the gate needs it. */
export interface HttpCaller {
  tool: string;
  extension: string;
  granted: readonly string[];
}

export class HttpCalls {
  /** The requests under way, by call id. */
  private readonly running = new Map<number, Set<AbortController>>();

  constructor(private readonly gate: NetworkGate | undefined) {}

  async run(callId: number, spec: HttpRequestSpec, caller: HttpCaller): Promise<HttpResult> {
    const controller = new AbortController();
    let set = this.running.get(callId);
    if (!set) this.running.set(callId, (set = new Set()));
    set.add(controller);
    try {
      if (spec.spillPath) await mkdir(dirname(spec.spillPath), { recursive: true, mode: 0o700 });
      const { httpRequest } = await import("../../web/http-request.js");
      return await httpRequest(spec, this.httpGate(caller), controller.signal);
    } catch (error) {
      return { ok: false, kind: "network", message: (error as Error).message ?? String(error) };
    } finally {
      set.delete(controller);
      if (set.size === 0) this.running.delete(callId);
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
