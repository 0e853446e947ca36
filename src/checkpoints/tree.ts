/**
 * A folder's listing as the store keeps it (docs/checkpoints.md): one JSON array of entries sorted by name,
 * `[name, kind, object, mode]`, stored as an object of its own, so an unchanged folder is shared by every
 * checkpoint that holds it and a changed file rewrites only the folders above it.
 */
import type { ObjectStore } from "./objects.js";

/** `f` a file, `l` a symbolic link (its object holds the target), `d` a folder (its object is its listing), `s` skipped: not recorded, left alone by a restore. */
export type EntryKind = "f" | "l" | "d" | "s";

/** One entry of a folder: for `f` the permission bits (the executable bit among them) are kept. */
export type TreeEntry = [name: string, kind: EntryKind, object: string | null, mode: number];

/** A file, link or folder of a checkpoint, by its path relative to the workspace (`/`-separated). */
export interface FlatEntry {
  kind: EntryKind;
  object: string | null;
  mode: number;
}

/** The listing's bytes (what its object id is the hash of). */
export function encodeTree(entries: readonly TreeEntry[]): string {
  return JSON.stringify(entries);
}

export function decodeTree(text: string, where: string): TreeEntry[] {
  const value: unknown = JSON.parse(text);
  const valid =
    Array.isArray(value) &&
    value.every(
      (e) =>
        Array.isArray(e) &&
        typeof e[0] === "string" &&
        ["f", "l", "d", "s"].includes(e[1] as string) &&
        (e[2] === null || typeof e[2] === "string") &&
        typeof e[3] === "number",
    );
  if (!valid) throw new Error(`the checkpoint folder listing ${where} is not valid`);
  return value as TreeEntry[];
}

/** Every entry under the folder whose listing is `tree`, by relative path, folders before what they hold. */
export function flattenTree(objects: ObjectStore, tree: string, prefix = "", into = new Map<string, FlatEntry>()): Map<string, FlatEntry> {
  const entries = decodeTree(objects.get(tree).toString("utf8"), objects.path(tree));
  for (const [name, kind, object, mode] of entries) {
    const path = prefix === "" ? name : `${prefix}/${name}`;
    into.set(path, { kind, object, mode });
    if (kind === "d" && object !== null) flattenTree(objects, object, path, into);
  }
  return into;
}

/**
 * The entries of `first` and `second` (and `others`, e.g. a baseline) by relative path, leaving out what lies inside a
 * folder that `first` and `second` hold as the same object (the two are identical there; the folder itself is kept).
 * What a restore plans from two trees never lies in such a folder, so it needs only this part of each.
 */
export function flattenDiffering(objects: ObjectStore, first: string, second: string, others: readonly string[] = []): Map<string, FlatEntry>[] {
  const maps = [first, second, ...others].map(() => new Map<string, FlatEntry>());
  const walk = (listings: (string | null)[], prefix: string): void => {
    const decoded = listings.map((listing) => (listing === null ? [] : decodeTree(objects.get(listing).toString("utf8"), objects.path(listing))));
    const children = new Map<string, (string | null)[]>();
    decoded.forEach((entries, i) => {
      for (const [name, kind, object, mode] of entries) {
        const path = prefix === "" ? name : `${prefix}/${name}`;
        maps[i]!.set(path, { kind, object, mode });
        if (kind !== "d" || object === null) continue;
        const below = children.get(name) ?? listings.map(() => null);
        below[i] = object;
        children.set(name, below);
      }
    });
    for (const [name, below] of children) {
      if (below[0] !== null && below[0] === below[1]) continue;
      walk(below, prefix === "" ? name : `${prefix}/${name}`);
    }
  };
  walk([first, second, ...others], "");
  return maps;
}

/** Every object a tree reaches (itself included), for pruning. */
export function reachable(objects: ObjectStore, tree: string, into: Set<string>): void {
  if (into.has(tree)) return;
  into.add(tree);
  let entries: TreeEntry[];
  try {
    entries = decodeTree(objects.get(tree).toString("utf8"), objects.path(tree));
  } catch {
    return;
  }
  for (const [, kind, object] of entries) {
    if (object === null) continue;
    if (kind === "d") reachable(objects, object, into);
    else into.add(object);
  }
}
