/**
 * A V8 code cache kept on disk (the Lua worker's, extensions/lua/worker/loader.ts, and the CLI's own modules',
 * cli/compile-cache.ts): a file of its check's magic number, four bytes of zeros, the check's digest of V8's data in
 * 32 bytes (V8 checks a code cache's header, not its body, and might crash on a damaged one), then V8's data (at a
 * multiple of 8 bytes, which spares V8 a copy to align it). A cache is only ever a head start: one that is missing,
 * unreadable, damaged or made with another check reads as none.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";

const HEADER_BYTES = 40;
const DIGEST_BYTES = 32;

/** How a cache's body is checked: the file's first four bytes, and a digest of at most 32 bytes. */
export interface CodeCacheCheck {
  magic: number;
  digest(data: Buffer): Buffer;
}

/**
 * A check that needs no module: two 32-bit multiplicative hashes of the data's words and its length. It finds
 * damage (a torn write, a changed block), not forgery; for a thread that has not loaded `node:crypto` (a Lua worker:
 * loading it there costs ≈ 10 ms of the worker's start), where SHA-256 would.
 */
export const WORD_CHECK: CodeCacheCheck = {
  magic: 0x334c5741, // "AWL3"
  digest(data) {
    const aligned = data.byteOffset % 4 === 0 ? data : Buffer.from(data);
    const words = new Int32Array(aligned.buffer, aligned.byteOffset, aligned.length >> 2);
    let a = 0x811c9dc5 | 0; // as int32s: with no whole word (under 4 bytes) they are written as they are
    let b = 0x9e3779b9 | 0;
    for (let i = 0; i < words.length; i++) {
      const word = words[i]!;
      a = Math.imul(a ^ word, 0x01000193);
      b = Math.imul(b + word, 0x85ebca6b) ^ (b >>> 13);
    }
    for (let i = words.length * 4; i < aligned.length; i++) a = Math.imul(a ^ aligned[i]!, 0x01000193);
    const out = Buffer.alloc(12);
    out.writeInt32LE(a, 0);
    out.writeInt32LE(b, 4);
    out.writeUInt32LE(aligned.length, 8);
    return out;
  },
};

/** The check's digest of `data`, in the header's 32 bytes. */
function digestBytes(check: CodeCacheCheck, data: Buffer): Buffer {
  const out = Buffer.alloc(DIGEST_BYTES);
  check.digest(data).copy(out);
  return out;
}

/** V8's data in `file`, or undefined when there is none, it is not whole, or it was made with another check. */
export function readCodeCache(file: string, check: CodeCacheCheck): Buffer | undefined {
  try {
    const bytes = readFileSync(file);
    if (bytes.length <= HEADER_BYTES || bytes.readUInt32LE(0) !== check.magic) return undefined;
    const data = bytes.subarray(HEADER_BYTES);
    return digestBytes(check, data).equals(bytes.subarray(8, HEADER_BYTES)) ? data : undefined;
  } catch {
    return undefined; // none yet, or unreadable: the source is compiled
  }
}

/** Writes `data` to `file` whole or not at all (a temporary file renamed); the folder must exist. Throws when it cannot. */
export function writeCodeCache(file: string, data: Buffer, check: CodeCacheCheck): void {
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32LE(check.magic, 0);
  digestBytes(check, data).copy(header, 8);
  // Unique to this process and thread (a worker's write may run beside the main thread's).
  const temporary = `${file}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(temporary, Buffer.concat([header, data]));
  renameSync(temporary, file);
}
