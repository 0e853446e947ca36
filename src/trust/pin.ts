/**
 * Trust pinned to content (docs/permissions.md, "Trust"): when the user trusts a folder, awl records the digest
 * of each item of what it brings (src/trust/content.ts) in a pin record beside the user's config file
 * (`trusted/<sha256 of the folder's path>.json` next to `config.json`, where `trusted_folders` lives). At each start
 * a trusted folder's items are compared with the record: new and changed items are not loaded until the user
 * says yes again; removed items are dropped from the record once nothing waits for an answer (a removal runs
 * nothing new). A trusted folder
 * without a record (trusted before pins existed, or through a trusted parent folder) gets one of what it holds
 * now, said once.
 *
 * Record format, version 1:
 * `{ "version": 1, "folder": "/real/path", "items": { "kind:name": "sha256" }, "files": { "/abs/file": [size, mtimeMs, ctimeMs, ino, "sha256"] } }`.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { contentItems, itemKey, kindLabel, type ContentItem } from "./content.js";
import { FileDigests, type FileStamp } from "./file-digests.js";

export const PIN_VERSION = 1;

interface PinRecord {
  version: number;
  folder: string;
  items: Record<string, string>;
  files: Record<string, FileStamp>;
}

/** What changed in a trusted folder since its content was pinned. */
export interface PinChanges {
  added: ContentItem[];
  changed: ContentItem[];
  removed: Array<Pick<ContentItem, "kind" | "name">>;
}

/** A trusted folder's content against its pin. */
export interface PinCheck {
  folder: string;
  /** There was no record: one was made of what the folder holds now. */
  firstPin: boolean;
  /** How many items the folder holds now. */
  itemCount: number;
  changes: PinChanges;
  /** The `kind:name` keys of new and changed items: not loaded unless `accept()`ed (or `--trust-project`). */
  unpinned: ReadonlySet<string>;
  /** Pins what the folder holds now (the user trusted the change). */
  accept(): void;
}

/** The pin record's file for `folder` (a real path) beside the user's config file. */
export function pinPath(userConfigPath: string, folder: string): string {
  return join(dirname(userConfigPath), "trusted", `${createHash("sha256").update(folder).digest("hex").slice(0, 32)}.json`);
}

/** Compares the folder's content with its pin record, keeping the record's file stamps up to date. */
export function checkPin(folder: string, userConfigPath: string): PinCheck {
  const path = pinPath(userConfigPath, folder);
  const old = readRecord(path, folder);
  const files = new FileDigests(old?.files);
  const current = contentItems(folder, files);
  const currentDigests = Object.fromEntries([...current].map(([key, item]) => [key, item.digest]));
  const changes: PinChanges = { added: [], changed: [], removed: [] };
  const unpinned = new Set<string>();
  if (old) {
    for (const [key, item] of current) {
      const pinned = old.items[key];
      if (pinned === item.digest) continue;
      (pinned === undefined ? changes.added : changes.changed).push(item);
      unpinned.add(key);
    }
    for (const key of Object.keys(old.items)) {
      if (current.has(key)) continue;
      const at = key.indexOf(":");
      changes.removed.push({ kind: key.slice(0, at), name: key.slice(at + 1) });
    }
  }
  // A removal runs nothing new: the record forgets removed items, once no change waits for an answer (until then
  // it stays as the user trusted it, so putting the old content back is no change).
  const kept = !old ? currentDigests : unpinned.size > 0 ? old.items : Object.fromEntries(Object.entries(old.items).filter(([key]) => current.has(key)));
  const record = (items: Record<string, string>): PinRecord => ({ version: PIN_VERSION, folder, items, files: files.stamps() });
  const next = record(kept);
  if (!old || JSON.stringify(next) !== JSON.stringify(old)) writeRecord(path, next);
  return {
    folder,
    firstPin: !old,
    itemCount: current.size,
    changes,
    unpinned,
    accept: () => writeRecord(path, record(currentDigests)),
  };
}

/** Pins what the folder holds now (trusting it); used when the user trusts a folder. */
export function pinFolder(folder: string, userConfigPath: string): void {
  checkPin(folder, userConfigPath).accept();
}

/** Forgets the folder's pin (the user stopped trusting it). */
export function unpinFolder(folder: string, userConfigPath: string): void {
  rmSync(pinPath(userConfigPath, folder), { force: true });
}

/** The names of the keys' items of one kind. */
export function namesOf(keys: ReadonlySet<string>, kind: string): Set<string> {
  const prefix = `${kind}:`;
  return new Set([...keys].filter((key) => key.startsWith(prefix)).map((key) => key.slice(prefix.length)));
}

/** The changes in words, one entry per item: `added extension "fmt"`, `changed hook "PreToolUse (Bash): ./check.sh"`. */
export function changeList(changes: PinChanges): string[] {
  const say = (verb: string) => (item: Pick<ContentItem, "kind" | "name">) => `${verb} ${kindLabel(item.kind)} ${JSON.stringify(item.name)}`;
  return [...changes.added.map(say("added")), ...changes.changed.map(say("changed")), ...changes.removed.map(say("removed"))];
}

/** The one-line notice of a run that cannot ask: what was skipped and how to load it. */
export function unpinnedNotice(check: PinCheck): string {
  const skipped = changeList({ ...check.changes, removed: [] });
  return `${check.folder} changed since you trusted it, so its new content was not loaded: ${skipped.join(", ")}; run with --trust-project to load it once, or awl here interactively to review and trust it`;
}

/** The once-only notice of a trusted folder's first pin. */
export function firstPinNotice(check: PinCheck): string {
  return `trust of ${check.folder} is now pinned to its content (${check.itemCount} item${check.itemCount === 1 ? "" : "s"} recorded); from now on a new or changed extension, hook, allow rule or MCP server there is asked about again`;
}

function readRecord(path: string, folder: string): PinRecord | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as PinRecord;
    if (parsed.version === PIN_VERSION && parsed.folder === folder && typeof parsed.items === "object" && parsed.items !== null) {
      return { ...parsed, files: typeof parsed.files === "object" && parsed.files !== null ? parsed.files : {} };
    }
  } catch {
    // none yet (or unreadable: then it is made anew, as for a folder trusted before pins existed)
  }
  return undefined;
}

function writeRecord(path: string, record: PinRecord): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(record)}\n`);
  renameSync(temp, path);
}
