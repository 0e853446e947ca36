/**
 * A V8 code cache kept on disk (the Lua worker's, extensions/lua/worker/loader.ts, and the CLI's own modules',
 * cli/compile-cache.ts): a file of MAGIC, the payload's CRC-32 (V8 checks a code cache's header, not its body), then
 * V8's data. A cache is only ever a head start: one that is missing, unreadable or damaged reads as none.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { threadId } from "node:worker_threads";
import { crc32 } from "node:zlib";

const MAGIC = 0x41574c43; // "AWLC"
const HEADER_BYTES = 8;

/** V8's data in `file`, or undefined when there is none or it is not whole. */
export function readCodeCache(file: string): Buffer | undefined {
  try {
    const bytes = readFileSync(file);
    if (bytes.length <= HEADER_BYTES || bytes.readUInt32LE(0) !== MAGIC) return undefined;
    const data = bytes.subarray(HEADER_BYTES);
    return crc32(data) === bytes.readUInt32LE(4) ? data : undefined;
  } catch {
    return undefined; // none yet, or unreadable: the source is compiled
  }
}

/** Writes `data` to `file` whole or not at all (a temporary file renamed); the folder must exist. Throws when it cannot. */
export function writeCodeCache(file: string, data: Buffer): void {
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt32LE(crc32(data), 4);
  const temporary = `${file}.${process.pid}-${threadId}.tmp`;
  writeFileSync(temporary, Buffer.concat([header, data]));
  renameSync(temporary, file);
}
