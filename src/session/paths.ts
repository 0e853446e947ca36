/** Where sessions live and how their files are named. */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { awlDataDir } from "../config/paths.js";

/** `$XDG_DATA_HOME/awl/sessions`, or `~/.local/share/awl/sessions` (a relative XDG_DATA_HOME is ignored, as the XDG spec says). */
export function defaultSessionDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(awlDataDir(env), "sessions");
}

/**
 * A new session id: UTC time to the millisecond, then random hex, e.g. `20250314-153012-123-7f3a9c`.
 * Ids sort by creation time; the random part keeps two sessions made in the same millisecond apart
 * (and the file is created exclusively, so a clash is retried, never overwritten).
 */
export function newSessionId(now: Date = new Date()): string {
  const iso = now.toISOString(); // 2025-03-14T15:30:12.123Z
  const stamp = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}-${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}-${iso.slice(20, 23)}`;
  return `${stamp}-${randomBytes(3).toString("hex")}`;
}

const ID_PATTERN = /^[0-9]{8}-[0-9]{6}-[0-9]{3}-[0-9a-f]{6}$/;

/** Whether `name` is a session id awl made (so a path built from it stays inside the sessions folder). */
export function isSessionId(name: string): boolean {
  return ID_PATTERN.test(name);
}

/** The random part of an id, which a user may also type a prefix of (`awl -r 7f3a`). */
export function randomPart(id: string): string {
  return id.slice(id.lastIndexOf("-") + 1);
}

export const SESSION_EXTENSION = ".jsonl";

export function sessionFile(dir: string, id: string): string {
  return join(dir, id + SESSION_EXTENSION);
}

/** The lock beside a session while a writer has it open (lock.ts). */
export function lockFile(dir: string, id: string): string {
  return join(dir, id + ".lock");
}

/** The folder beside a session that holds its large outputs. */
export function sideDir(dir: string, id: string): string {
  return join(dir, id + ".files");
}

/** The listing's cache of per-session figures (summary-cache.ts), in the sessions folder. */
export function summaryCacheFile(dir: string): string {
  return join(dir, "summaries.cache.json");
}
