/**
 * `awl.fs.read_text` and `awl.fs.write_text` on the local disk, in the worker: the one pair through which the
 * bundled file tools read and write text, so another host (an editor speaking ACP) can serve it instead.
 *
 * Reading lines (`offset`/`limit`) streams the file in chunks and copies only the lines asked for: the 200 lines
 * near the end of a 10 MB file cost one pass of `indexOf` over its bytes, never a 10 MB Lua string; with
 * `maxLine` a line is copied only up to that many bytes, so a file that is one 2 GB line costs no more. Writing is
 * atomic (a temp file in the same folder, then rename), keeps an existing file's permission bits, writes through
 * a symlink to its target, and creates missing parent folders.
 */
import {
  chmodSync,
  closeSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { HostRecord, HostValue } from "./lua-c.js";
import { fsFailure } from "./host-fs.js";
import { typeOf } from "./host-dir.js";

/** A whole-file read larger than this is refused (a Lua state holds 256 MB): read it by lines instead. */
export const MAX_WHOLE_READ_BYTES = 64 * 1024 * 1024;
/** Past this many bytes a line read stops counting the file's lines (`total_lines` is then absent). */
const MAX_COUNT_BYTES = 256 * 1024 * 1024;
/** How much of the start of a file decides `binary` (a NUL byte in it). */
const SNIFF_BYTES = 8192;
const CHUNK_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

export interface ReadTextOptions {
  /** First line to return, 1-based. */
  offset?: number;
  /** Most lines to return. */
  limit?: number;
  /** Longest line text returned, in bytes: a longer line is cut there (its `\n` kept). */
  maxLine?: number;
}

const describe = (path: string | Buffer) => String(path);

/** Why a file cannot be read as text, or undefined: only regular files can (a FIFO would block, a device never end). */
function notRegular(stat: Stats, path: string | Buffer): HostValue[] | undefined {
  if (stat.isFile()) return undefined;
  if (stat.isDirectory()) return [null, `${describe(path)}: Is a directory`, 21];
  return [null, `${describe(path)}: not a regular file (a ${typeOf(stat).replace("_", " ")})`, 22];
}

/**
 * The text of a file (its bytes, unchanged) and `{ size, total_lines?, first_line, last_line, binary }`, or
 * (nil, message, errno). With `offset`/`limit` only those lines, each with its own line ending.
 */
export function readText(path: string | Buffer, options: ReadTextOptions): HostValue[] {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (err) {
    return fsFailure(err, `${describe(path)}: `);
  }
  try {
    const stat = fstatSync(fd);
    const refused = notRegular(stat, path);
    if (refused) return refused;
    if (options.offset === undefined && options.limit === undefined && options.maxLine === undefined) {
      if (stat.size > MAX_WHOLE_READ_BYTES) {
        return [null, `${describe(path)}: the file is ${mb(stat.size)}, over the ${mb(MAX_WHOLE_READ_BYTES)} awl reads at once; read it by lines (offset, limit)`, 27];
      }
      const bytes = readAll(fd, stat.size);
      const lines = countLines(bytes, 0, bytes.length) + (bytes.length > 0 && bytes[bytes.length - 1] !== NEWLINE ? 1 : 0);
      return [bytes, { size: bytes.length, total_lines: lines, first_line: 1, last_line: lines, binary: hasNul(bytes) }];
    }
    return readLines(fd, stat.size, Math.max(1, options.offset ?? 1), options.limit ?? Number.MAX_SAFE_INTEGER, options.maxLine ?? Infinity);
  } catch (err) {
    return fsFailure(err, `${describe(path)}: `);
  } finally {
    closeSync(fd);
  }
}

/** {@link readText} for text a host served whole (e.g. an editor's buffer): the same values, from the bytes. */
export function textOfBytes(bytes: Buffer, options: ReadTextOptions): HostValue[] {
  const total = countLines(bytes, 0, bytes.length) + (bytes.length > 0 && bytes[bytes.length - 1] !== NEWLINE ? 1 : 0);
  const binary = hasNul(bytes);
  if (options.offset === undefined && options.limit === undefined && options.maxLine === undefined) {
    return [bytes, { size: bytes.length, total_lines: total, first_line: 1, last_line: total, binary }];
  }
  const first = Math.max(1, options.offset ?? 1);
  const last = first + (options.limit ?? Number.MAX_SAFE_INTEGER) - 1;
  const startOf = (line: number): number => {
    let at = 0;
    for (let n = 1; n < line; n++) {
      const nl = bytes.indexOf(NEWLINE, at);
      if (nl < 0) return bytes.length;
      at = nl + 1;
    }
    return at;
  };
  const start = startOf(first);
  const end = last >= total ? bytes.length : startOf(last + 1);
  const lines = bytes.subarray(start, Math.max(start, end));
  return [options.maxLine === undefined ? lines : cutLines(lines, options.maxLine), { size: bytes.length, total_lines: total, first_line: first, last_line: Math.min(last, total), binary }];
}

const NEWLINE_BYTES = Buffer.from("\n");

/** `text` with each line's text cut to at most `max` bytes (line endings kept). */
function cutLines(text: Buffer, max: number): Buffer {
  const parts: Buffer[] = [];
  let start = 0;
  while (start < text.length) {
    const nl = text.indexOf(NEWLINE, start);
    const end = nl < 0 ? text.length : nl;
    if (end - start <= max) parts.push(text.subarray(start, nl < 0 ? end : end + 1));
    else parts.push(text.subarray(start, start + max), ...(nl < 0 ? [] : [NEWLINE_BYTES]));
    start = end + 1;
  }
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

function readAll(fd: number, size: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    // The size may have changed since the stat: read until the end, whatever it is now.
    const buffer = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, size - total + 1));
    const count = readSync(fd, buffer, 0, buffer.length, total);
    if (count === 0) break;
    chunks.push(buffer.subarray(0, count));
    total += count;
    if (total > MAX_WHOLE_READ_BYTES) break;
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

function countLines(bytes: Uint8Array, from: number, to: number): number {
  let count = 0;
  let at = from;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (;;) {
    at = buffer.indexOf(NEWLINE, at);
    if (at < 0 || at >= to) return count;
    count++;
    at++;
  }
}

function hasNul(bytes: Uint8Array): boolean {
  return bytes.subarray(0, SNIFF_BYTES).includes(0);
}

/**
 * Lines [first, first + limit) of an open file, read in chunks, each line's text cut to `maxLine` bytes; the line
 * count goes on to the end (up to a cap).
 */
function readLines(fd: number, size: number, first: number, limit: number, maxLine: number): HostValue[] {
  const last = first + limit - 1;
  const picked: Buffer[] = [];
  let line = 1; // the line the next byte belongs to
  let lineBytes = 0; // bytes of that line's text before this chunk
  let position = 0;
  let binary = false;
  let endsWithNewline = true;
  let counting = true;
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  for (;;) {
    const count = readSync(fd, buffer, 0, buffer.length, position);
    if (count === 0) break;
    if (position === 0) binary = buffer.subarray(0, Math.min(count, SNIFF_BYTES)).includes(0);
    const chunk = buffer.subarray(0, count);
    let start = 0;
    while (start < count) {
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl < 0 ? count : nl + 1;
      if (line >= first && line <= last) {
        const textEnd = nl < 0 ? count : nl;
        const room = maxLine - lineBytes;
        if (textEnd - start <= room) picked.push(Buffer.from(chunk.subarray(start, end)));
        else {
          if (room > 0) picked.push(Buffer.from(chunk.subarray(start, start + room)));
          if (nl >= 0) picked.push(NEWLINE_BYTES);
        }
        lineBytes += textEnd - start;
      }
      if (nl < 0) break;
      line++;
      lineBytes = 0;
      start = end;
    }
    endsWithNewline = chunk[count - 1] === NEWLINE;
    position += count;
    // Past the cap, stop once nothing more is picked: past the last line, or inside a line already cut.
    if (position > MAX_COUNT_BYTES && (line > last || (line >= first && lineBytes > maxLine))) {
      counting = false;
      break;
    }
  }
  const total = endsWithNewline || position === 0 ? line - 1 : line;
  const text = Buffer.concat(picked);
  const info: HostRecord = {
    size,
    first_line: first,
    last_line: Math.min(last, total),
    binary,
    ...(counting ? { total_lines: total } : { more: true }),
  };
  return [text, info];
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Where a write to `path` lands: the file itself, or a symlink's target (the link stays a link). */
function writeTarget(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    // Missing, or a dangling symlink: follow the link by hand so the write creates its target.
    try {
      if (lstatSync(path).isSymbolicLink()) return resolve(dirname(path), readlinkSync(path));
    } catch {
      // not there at all
    }
    return path;
  }
}

/** The nearest existing ancestor of the folder `dir` (or `dir` itself) when it is not a folder, or undefined. */
function fileOnTheWay(dir: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    try {
      return statSync(at).isDirectory() ? undefined : at;
    } catch {
      if (dirname(at) === at) return undefined;
    }
  }
}

