/**
 * Files for Lua's `io` and `os` on the real file system, with synchronous node:fs calls (a worker
 * may block). Errors come back the Lua way: (nil, message, errno), with C's strerror wording.
 * Positions are kept here because Node has no lseek: reads and writes pass them explicitly.
 */
import { chunkNamed } from "./compiled-chunk.js";
import {
  closeSync,
  fstatSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { StreamScrubber } from "../../../util/secrets.js";
import type { HostValue } from "./lua-c.js";

/** Lua source files (extensions, modules) larger than this are refused with a clear message. */
export const MAX_SOURCE_BYTES = 10 * 1024 * 1024;

const STRERROR: Record<string, [string, number]> = {
  EPERM: ["Operation not permitted", 1],
  ENOENT: ["No such file or directory", 2],
  EIO: ["Input/output error", 5],
  EBADF: ["Bad file descriptor", 9],
  EACCES: ["Permission denied", 13],
  EBUSY: ["Device or resource busy", 16],
  EEXIST: ["File exists", 17],
  EXDEV: ["Invalid cross-device link", 18],
  ENOTDIR: ["Not a directory", 20],
  EISDIR: ["Is a directory", 21],
  EINVAL: ["Invalid argument", 22],
  EMFILE: ["Too many open files", 24],
  ENOSPC: ["No space left on device", 28],
  ESPIPE: ["Illegal seek", 29],
  EROFS: ["Read-only file system", 30],
  ENAMETOOLONG: ["File name too long", 36],
  ENOTEMPTY: ["Directory not empty", 39],
  ELOOP: ["Too many levels of symbolic links", 40],
};

/** (nil, message, errno) for a node:fs error, worded like C's strerror. */
export function fsFailure(err: unknown, prefix = ""): HostValue[] {
  const e = err as NodeJS.ErrnoException;
  const known = e && typeof e.code === "string" ? STRERROR[e.code] : undefined;
  const message = known ? known[0] : e instanceof Error ? e.message : String(err);
  const errno = known ? known[1] : typeof e?.errno === "number" ? Math.abs(e.errno) : 0;
  return [null, prefix + message, errno];
}

interface OpenFile {
  fd: number;
  pos: number;
  append: boolean;
  seekable: boolean;
}

/** A file of `awl.fs.open_spill`: what is written goes through its scrubber (known API keys replaced). */
interface SpillFile extends OpenFile {
  scrub: StreamScrubber;
}

export class HostFiles {
  private readonly files = new Map<number, OpenFile>();
  /**
   * Spill files by a handle of their own, never reused: one is closed when its call ends, and a handle kept past
   * that must not reach whatever file got its descriptor next.
   */
  private readonly spills = new Map<number, SpillFile>();
  private nextSpill = 1;
  /** Relative paths resolve against the running call's cwd (workers cannot chdir). */
  cwd: string;

  constructor(cwd: string) {
    this.cwd = cwd;
  }

  path(p: string): string {
    return resolve(this.cwd, p);
  }

  open(path: string, mode: string): HostValue[] {
    try {
      const fd = openSync(this.path(path), mode);
      const stat = fstatSync(fd);
      this.files.set(fd, { fd, pos: 0, append: mode.startsWith("a"), seekable: stat.isFile() || stat.isBlockDevice() });
      return [fd];
    } catch (err) {
      return fsFailure(err);
    }
  }

  /**
   * A new file, readable by its owner only, whose writes go through `scrub` (`awl.fs.open_spill`: an output saved
   * whole may hold anything a command printed); its handle. An existing file is an error.
   */
  openSpill(path: string, scrub: StreamScrubber): HostValue[] {
    try {
      const fd = openSync(this.path(path), "wx", 0o600);
      const handle = this.nextSpill++;
      this.spills.set(handle, { fd, pos: 0, append: false, seekable: true, scrub });
      return [handle];
    } catch (err) {
      return fsFailure(err);
    }
  }

  writeSpill(handle: number, bytes: Uint8Array): HostValue[] {
    const f = this.spills.get(handle);
    return f ? this.writeTo(f, f.scrub.push(bytes)) : [null, "the file is closed", 9];
  }

  /** Writes what the scrubber held back and closes the file. */
  closeSpill(handle: number): HostValue[] {
    const f = this.spills.get(handle);
    if (!f) return [null, "the file is closed", 9];
    this.spills.delete(handle);
    const written = this.writeTo(f, f.scrub.end());
    try {
      closeSync(f.fd);
    } catch (err) {
      return fsFailure(err);
    }
    return written;
  }

  /** Closes the spill files still open (their call has ended), with what they held back. */
  closeSpills(): void {
    for (const handle of [...this.spills.keys()]) this.closeSpill(handle);
  }

  private file(fd: number): OpenFile {
    const f = this.files.get(fd);
    if (!f) throw Object.assign(new Error("bad file"), { code: "EBADF" });
    return f;
  }

  /** Reads up to `n` bytes into `into` (a view of wasm memory); returns the count. */
  read(fd: number, into: Uint8Array): number {
    const f = this.file(fd);
    const count = readSync(f.fd, into, 0, into.length, f.seekable ? f.pos : null);
    f.pos += count;
    return count;
  }

  write(fd: number, data: Uint8Array): HostValue[] {
    try {
      return this.writeTo(this.file(fd), data);
    } catch (err) {
      return fsFailure(err);
    }
  }

  private writeTo(f: OpenFile, data: Uint8Array): HostValue[] {
    try {
      let done = 0;
      while (done < data.length) {
        done += writeSync(f.fd, data, done, data.length - done, f.append || !f.seekable ? null : f.pos + done);
      }
      f.pos = f.append && f.seekable ? fstatSync(f.fd).size : f.pos + done;
      return [true];
    } catch (err) {
      return fsFailure(err);
    }
  }

  seek(fd: number, whence: string, offset: number): HostValue[] {
    try {
      const f = this.file(fd);
      if (!f.seekable) return [null, "Illegal seek", 29];
      const base = whence === "set" ? 0 : whence === "cur" ? f.pos : fstatSync(f.fd).size;
      const pos = base + offset;
      if (pos < 0) return [null, "Invalid argument", 22];
      f.pos = pos;
      return [pos];
    } catch (err) {
      return fsFailure(err);
    }
  }

  close(fd: number): HostValue[] {
    try {
      this.file(fd);
      this.files.delete(fd);
      closeSync(fd);
      return [true];
    } catch (err) {
      return fsFailure(err);
    }
  }

  remove(path: string): HostValue[] {
    const p = this.path(path);
    try {
      unlinkSync(p);
      return [true];
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "EISDIR" && code !== "EPERM") return fsFailure(err);
      try {
        rmdirSync(p); // C's remove() also removes empty directories
        return [true];
      } catch (dirErr) {
        return fsFailure(dirErr);
      }
    }
  }

  rename(from: string, to: string): HostValue[] {
    try {
      renameSync(this.path(from), this.path(to));
      return [true];
    } catch (err) {
      return fsFailure(err);
    }
  }

  /** Creates an empty, unique file (like mkstemp) and returns its name. */
  tmpname(): HostValue[] {
    for (let attempt = 0; attempt < 10; attempt++) {
      const name = join(tmpdir(), `lua_${Math.random().toString(36).slice(2, 10)}`); // "wx" below makes it unique
      try {
        closeSync(openSync(name, "wx", 0o600));
        return [name];
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") return fsFailure(err);
      }
    }
    return [null, "cannot create a temporary file"];
  }

  isFile(path: string): boolean {
    try {
      return statSync(this.path(path), { throwIfNoEntry: false })?.isFile() ?? false;
    } catch {
      return false;
    }
  }

  /** A Lua source file's bytes, or (nil, message) naming the file; files over MAX_SOURCE_BYTES are refused. */
  readSource(path: string): HostValue[] {
    const p = this.path(path);
    try {
      const stat = statSync(p);
      if (stat.isDirectory()) return [null, `cannot read ${p}: Is a directory`];
      if (stat.size > MAX_SOURCE_BYTES) {
        const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
        return [null, `${p} is ${mb(stat.size)} MB; awl loads Lua files up to ${mb(MAX_SOURCE_BYTES)} MB`];
      }
      return [readFileSync(p)];
    } catch (err) {
      return fsFailure(err, `cannot read ${p}: `).slice(0, 2);
    }
  }

  /**
   * The build's bytecode of `path` (`PATH.luac` beside it: awl's runtime, its bundled extensions), naming `path`
   * as its source; null when `path` is not in awl's own folders (`isOwn`: nobody else's .luac is ever loaded),
   * there is none, it is older than the text (edited since the build), or it is not such a chunk.
   */
  readCompiled(path: string, isOwn: (file: string) => boolean): Uint8Array | null {
    try {
      const file = this.path(path);
      if (!isOwn(file)) return null;
      const compiled = `${file}c`;
      if (statSync(compiled).mtimeMs < statSync(file).mtimeMs) return null;
      return chunkNamed(readFileSync(compiled), file) ?? null;
    } catch {
      return null; // no bytecode: the text is loaded
    }
  }

}
