import { describe, expect, it } from "vitest";
import { backoffDelayMs, MAX_HONOURED_RETRY_AFTER_MS, retryAfterMs, retryDelayMs } from "../../src/providers/retry-delay.js";

describe("retryAfterMs", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");

  it("prefers retry-after-ms", () => {
    expect(retryAfterMs({ "retry-after-ms": "1500", "retry-after": "9" }, now)).toBe(1500);
  });

  it("reads retry-after in seconds, fractions included", () => {
    expect(retryAfterMs({ "retry-after": "3" }, now)).toBe(3000);
    expect(retryAfterMs({ "retry-after": "0.25" }, now)).toBe(250);
  });

  it("reads retry-after as an HTTP date, never negative", () => {
    expect(retryAfterMs({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }, now)).toBe(5000);
    expect(retryAfterMs({ "retry-after": "Wed, 31 Dec 2025 23:59:00 GMT" }, now)).toBe(0);
  });

  it("ignores absent, empty and unreadable values", () => {
    expect(retryAfterMs({}, now)).toBeUndefined();
    expect(retryAfterMs({ "retry-after": "" }, now)).toBeUndefined();
    expect(retryAfterMs({ "retry-after": "soon" }, now)).toBeUndefined();
    expect(retryAfterMs({ "retry-after-ms": "-5", "retry-after": "2" }, now)).toBe(2000);
  });
});

describe("backoffDelayMs", () => {
  it("doubles from 0.5 s and caps at 8 s without jitter", () => {
    const noJitter = () => 0;
    expect([1, 2, 3, 4, 5, 6, 10].map((n) => backoffDelayMs(n, noJitter))).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
  });

  it("takes off at most 25 % as jitter", () => {
    expect(backoffDelayMs(1, () => 1)).toBe(375);
    expect(backoffDelayMs(3, () => 0.5)).toBe(1750);
  });
});

describe("retryDelayMs", () => {
  it("uses the server's wish when given, backoff otherwise", () => {
    expect(retryDelayMs(1234, 1)).toBe(1234);
    expect(retryDelayMs(0, 3)).toBe(0);
    expect(retryDelayMs(undefined, 2, () => 0)).toBe(1000);
  });

  it("refuses to wait out a wish longer than the cap", () => {
    expect(retryDelayMs(MAX_HONOURED_RETRY_AFTER_MS, 1)).toBe(MAX_HONOURED_RETRY_AFTER_MS);
    expect(retryDelayMs(MAX_HONOURED_RETRY_AFTER_MS + 1, 1)).toBeUndefined();
  });
});
