/**
 * The code cache file (src/util/code-cache-file.ts): V8's data comes back as written, and a file with any damage to
 * it, however small, reads as none (V8 does not check a cache's body, and might crash on a damaged one).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readCodeCache, writeCodeCache } from "../../src/util/code-cache-file.js";
import { tempDir } from "../cli/run-awl.js";

/** Bytes that look like a real cache: no long runs, every value. */
function data(length: number): Buffer {
  const out = Buffer.alloc(length);
  let x = 12345;
  for (let i = 0; i < length; i++) out[i] = (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 24;
  return out;
}

describe("a code cache file", () => {
  it("gives back what was written, at any length", () => {
    const dir = tempDir("awl-code-cache-");
    for (const length of [1, 3, 4, 7, 8, 1000, 65_537]) {
      const file = join(dir, `c${length}.v8`);
      writeCodeCache(file, data(length));
      expect(readCodeCache(file)?.equals(data(length))).toBe(true);
    }
  });

  it("reads as none when one bit, one byte, a block or the end is damaged", () => {
    const dir = tempDir("awl-code-cache-");
    const file = join(dir, "c.v8");
    writeCodeCache(file, data(100_003));
    const whole = readFileSync(file);
    const damaged: Buffer[] = [];
    for (const at of [16, 17, 1000, 50_000, 100_000, whole.length - 1]) {
      for (const bit of [0x01, 0x80]) {
        const copy = Buffer.from(whole);
        copy[at]! ^= bit;
        damaged.push(copy);
      }
    }
    const zeroed = Buffer.from(whole);
    zeroed.fill(0, 4096, 8192);
    damaged.push(zeroed);
    const swapped = Buffer.from(whole); // two words trade places
    whole.copy(swapped, 4000, 4004, 4008);
    whole.copy(swapped, 4004, 4000, 4004);
    damaged.push(swapped);
    damaged.push(whole.subarray(0, whole.length - 4), whole.subarray(0, 20), Buffer.concat([whole, Buffer.alloc(8)]));
    for (const bytes of damaged) {
      writeFileSync(file, bytes);
      expect(readCodeCache(file)).toBeUndefined();
    }
    writeFileSync(file, whole);
    expect(readCodeCache(file)?.equals(data(100_003))).toBe(true);
  });

  it("reads an earlier format (a SHA-256 header), an empty or a missing file as none", () => {
    const dir = tempDir("awl-code-cache-");
    const earlier = Buffer.alloc(40 + 64, 1);
    earlier.writeUInt32LE(0x324c5741, 0); // "AWL2"
    writeFileSync(join(dir, "old.v8"), earlier);
    writeFileSync(join(dir, "empty.v8"), "");
    expect(readCodeCache(join(dir, "old.v8"))).toBeUndefined();
    expect(readCodeCache(join(dir, "empty.v8"))).toBeUndefined();
    expect(readCodeCache(join(dir, "missing.v8"))).toBeUndefined();
  });
});
