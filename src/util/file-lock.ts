/**
 * A lock around a read-change-write of a shared file (a config or state file that several awl processes may
 * change at once, e.g. twenty `awl permissions trust`): `<file>.lock` holds the holder's pid, made exclusively
 * (written to a temporary file and linked into place, so it is never seen empty). A lock whose pid no longer
 * runs (a killed awl) is stale and taken over. Whoever waits retries every few milliseconds, up to a limit.
 */
import * as fs from "node:fs";
import { dirname } from "node:path";

/** How long a change waits for another process's before it gives up with an error naming that process. */
const WAIT_MS = 10_000;

/** Runs `change` while holding the lock of `file`; the lock is released whatever `change` does. */
export async function withFileLock<T>(file: string, change: () => Promise<T>): Promise<T> {
  const started = Date.now();
  for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
    const holder = tryLock(file);
    if (holder === undefined) break;
    if (Date.now() - started > WAIT_MS) throw new Error(`${file} is being changed by another process (pid ${holder}, in ${file}.lock); try again`);
    await new Promise((done) => setTimeout(done, pause));
  }
  try {
    return await change();
  } finally {
    fs.rmSync(`${file}.lock`, { force: true });
  }
}

/** withFileLock for a change that does not wait on anything (it blocks the thread while it waits its turn). */
export function withFileLockSync<T>(file: string, change: () => T): T {
  const started = Date.now();
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
    const holder = tryLock(file);
    if (holder === undefined) break;
    if (Date.now() - started > WAIT_MS) throw new Error(`${file} is being changed by another process (pid ${holder}, in ${file}.lock); try again`);
    Atomics.wait(sleeper, 0, 0, pause);
  }
  try {
    return change();
  } finally {
    fs.rmSync(`${file}.lock`, { force: true });
  }
}

/** Takes the lock of `file` (undefined), or names the pid of the running process that holds it. */
function tryLock(file: string): number | undefined {
  const lock = `${file}.lock`;
  const temporary = `${lock}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  fs.mkdirSync(dirname(file), { recursive: true });
  fs.writeFileSync(temporary, `${process.pid}\n`, { mode: 0o600 });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        fs.linkSync(temporary, lock); // fails with EEXIST rather than replace another's lock
        return undefined;
      } catch (e) {
        if ((e as { code?: string }).code !== "EEXIST" || attempt >= 2) throw e;
      }
      const owner = lockOwner(lock);
      if (owner !== undefined && isRunning(owner)) return owner;
      fs.rmSync(lock, { force: true }); // stale: its process is gone
    }
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}

/** The pid in a lock file; undefined when it is gone or unreadable (then treated as stale). */
export function lockOwner(path: string): number | undefined {
  try {
    const pid = Number.parseInt(fs.readFileSync(path, "utf8").trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process with this pid runs (EPERM: it runs, under another user). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code !== "ESRCH";
  }
}
