/**
 * SIGTERM and SIGHUP: awl cleans up what the signal cannot reach, then exits 128 + the signal number.
 * Programs that tool handlers start run in their own process groups (so a cancel can kill them as a whole),
 * which also means a signal sent to awl alone never reaches them: they are killed here. Ctrl-C is the
 * commands' own business (it cancels the turn or the call).
 */

/** Something to clean up when a signal ends awl: `kill` at once (synchronously), then `close` (bounded). */
export interface TerminationCleanup {
  kill(): void;
  close(): Promise<void>;
}

/** How long closing (on_unload hooks, stopping workers) may take before awl exits anyway. */
const CLOSE_GRACE_MS = 2_000;
const SIGNALS = [["SIGTERM", 143], ["SIGHUP", 129]] as const;

const cleanups = new Set<TerminationCleanup>();
const finalDrawings = new Set<() => void>();
let exitCode: number | undefined;

/** Installs the signal handlers (once, from the entry point). */
export function handleTerminationSignals(): void {
  for (const [signal, code] of SIGNALS) process.on(signal, () => terminate(code));
}

/** Registers a clean-up for the rest of the process's life, or until the undo it returns is called. */
export function cleanUpOnTermination(cleanup: TerminationCleanup): () => void {
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

/**
 * Registers what to draw if awl ends abruptly (a signal, an internal error), so the screen is left in a final
 * state (live tool blocks marked stopped, not spinning forever); returns the undo, for when it is no longer live.
 */
export function drawOnAbruptEnd(draw: () => void): () => void {
  finalDrawings.add(draw);
  return () => finalDrawings.delete(draw);
}

/** Draws the final states registered (once): a signal or an internal error is ending awl. */
export function drawFinalState(): void {
  const draws = [...finalDrawings];
  finalDrawings.clear();
  for (const draw of draws) {
    try {
      draw();
    } catch {
      // Ending anyway: a drawing that fails must not stop the others or the exit.
    }
  }
}

/** 143 or 129 once a signal is being handled: the exit code to use whatever the command returns meanwhile. */
export function terminationExitCode(): number | undefined {
  return exitCode;
}

function terminate(code: number): void {
  if (exitCode !== undefined) return;
  exitCode = code;
  for (const cleanup of cleanups) cleanup.kill();
  drawFinalState();
  const grace = new Promise((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref());
  void Promise.race([Promise.allSettled([...cleanups].map((c) => c.close())), grace]).finally(() => process.exit(code));
}
