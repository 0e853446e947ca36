/**
 * `awl.fs.stat` and `awl.fs.list` in the worker: file metadata and directory listings as Lua tables, built
 * by node:fs synchronously (a worker may block). Paths arrive as the bytes Lua holds, so a file name that is
 * not UTF-8 still names the right file; names go back to Lua byte for byte.
 */
import { lstatSync, readdirSync, realpathSync, statSync, type Stats } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { HostRecord, HostValue } from "./lua-c.js";
import { fsFailure } from "./host-fs.js";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }); // a name may start with U+FEFF

/** A file-system path from Lua's bytes: a string when they are UTF-8, else a Buffer (absolute, against `cwd`). */
export function pathFromBytes(bytes: Uint8Array, cwd: string): string | Buffer {
  try {
    return resolve(cwd, strictUtf8.decode(bytes));
  } catch {
    if (bytes[0] === 0x2f) return Buffer.from(bytes);
    return Buffer.concat([Buffer.from(`${cwd}/`), bytes]);
  }
}

/** The type word Lua sees for a stat result. */
export function typeOf(stat: Stats): string {
  if (stat.isFile()) return "file";
  if (stat.isDirectory()) return "directory";
  if (stat.isSymbolicLink()) return "symlink";
  if (stat.isFIFO()) return "fifo";
  if (stat.isSocket()) return "socket";
  if (stat.isCharacterDevice()) return "char_device";
  return "block_device";
}

function record(stat: Stats, link: boolean): HostRecord {
  return { type: typeOf(stat), size: stat.size, mtime: stat.mtimeMs / 1000, mode: stat.mode & 0o7777, link };
}

/**
 * `{ type, size, mtime, mode, link }` for a path, following symlinks (`link` says the path is one; a symlink
 * whose target is missing is reported as itself, type "symlink"), or (nil, message, errno).
 */
export function statPath(path: string | Buffer): HostValue[] {
  let own: Stats;
  try {
    own = lstatSync(path);
  } catch (err) {
    return fsFailure(err, `${String(path)}: `);
  }
  if (!own.isSymbolicLink()) return [record(own, false)];
  try {
    return [record(statSync(path), true)];
  } catch {
    return [record(own, true)]; // dangling or looping: the link itself
  }
}

/**
 * `awl.fs.real_path`: the absolute path with `..`, `.` and every symlink resolved, the file itself need not exist
 * (its nearest existing folder is resolved and the rest appended), as the bytes of the name; or (nil, message,
 * errno) when a folder on the way cannot be read.
 */
export function realPath(path: string | Buffer): HostValue[] {
  const asText = typeof path === "string" ? path : path.toString("latin1");
  const back = (p: string): Uint8Array => (typeof path === "string" ? Buffer.from(p) : Buffer.from(p, "latin1"));
  let missing = "";
  let at = asText;
  for (;;) {
    try {
      const real = realpathSync.native(typeof path === "string" ? at : Buffer.from(at, "latin1"), { encoding: "buffer" });
      const head = typeof path === "string" ? real.toString("utf8") : real.toString("latin1");
      return [back(missing ? join(head, missing) : head)];
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code !== "ENOENT" && code !== "ENOTDIR") || dirname(at) === at) return fsFailure(err, `${asText}: `);
      missing = missing ? join(basename(at), missing) : basename(at);
      at = dirname(at);
    }
  }
}

/** Plain byte order of two names (the same everywhere, unlike locale order). */
function compareBytes(a: Buffer, b: Buffer): number {
  return Buffer.compare(a, b);
}

/**
 * A directory's entries, sorted by name in byte order, each `{ name, type, size, mtime, mode, link }` with symlinks
 * followed as `statPath` does; or (nil, message, errno). At most `limit` entries (all when 0); the second value is
 * how many there are in all.
 */
export function listDir(dir: string | Buffer, limit: number): HostValue[] {
  let names: Buffer[];
  try {
    names = readdirSync(dir, { encoding: "buffer" });
  } catch (err) {
    return fsFailure(err, `${String(dir)}: `);
  }
  names.sort(compareBytes);
  const total = names.length;
  const shown = limit > 0 ? names.slice(0, limit) : names;
  const base = Buffer.isBuffer(dir) ? dir : Buffer.from(dir);
  const slash = Buffer.from("/");
  const entries: HostValue[] = [];
  for (const name of shown) {
    const [info] = statPath(Buffer.concat([base, slash, name]));
    // An entry that vanished between the listing and its stat is left out, as if listed a moment later.
    if (info && typeof info === "object" && !(info instanceof Uint8Array) && !Array.isArray(info)) entries.push({ name, ...info });
  }
  return [entries, total];
}
