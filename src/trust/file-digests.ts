/**
 * Content digests of files, re-reading only what changed: a file whose size, mtime, ctime and inode are those
 * recorded with its digest keeps that digest; any difference re-reads and re-hashes it. ctime cannot be set by
 * a user (the kernel stamps it on every write, rename and `touch -d`), so restoring a file's size and mtime
 * after changing it still changes its ctime and it is hashed again (docs/permissions.md, "Trust").
 */
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";

/** `[size, mtimeMs, ctimeMs, ino, sha256 hex]` of one file, as recorded. */
export type FileStamp = [number, number, number, number, string];

/** Hashes files through a cache of stamps (by absolute path); `stamps()` is the cache to keep for next time. */
export class FileDigests {
  private readonly next = new Map<string, FileStamp>();

  constructor(private readonly previous: Readonly<Record<string, FileStamp>> = {}) {}

  /** The sha256 of the file's bytes; undefined when it cannot be read. */
  digest(path: string): string | undefined {
    let stat;
    try {
      stat = statSync(path);
    } catch {
      return undefined;
    }
    const known = this.previous[path];
    if (known && known[0] === stat.size && known[1] === stat.mtimeMs && known[2] === stat.ctimeMs && known[3] === stat.ino) {
      this.next.set(path, known);
      return known[4];
    }
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch {
      return undefined;
    }
    const sha = createHash("sha256").update(bytes).digest("hex");
    this.next.set(path, [stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino, sha]);
    return sha;
  }

  /** The stamps of every file hashed (or found unchanged) through this object. */
  stamps(): Record<string, FileStamp> {
    return Object.fromEntries(this.next);
  }
}
