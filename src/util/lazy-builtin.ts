/**
 * A Node built-in module loaded at its first use rather than with the module that imports it: a one-line reply
 * loads every module its chunks import at their top, and some built-ins cost a millisecond or more to load
 * (`node:child_process` with the `dgram` it brings ≈ 1 ms, `node:v8` ≈ 0.5 ms) for code such a reply never runs
 * (issue 30, docs/benchmarks.md "The shared start").
 */
import { createRequire } from "node:module";

/** `() => require(id)`, loading `id` on the first call. */
export function lazyBuiltin<T>(id: `node:${string}`): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= createRequire(import.meta.url)(id) as T);
}

/** `node:child_process`, loaded at the first spawn: a reply that runs no command never loads it. */
export const childProcess = lazyBuiltin<typeof import("node:child_process")>("node:child_process");

/** `node:tty` (≈ 0.3 ms to load, with its binding), loaded when awl first asks whether a file is a terminal. */
export const tty = lazyBuiltin<typeof import("node:tty")>("node:tty");

/**
 * `node:os` (≈ 0.4 ms to load, with its binding), loaded at its first use: a one-line reply takes its home folder
 * from `HOME` and never asks it.
 */
export const os = lazyBuiltin<typeof import("node:os")>("node:os");
