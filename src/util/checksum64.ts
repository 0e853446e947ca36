/**
 * A 64-bit checksum of bytes, to find accidental damage in files awl wrote itself (code caches: a torn or zeroed
 * block, flipped bits). Not a seal: anyone who can write the file can write a matching checksum.
 *
 * The loop is a 100-byte WebAssembly function, because it runs during start-up over ≈ 0.7 MB: the same loop in
 * JavaScript ran in V8's baseline tier there at ≈ 50 instructions a word (≈ 10 M in all), SHA-256 through
 * `node:crypto` cost ≈ 17 M, and this ≈ 1 M (docs/benchmarks.md, issue 30). Its text, as `wat2wasm` reads it:
 *
 * ```wat
 * (module
 *   (memory (export "m") 1)
 *   (func (export "sum") (param $n i32) (result i64)   ;; over the 64-bit words of memory [0, $n)
 *     (local $i i32) (local $a i64) (local $b i64) (local $w i64)
 *     (local.set $a (i64.const 0x6a09e667f3bcc908))
 *     (local.set $b (i64.const 0xbb67ae8584caa73b))
 *     (block (loop
 *       (br_if 1 (i32.ge_u (local.get $i) (local.get $n)))
 *       (local.set $w (i64.load (local.get $i)))
 *       (local.set $a (i64.rotl (i64.mul (i64.xor (local.get $a) (local.get $w)) (i64.const 0x9e3779b97f4a7c15)) (i64.const 31)))
 *       (local.set $b (i64.rotl (i64.add (i64.mul (i64.xor (local.get $b) (local.get $w)) (i64.const 0xc2b2ae3d27d4eb4f)) (local.get $a)) (i64.const 27)))
 *       (local.set $i (i32.add (local.get $i) (i32.const 8)))
 *       (br 0)))
 *     (i64.xor (local.get $a) (i64.rotl (local.get $b) (i64.const 32)))))
 * ```
 *
 * Each step of lane `a` is one-to-one in `a` (xor, an odd multiplier, a rotation), so a change to any one word
 * always changes `a`; the result, `a` and `b` joined, misses other damage about once in 2^64. The bytes are padded
 * with zeros to whole words and the length is joined in after (test/util/checksum64.test.ts holds the same
 * computation in JavaScript, and checks the two agree).
 */

/** The module above, assembled. */
const MODULE =
  "AGFzbQEAAAABBgFgAX8BfgMCAQAFAwEAAQcLAgFtAgADc3VtAAAKdQFzAgF/A35CiJLznf/M+YTqACECQrvOqqbY0Ouzu38hAwJAA0AgASAATw0BIAEpAwAhBCACIASFQpX4qfqXt96bnn9+Qh+JIQIgAyAEhULP1tO+0ser2UJ+IAJ8QhuJIQMgAUEIaiEBDAALCyACIANCIImFCw==";

interface Checksummer {
  exports: { m: { buffer: ArrayBuffer; grow(pages: number): number }; sum(bytes: number): bigint };
}
const wasm = (globalThis as unknown as { WebAssembly: { Module: new (bytes: Uint8Array) => object; Instance: new (module: object) => Checksummer } }).WebAssembly;

let instance: Checksummer | undefined;

/** The checksum of `data`, 8 bytes (little-endian). */
export function checksum64(data: Uint8Array): Buffer {
  instance ??= new wasm.Instance(new wasm.Module(Buffer.from(MODULE, "base64")));
  const { m: memory, sum } = instance.exports;
  const padded = Math.ceil(data.length / 8) * 8;
  if (memory.buffer.byteLength < padded) memory.grow(Math.ceil((padded - memory.buffer.byteLength) / 65_536));
  const words = new Uint8Array(memory.buffer, 0, padded);
  words.set(data);
  words.fill(0, data.length);
  const out = Buffer.alloc(8);
  out.writeBigUInt64LE(BigInt.asUintN(64, sum(padded) ^ BigInt(data.length)));
  return out;
}