/**
 * Writes `bytes` to `path` atomically: a temp file beside it, flushed, then renamed over it, so a reader (or a
 * crash) sees the old content or the new, never a mix. Parent folders are created; an existing file keeps its
 * permission bits. Returns (true, created) or (nil, message, errno).
 */
export function writeText(path: string, bytes: Uint8Array): HostValue[] {
  const target = writeTarget(path);
  let existing: Stats | undefined;
  try {
    existing = statSync(target);
  } catch {
    existing = undefined;
  }
  if (existing && !existing.isFile()) return notRegular(existing, path)!;
  const blocker = existing ? undefined : fileOnTheWay(dirname(target));
  if (blocker) return [null, `${path}: ${blocker} is a file, not a folder`, 20];
  const temp = join(dirname(target), `.${basename(target)}.awl-${process.pid}-${Math.random().toString(36).slice(2, 8)}.tmp`);
  let fd: number | undefined;
  try {
    mkdirSync(dirname(target), { recursive: true });
    fd = openSync(temp, "wx", existing ? existing.mode & 0o7777 : 0o666);
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
    fsyncSync(fd);
    if (existing) chmodSync(temp, existing.mode & 0o7777); // open's mode went through the umask
    closeSync(fd);
    fd = undefined;
    renameSync(temp, target);
    return [true, existing === undefined];
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(temp);
    } catch {
      // never created
    }
    return fsFailure(err, `${path}: `);
  }
}
