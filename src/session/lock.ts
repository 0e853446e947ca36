/**
 * One writer per session: `<id>.lock` beside the session file holds the writer's pid. Two `awl -c` in one
 * directory would otherwise interleave their lines in one file. The lock is made exclusively (written to a
 * temporary file and linked into place, so it is never seen empty); a lock whose pid is no longer running
 * (killed awl) is stale and taken over. Locks still held are removed when the process exits.
 */
import * as fs from "node:fs";
import { isRunning, lockOwner } from "../util/file-lock.js";
import { fail, ioFailure, ok, type SessionResult } from "./errors.js";

/** Lock files this process holds, removed on exit (a kill -9 leaves them: the next awl sees the pid is gone). */
const held = new Set<string>();
let exitHookInstalled = false;

/** A held lock; `release()` removes it (once). */
export interface SessionLock {
  readonly path: string;
  release(): void;
}

/**
 * Takes the lock `path` for session `id`. Fails with kind `locked` (naming the pid and what to do) while
 * another running process holds it.
 */
export function acquireSessionLock(path: string, id: string): SessionResult<SessionLock> {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temporary, `${process.pid}\n`, { mode: 0o600 });
  } catch (e) {
    return ioFailure(e, "create the lock file", temporary);
  }
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        fs.linkSync(temporary, path); // fails with EEXIST rather than replace another's lock
        break;
      } catch (e) {
        if ((e as { code?: string }).code !== "EEXIST" || attempt >= 2) return ioFailure(e, "create the lock file", path);
      }
      const owner = lockOwner(path);
      if (owner !== undefined && isRunning(owner)) {
        return fail(
          "locked",
          `session ${id} is in use by another awl (pid ${owner}); wait for it to finish, continue another session with \`awl -r ID\` (\`awl sessions\` lists them), or start a new one without -c/-r (if no awl is running, remove ${path})`,
          path,
        );
      }
      fs.rmSync(path, { force: true }); // stale: its awl is gone
    }
  } finally {
    fs.rmSync(temporary, { force: true });
  }
  held.add(path);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", () => {
      for (const p of held) fs.rmSync(p, { force: true });
    });
  }
  return ok({
    path,
    release() {
      if (held.delete(path)) fs.rmSync(path, { force: true });
    },
  });
}
