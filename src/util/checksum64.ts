/**
 * A 64-bit checksum of bytes, to find accidental damage in files awl wrote itself (code caches: a torn or zeroed
 * block, flipped bits, words out of place). Not a seal: anyone who can write the file can write a matching one.
 *
 * Fletcher's two sums over the data's 32-bit words, modulo 2^32 (then its last bytes, and its length): the first
 * changes with any one word, the second, which adds the first after each word, with the words' order. It runs over
 * ≈ 0.7 MB during a reply's start-up, mostly in V8's baseline tier, so its loop is as short as it can be: SHA-256
 * through `node:crypto` cost ≈ 17 M instructions there, a loop of two multiply-rotate lanes ≈ 10 M, a WebAssembly
 * one ≈ 1 M but 1.1 MB of RSS for V8's WebAssembly engine (docs/benchmarks.md, issue 30).
 */

/** The checksum of `data`, 8 bytes (little-endian). */
export function checksum64(data: Uint8Array): Buffer {
  const bytes = data.byteOffset % 4 === 0 ? data : new Uint8Array(data);
  const words = new Int32Array(bytes.buffer, bytes.byteOffset, bytes.length >>> 2);
  const count = words.length;
  let a = 0;
  let b = 0;
  for (let i = 0; i < count; i++) {
    a = (a + words[i]!) | 0;
    b = (b + a) | 0;
  }
  for (let i = count * 4; i < bytes.length; i++) {
    a = (a + bytes[i]! + 1) | 0;
    b = (b + a) | 0;
  }
  const out = Buffer.alloc(8);
  out.writeInt32LE((a + bytes.length) | 0, 0);
  out.writeInt32LE(b, 4);
  return out;
}
