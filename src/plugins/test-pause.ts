/**
 * Test-only pause points of an install (never set outside tests): when `AWL_TEST_PLUGIN_PAUSE` names `step`, awl
 * says `awl: test pause at STEP` on stderr and stops there, blocking, until it is killed. test/e2e/plugins.test.ts
 * ("an interrupted install") kills an install with SIGKILL at each step this way, to show the next run never loads
 * a half-installed plugin and that running the install again completes it. The steps, in order:
 *
 * - `cloned`: a git source cloned into the staging folder, not checked out yet;
 * - `unpacked`: an archive unpacked into the staging folder;
 * - `old-moved-aside`: an update moved the installed files out of `packages/NAME`, the new ones not in yet;
 * - `new-in-place`: the new files are `packages/NAME`, the lock file not written yet;
 * - `lock-written`: the lock file written, the start index made from it not yet (store.ts).
 */
import { writeSync } from "node:fs";

export type PauseStep = "cloned" | "unpacked" | "old-moved-aside" | "new-in-place" | "lock-written";

/** Stops here for good when the test asks for `step`; otherwise nothing. */
export function testPause(step: PauseStep, env: NodeJS.ProcessEnv): void {
  if (env.AWL_TEST_PLUGIN_PAUSE !== step) return;
  writeSync(2, `awl: test pause at ${step}\n`);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
}
