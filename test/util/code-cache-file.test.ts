/**
 * The code cache file (src/util/code-cache-file.ts): V8's data comes back as written, and a file with any damage to
 * it reads as none (V8 does not check a cache's body, and might crash on a damaged one), with either check: the
 * CLI's SHA-256 and a Lua worker's word check.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readCodeCache, WORD_CHECK, writeCodeCache, type CodeCacheCheck } from "../../src/util/code-cache-file.js";
import { SHA256_CHECK } from "../../src/util/sha256-check.js";
import { tempDir } from "../cli/run-awl.js";

/** Bytes that look like a real cache: no long runs, every value. */
function data(length: number): Buffer {
  const out = Buffer.alloc(length);
  let x = 12345;
  for (let i = 0; i < length; i++) out[i] = (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 24;
  return out;
}

describe.each([["SHA256_CHECK", SHA256_CHECK], ["WORD_CHECK", WORD_CHECK]] as [string, CodeCacheCheck][])("a code cache file with %s", (_, check) => {
  it("gives back what was written, at any length", () => {
    const dir = tempDir("awl-code-cache-");
    for (const length of [1, 3, 4, 7, 8, 1000, 65_537]) {
      const file = join(dir, `c${length}.v8`);
      writeCodeCache(file, data(length), check);
      expect(readCodeCache(file, check)?.equals(data(length))).toBe(true);
    }
  });

  it("reads as none when one bit, one byte, a block or the end is damaged, or when the other check made it", () => {
    const dir = tempDir("awl-code-cache-");
    const file = join(dir, "c.v8");
    writeCodeCache(file, data(100_003), check);
    const whole = readFileSync(file);
    const damaged: Buffer[] = [];
    for (const at of [40, 41, 1000, 50_000, 100_000, whole.length - 1]) {
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
      expect(readCodeCache(file, check)).toBeUndefined();
    }
    writeFileSync(file, whole);
    expect(readCodeCache(file, check)?.equals(data(100_003))).toBe(true);
    expect(readCodeCache(file, check === WORD_CHECK ? SHA256_CHECK : WORD_CHECK)).toBeUndefined();
  });

  it("reads an empty or a missing file as none", () => {
    const dir = tempDir("awl-code-cache-");
    writeFileSync(join(dir, "empty.v8"), "");
    expect(readCodeCache(join(dir, "empty.v8"), check)).toBeUndefined();
    expect(readCodeCache(join(dir, "missing.v8"), check)).toBeUndefined();
  });
});
