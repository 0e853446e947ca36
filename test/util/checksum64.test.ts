/**
 * The checksum of code caches (src/util/checksum64.ts): it must compute what its comment says (written here again,
 * slowly), and change with any one byte, a trailing byte, or two words traded.
 */
import { describe, expect, it } from "vitest";
import { checksum64 } from "../../src/util/checksum64.js";

/** Fletcher's two sums modulo 2^32 over little-endian 32-bit words, then each last byte plus one, then the length. */
function reference(data: Uint8Array): Buffer {
  const view = new DataView(data.buffer, data.byteOffset, data.length);
  let a = 0;
  let b = 0;
  const whole = data.length - (data.length % 4);
  for (let i = 0; i < whole; i += 4) {
    a = (a + view.getInt32(i, true)) % 2 ** 32;
    b = (b + a) % 2 ** 32;
  }
  for (let i = whole; i < data.length; i++) {
    a = (a + data[i]! + 1) % 2 ** 32;
    b = (b + a) % 2 ** 32;
  }
  const out = Buffer.alloc(8);
  out.writeUInt32LE(((a + data.length) % 2 ** 32 + 2 ** 32) % 2 ** 32, 0);
  out.writeUInt32LE((b + 2 ** 32) % 2 ** 32, 4);
  return out;
}

function randomBytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed;
  for (let i = 0; i < length; i++) out[i] = (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 24;
  return out;
}

describe("checksum64", () => {
  it("computes what its comment says, at every length around a word", () => {
    for (const length of [0, 1, 3, 4, 5, 7, 8, 9, 1000, 65_537, 200_003]) {
      const data = randomBytes(length, length + 1);
      expect(checksum64(data), `length ${length}`).toEqual(reference(data));
    }
  });

  it("is the same for the same bytes wherever they lie", () => {
    const data = randomBytes(1000, 7);
    const first = checksum64(data);
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
