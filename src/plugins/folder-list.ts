/** Small listings of a plugin's folders, which never throw: a missing or unreadable folder lists nothing. */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** The names in `dir`, hidden ones left out, sorted; none when it cannot be read. */
export function listNames(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => !n.startsWith(".")).sort();
  } catch {
    return [];
  }
}

/** Whether `path` is a folder (following links). */
export function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Whether anything is at `path` (following links). */
export function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The `.md` files below `dir` (at most 8 folders deep), as paths. */
export function markdownFiles(dir: string, depth = 0): string[] {
  if (depth > 8) return [];
  const out: string[] = [];
  for (const name of listNames(dir)) {
    const path = join(dir, name);
    if (isDir(path)) out.push(...markdownFiles(path, depth + 1));
    else if (name.endsWith(".md")) out.push(path);
  }
  return out;
}
