/**
 * What `promise` settles with, or `stopped` as soon as `signal` aborts (at once if it already has). Unlike a
 * `Promise.race` against one long-lived "aborted" promise, it leaves nothing behind once settled: such a race adds
 * a reaction to that promise at every call, each holding what its racer returned, for as long as the signal
 * lives (a stream-json session kept every input line so, issue 30).
 */
export function untilAborted<T, S>(promise: Promise<T>, signal: AbortSignal | undefined, stopped: S): Promise<T | S> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.resolve(stopped);
  return new Promise<T | S>((resolve, reject) => {
    const onAbort = (): void => resolve(stopped);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
