/**
 * The checksum of code caches (src/util/checksum64.ts) is a hand-assembled WebAssembly function: it must compute
 * exactly what its documented text says, written here in JavaScript, and find any change to one word.
 */
import { describe, expect, it } from "vitest";
import { checksum64 } from "../../src/util/checksum64.js";

const MASK = (1n << 64n) - 1n;
const rotl = (x: bigint, r: bigint): bigint => ((x << r) | (x >> (64n - r))) & MASK;

/** The computation of checksum64.ts's WebAssembly text, in BigInt arithmetic. */
function reference(data: Uint8Array): bigint {
  const padded = new Uint8Array(Math.ceil(data.length / 8) * 8);
  padded.set(data);
  const view = new DataView(padded.buffer);
  let a = 0x6a09e667f3bcc908n;
  let b = 0xbb67ae8584caa73bn;
  for (let i = 0; i < padded.length; i += 8) {
    const w = view.getBigUint64(i, true);
    a = rotl(((a ^ w) * 0x9e3779b97f4a7c15n) & MASK, 31n);
    b = rotl((((b ^ w) * 0xc2b2ae3d27d4eb4fn) & MASK) + a & MASK, 27n);
  }
  return (a ^ rotl(b, 32n) ^ BigInt(data.length)) & MASK;
}

function randomBytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed;
  for (let i = 0; i < length; i++) out[i] = (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 24;
  return out;
}

describe("checksum64", () => {
  it("computes what its text says, at every length around a word and across the memory's first page", () => {
    for (const length of [0, 1, 7, 8, 9, 15, 16, 17, 1000, 65_535, 65_536, 65_537, 200_001]) {
      const data = randomBytes(length, length + 1);
      expect(checksum64(data).readBigUInt64LE(0), `length ${length}`).toBe(reference(data));
    }
  });

  it("is the same for the same bytes wherever they lie, and after a longer input", () => {
    const data = randomBytes(1000, 7);
    const first = checksum64(data);
    checksum64(randomBytes(300_000, 9)); // the memory grows, its tail holds other bytes
    const inside = Buffer.alloc(1003);
    inside.set(data, 3); // not at a multiple of 8 in its buffer
    expect(checksum64(inside.subarray(3))).toEqual(first);
    expect(checksum64(data)).toEqual(first);
  });

  it("changes with any one byte, a trailing zero byte, or two words traded", () => {
    const data = randomBytes(4099, 3);
    const sum = checksum64(data);
    for (const at of [0, 1, 8, 2048, 4095, 4098]) {
      for (const bit of [1, 0x80]) {
        const copy = Uint8Array.from(data);
        copy[at]! ^= bit;
        expect(checksum64(copy)).not.toEqual(sum);
      }
    }
    expect(checksum64(Uint8Array.from([...data, 0]))).not.toEqual(sum);
    const traded = Uint8Array.from(data);
    traded.set(data.subarray(0, 8), 8);
    traded.set(data.subarray(8, 16), 0);
    expect(checksum64(traded)).not.toEqual(sum);
  });
});
