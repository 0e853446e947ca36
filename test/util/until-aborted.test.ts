// untilAborted: a wait that a signal can cut short and that keeps nothing once settled (issue 30: a stream-json
// session raced every input line against one "stopped" promise, and that promise kept every line for good).
import { getEventListeners } from "node:events";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { untilAborted } from "../../src/util/until-aborted.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Whether what `wait` resolves with can be collected after it is awaited and dropped, the signal still alive. */
async function collectable(wait: (value: Promise<object>, signal: AbortSignal) => Promise<unknown>): Promise<boolean> {
  const controller = new AbortController();
  let ref!: WeakRef<object>;
  await (async () => {
    const value = { line: "x".repeat(1000) };
    ref = new WeakRef(value);
    await wait(Promise.resolve(value), controller.signal);
  })();
  for (let i = 0; i < 5 && ref.deref(); i++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
  const gone = ref.deref() === undefined;
  controller.abort(); // the signal lived until here
  return gone;
}

describe("untilAborted", () => {
  it("gives the promise's value, and keeps neither it nor a listener once settled", async () => {
    const controller = new AbortController();
    for (let i = 0; i < 100; i++) expect(await untilAborted(Promise.resolve(i), controller.signal, "stopped")).toBe(i);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    expect(await collectable((value, signal) => untilAborted(value, signal, "stopped"))).toBe(true);
  });

  it("is what a race against one long-lived 'stopped' promise is not (the leak it replaces)", async () => {
    const raced = await collectable((value, signal) => {
      const stopped = new Promise((resolve) => signal.addEventListener("abort", () => resolve("stopped"), { once: true }));
      return Promise.race([value, stopped]);
    });
    expect(raced).toBe(false);
  });

  it("says `stopped` when the signal aborts first, or had already", async () => {
    const controller = new AbortController();
    const never = new Promise<number>(() => undefined);
    const waiting = untilAborted(never, controller.signal, "stopped" as const);
    controller.abort();
    expect(await waiting).toBe("stopped");
    expect(await untilAborted(never, controller.signal, "stopped" as const)).toBe("stopped");
  });

  it("passes a rejection on, and waits plainly without a signal", async () => {
    const controller = new AbortController();
    await expect(untilAborted(Promise.reject(new Error("no")), controller.signal, "stopped")).rejects.toThrow("no");
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    expect(await untilAborted(Promise.resolve(7), undefined, "stopped")).toBe(7);
  });
});
