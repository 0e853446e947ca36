/**
 * The files of a plugin package and its content digest (docs/plugins.md, "Lock file"): every regular file and
 * symlink below the root, by relative path, hashed in path order. A symlink whose target resolves outside the
 * root, and anything that is neither a file, a folder nor a symlink, is refused: the package cannot reach a file
 * it did not ship (Agent Plugins §4.1). File bytes are read through {@link FileDigests}, so a check of an installed
 * package whose files did not change (size, mtime, ctime, inode) reads no file.
 */
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readlinkSync, realpathSync, type Stats } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { FileDigests } from "../trust/file-digests.js";

/** A package's content, summed up. */
export interface PackageContent {
  /** `sha256:` and the hex digest of every path and its content. */
  digest: string;
  files: number;
  bytes: number;
}

/** A package that cannot be installed or loaded as it is. */
export class PackageFilesError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PackageFilesError";
  }
}

/** Folders never part of a package: version control and npm's own state. */
const SKIPPED = new Set([".git"]);

/**
 * The digest of the package at `root`; throws {@link PackageFilesError} for a link out of it or a file that is not
 * one. `visit` sees every folder, file and link walked, with its `lstat`.
 */
export function packageContent(root: string, files: FileDigests = new FileDigests(), visit?: (path: string, stat: Stats) => void): PackageContent {
  const top = resolve(root);
  const realRoot = realpathSync(top);
  const hash = createHash("sha256");
  let count = 0;
  let bytes = 0;
  const walk = (dir: string): void => {
    visit?.(dir, lstatSync(dir));
    for (const name of readdirSync(dir).sort()) {
      if (SKIPPED.has(name) && dir === top) continue;
      const path = join(dir, name);
      const rel = relative(top, path).split(sep).join("/");
      const stat = lstatSync(path);
      if (!stat.isDirectory()) visit?.(path, stat);
      if (stat.isSymbolicLink()) {
        const target = readlinkSync(path);
        let real: string;
        try {
          real = realpathSync(path);
        } catch {
          throw new PackageFilesError(`${rel}: a symlink to ${target}, which does not exist`);
        }
        if (real !== realRoot && !real.startsWith(realRoot + sep)) throw new PackageFilesError(`${rel}: a symlink pointing out of the plugin (${target}); refused`);
        hash.update(`l ${rel}\0${target}\n`);
        count++;
      } else if (stat.isDirectory()) {
        walk(path);
      } else if (stat.isFile()) {
        const sha = files.digest(path);
        if (sha === undefined) throw new PackageFilesError(`${rel}: cannot be read`);
        hash.update(`f ${rel}\0${(stat.mode & 0o111) !== 0 ? "x" : "-"}${sha}\n`);
        count++;
        bytes += stat.size;
      } else {
        throw new PackageFilesError(`${rel}: not a regular file, folder or symlink; refused`);
      }
    }
  };
  walk(top);
  return { digest: `sha256:${hash.digest("hex")}`, files: count, bytes };
}

/** `12.3 KB`. */
export function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} bytes`;
}
