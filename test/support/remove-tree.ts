/** Removal of a test's temp folder (docs/testing.md), without vitest: the global setup uses it too. */
import { chmodSync, lstatSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

/**
 * Removes `path` and everything in it, whatever a test did to it: folders it made unreadable (`chmod 000`) are
 * opened first, and a child process still writing its last file is retried.
 */
export function removeTree(path: string): void {
  try {
    rmSync(path, { recursive: true, force: true, maxRetries: 5 });
  } catch (error) {
    if (!["EACCES", "EPERM"].includes((error as NodeJS.ErrnoException).code ?? "")) throw error;
    openFolders(path);
    rmSync(path, { recursive: true, force: true, maxRetries: 5 });
  }
}

/** Gives the owner every right on `path` and each folder below it, so it can be listed and emptied. */
function openFolders(path: string): void {
  try {
    if (!lstatSync(path).isDirectory()) return;
    chmodSync(path, 0o700);
    for (const name of readdirSync(path)) openFolders(join(path, name));
  } catch {
    // Gone meanwhile, or not ours to open: rmSync says so.
  }
}
