/**
 * A V8 code cache kept on disk (the Lua worker's, extensions/lua/worker/loader.ts, and the CLI's own modules',
 * cli/compile-cache.ts): a file of MAGIC, four bytes of zeros, the SHA-256 of V8's data (V8 checks a code cache's
 * header, not its body, and might crash on a damaged one), then V8's data (at a multiple of 8 bytes, which spares V8
 * a copy to align it). A cache is only ever a head start: one that is missing, unreadable or damaged reads as none.
 * SHA-256 rather than a CRC: `node:crypto` is loaded by awl's start anyway, `node:zlib` is not (≈ 1 ms).
 */
import { createHash } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";

const MAGIC = 0x324c5741; // "AWL2"
const HEADER_BYTES = 40;

const digest = (data: Buffer): Buffer => createHash("sha256").update(data).digest();

/** V8's data in `file`, or undefined when there is none or it is not whole. */
export function readCodeCache(file: string): Buffer | undefined {
  try {
    const bytes = readFileSync(file);
    if (bytes.length <= HEADER_BYTES || bytes.readUInt32LE(0) !== MAGIC) return undefined;
    const data = bytes.subarray(HEADER_BYTES);
    return digest(data).equals(bytes.subarray(8, HEADER_BYTES)) ? data : undefined;
  } catch {
    return undefined; // none yet, or unreadable: the source is compiled
  }
}

/** Writes `data` to `file` whole or not at all (a temporary file renamed); the folder must exist. Throws when it cannot. */
export function writeCodeCache(file: string, data: Buffer): void {
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32LE(MAGIC, 0);
  digest(data).copy(header, 8);
  // Unique to this process and thread (a worker's write may run beside the main thread's).
  const temporary = `${file}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(temporary, Buffer.concat([header, data]));
  renameSync(temporary, file);
}
