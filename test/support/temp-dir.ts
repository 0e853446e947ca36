/**
 * Temporary folders for tests (docs/testing.md): each one is removed when the test that made it finishes, or, made
 * outside a test (a `beforeAll`, a `describe` body, a module's top level), when its test file finishes.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { inject, onTestFinished, TestRunner } from "vitest";
import { removeTree } from "./remove-tree.js";

/** Every folder {@link tempDir} made in this test file, for the file's own check (test/support/temp-check.ts). */
export const madeFolders = new Set<string>();

/** Folders made outside a test: removed by {@link removeFileFolders} when the file finishes. */
const fileFolders: string[] = [];

export interface TempDirOptions {
  /** Where to make it; default the temp folder (`os.tmpdir()`, the test file's own: test/support/temp-check.ts). */
  parent?: string;
  /** Kept until the test file finishes even when made in a test: for a folder something of the file's still uses (a worker pool closed in `afterAll`). */
  untilFileEnds?: boolean;
}

/**
 * A fresh folder, removed when the test that made it finishes (after its `afterEach` hooks), or when its test file
 * finishes if made outside a test.
 */
export function tempDir(prefix = "awl-test-", options: TempDirOptions = {}): string {
  const dir = mkdtempSync(join(options.parent ?? tmpdir(), prefix));
  madeFolders.add(dir);
  if (!options.untilFileEnds && TestRunner.getCurrentTest()) onTestFinished(() => removeNowOrLater(dir));
  else fileFolders.push(dir);
  return dir;
}

/**
 * The machine's temp folder (the one holding each test file's, test/support/temp-check.ts): for a folder whose
 * paths must stay as short as a user's (Lua shows a source path of at most 59 bytes, and e2e tests match them).
 */
export function machineTempDir(): string {
  return dirname(inject("tempRoot"));
}

/** A removal that fails (a process of the test still writing there) is tried again when the file finishes, not failing the test. */
function removeNowOrLater(dir: string): void {
  try {
    removeTree(dir);
  } catch {
    fileFolders.push(dir);
  }
}

/**
 * Removes the folders made outside a test, and those that could not be removed when their test finished (the file's
 * last hook calls it). One that still cannot be is named, not failing the file: a process is still writing there.
 */
export function removeFileFolders(): void {
  for (const dir of fileFolders.splice(0)) {
    try {
      removeTree(dir);
    } catch (error) {
      console.warn(`temp folder ${dir} could not be removed: ${(error as Error).message}`);
    }
  }
}
