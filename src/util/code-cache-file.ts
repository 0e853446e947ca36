/**
 * A V8 code cache kept on disk (the Lua worker's, extensions/lua/worker/loader.ts, and the CLI's own modules',
 * cli/compile-cache.ts): a file of MAGIC, four bytes of zeros, the 64-bit checksum of V8's data, then V8's data (at
 * a multiple of 8 bytes, which spares V8 a copy to align it). V8 checks a code cache's header, not its body (Node
 * 20's V8 checksums it only in debug builds), and might crash on a damaged one, so awl checks the body itself. A
 * cache is only ever a head start: one that is missing, unreadable or damaged reads as none.
 *
 * The checksum (util/checksum64.ts) finds damage (a torn or zeroed block, flipped bits), as Node's own compile
 * cache does with a CRC; it is no seal against someone who can write the cache folder, who could write a matching
 * checksum as easily (as with the SHA-256 the CLI's caches held before, whose hashing was ≈ 6 % of a one-line
 * reply's instructions: docs/benchmarks.md, issue 30). It needs no module: a Lua worker does not load
 * `node:crypto` for it (≈ 10 ms of the worker's start).
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { checksum64 } from "./checksum64.js";

const MAGIC = 0x354c5741; // "AWL5" (earlier formats, "AWL2" with a SHA-256 and "AWL3"–"AWL4", read as none and are rewritten)
const HEADER_BYTES = 16;

/** V8's data in `file`, or undefined when there is none or it is not whole. */
export function readCodeCache(file: string): Buffer | undefined {
  try {
    const bytes = readFileSync(file);
    if (bytes.length <= HEADER_BYTES || bytes.readUInt32LE(0) !== MAGIC) return undefined;
    const data = bytes.subarray(HEADER_BYTES);
    return checksum64(data).equals(bytes.subarray(8, HEADER_BYTES)) ? data : undefined;
  } catch {
    return undefined; // none yet, or unreadable: the source is compiled
  }
}

/** Writes `data` to `file` whole or not at all (a temporary file renamed); the folder must exist. Throws when it cannot. */
export function writeCodeCache(file: string, data: Buffer): void {
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32LE(MAGIC, 0);
  checksum64(data).copy(header, 8);
  // Unique to this process and thread (a worker's write may run beside the main thread's).
  const temporary = `${file}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(temporary, Buffer.concat([header, data]));
  renameSync(temporary, file);
}
