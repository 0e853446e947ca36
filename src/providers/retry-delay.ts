/**
 * How long to wait before a retry (SPEC §3 rules 6 and 7), after anthropic-sdk-typescript's `retryRequest`:
 * the server's `retry-after-ms`, else `retry-after` (seconds or an HTTP date), else exponential backoff
 * from 0.5 s to 8 s with up to 25 % jitter taken off.
 */
import type { IncomingHttpHeaders } from "node:http";

const INITIAL_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 8_000;
const MAX_JITTER = 0.25;

/** A server-requested wait beyond this is not waited out: the error is reported instead (it carries the wait). */
export const MAX_HONOURED_RETRY_AFTER_MS = 60_000;

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The wait the server asked for, in ms, from `retry-after-ms` or `retry-after` (delta-seconds or HTTP date).
 * `now` is injectable for tests. Returns undefined when absent or unreadable; never negative.
 */
export function retryAfterMs(headers: IncomingHttpHeaders, now: number = Date.now()): number | undefined {
  const ms = header(headers, "retry-after-ms");
  if (ms !== undefined && ms.trim() !== "") {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return Math.round(value);
  }
  const after = header(headers, "retry-after")?.trim();
  if (after === undefined || after === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(after)) return Math.round(Number(after) * 1000);
  const date = Date.parse(after);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** Exponential backoff for retry number `attempt` (1 = first retry), with jitter; `random` is injectable for tests. */
export function backoffDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(INITIAL_BACKOFF_MS * 2 ** Math.max(0, attempt - 1), MAX_BACKOFF_MS);
  return Math.round(base * (1 - MAX_JITTER * random()));
}

/**
 * The delay before retry `attempt`: the server's wish when it gave one, else backoff.
 * Returns undefined when the server asks for longer than {@link MAX_HONOURED_RETRY_AFTER_MS} (do not retry).
 */
export function retryDelayMs(serverWishMs: number | undefined, attempt: number, random: () => number = Math.random): number | undefined {
  if (serverWishMs === undefined) return backoffDelayMs(attempt, random);
  return serverWishMs <= MAX_HONOURED_RETRY_AFTER_MS ? serverWishMs : undefined;
}
