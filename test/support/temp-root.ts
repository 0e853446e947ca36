/**
 * The run's list of temp folders (docs/testing.md), a vitest global setup: each test file notes its folder
 * (test/support/temp-check.ts) in a folder made here; when the run ends, whatever a process still running after its
 * test file finished wrote in one of them is removed (and named), then the list.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { removeTree } from "./remove-tree.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The folder where each test file notes its temp folder. */
    tempRoot: string;
  }
}

export default function setup(project: TestProject): () => void {
  const root = mkdtempSync(join(tmpdir(), "awl-tests-"));
  project.provide("tempRoot", root);
  return () => {
    for (const name of readdirSync(root)) {
      const [folder = "", testFile = ""] = readFileSync(join(root, name), "utf8").split("\n");
      const late = entriesOf(folder);
      if (late.length > 0) console.warn(`${testFile}: written to its temp folder after the file finished (removed now): ${late.join(", ")}`);
      try {
        removeTree(folder);
      } catch (error) {
        console.warn(`${testFile}: its temp folder ${folder} could not be removed: ${(error as Error).message}`);
      }
    }
    removeTree(root);
  };
}

function entriesOf(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}
