/**
 * The checkpoint store's objects (docs/checkpoints.md): file contents, symbolic links' targets and folder listings,
 * each stored once under the SHA-256 of its bytes (`objects/ab/cdef…`), shared by every checkpoint of every
 * workspace. An object is written to a temporary file and renamed into place, so one is either whole or absent.
 */
import { createHash, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import { join } from "node:path";

/** The SHA-256 of `data`, in hex. */
export function hashOf(data: Uint8Array | string): string {
  return createHash("sha256").update(data).digest("hex");
}

const HASH = /^[0-9a-f]{64}$/;

/** The store itself could not be written (a full disk, no permission): the checkpoint is incomplete, never the workspace's fault. */
export class StoreWriteError extends Error {
  constructor(
    readonly path: string,
    readonly code: string,
  ) {
    super(`could not write the checkpoint store at ${path} (${code})`);
  }
}

export class ObjectStore {
  private readonly objects: string;
  private readonly tmp: string;
  /** Objects known to exist: an unchanged tree's folders are not stat-ed again. */
  private readonly known = new Set<string>();

  constructor(readonly dir: string) {
    this.objects = join(dir, "objects");
    this.tmp = join(dir, "tmp");
  }

  /** Where object `hash` lives. */
  path(hash: string): string {
    if (!HASH.test(hash)) throw new Error(`not an object id: ${JSON.stringify(hash)}`);
    return join(this.objects, hash.slice(0, 2), hash.slice(2));
  }

  has(hash: string): boolean {
    if (this.known.has(hash)) return true;
    if (!fs.existsSync(this.path(hash))) return false;
    this.known.add(hash);
    return true;
  }

  /** Stores `data` (its hash given when the caller has it) and returns its id; throws StoreWriteError (ENOSPC). */
  put(data: Uint8Array | string, hash: string = hashOf(data)): string {
    if (this.has(hash)) return hash;
    const final = this.path(hash);
    const tmp = join(this.tmp, `${hash.slice(0, 16)}-${randomBytes(4).toString("hex")}`);
    try {
      fs.mkdirSync(join(final, ".."), { recursive: true, mode: 0o700 });
      fs.mkdirSync(this.tmp, { recursive: true, mode: 0o700 });
      fs.writeFileSync(tmp, data, { mode: 0o600 });
      fs.renameSync(tmp, final);
    } catch (e) {
      fs.rmSync(tmp, { force: true });
      throw new StoreWriteError(final, (e as { code?: string }).code ?? String(e));
    }
    this.known.add(hash);
    return hash;
  }

  /** The bytes of object `hash`, checked against it: a damaged object is an error, never restored. */
  get(hash: string): Buffer {
    const data = fs.readFileSync(this.path(hash));
    if (hashOf(data) !== hash) throw new Error(`the checkpoint object ${this.path(hash)} is damaged (its content does not match its name)`);
    return data;
  }

  /** Every object's id and size (for pruning and `awl checkpoints`). */
  *list(): Generator<{ hash: string; size: number }> {
    let prefixes: string[];
    try {
      prefixes = fs.readdirSync(this.objects);
    } catch {
      return;
    }
    for (const prefix of prefixes) {
      let names: string[];
      try {
        names = fs.readdirSync(join(this.objects, prefix));
      } catch {
        continue;
      }
      for (const name of names) {
        const hash = prefix + name;
        if (!HASH.test(hash)) continue;
        try {
          yield { hash, size: fs.statSync(join(this.objects, prefix, name)).size };
        } catch {
          // removed meanwhile
        }
      }
    }
  }

  /** Deletes object `hash` (pruning). */
  remove(hash: string): void {
    fs.rmSync(this.path(hash), { force: true });
    this.known.delete(hash);
  }
}
