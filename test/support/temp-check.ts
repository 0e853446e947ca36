/**
 * Every test file's temp folder (docs/testing.md), a vitest setup file: the file runs with `TMPDIR` set to a folder
 * of its own, so whatever it or the awl it spawns puts there is found. When the file finishes, that folder is
 * removed; anything in it not made by `tempDir()` fails the file, since nothing would have removed it.
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative } from "node:path";
import { afterAll, expect, inject } from "vitest";
import { removeTree } from "./remove-tree.js";
import { madeFolders, removeFileFolders } from "./temp-dir.js";

const testFile = relative(process.cwd(), expect.getState().testPath ?? "");
// As short a name as can be: Lua cuts a source path longer than 59 bytes ("...s/out.lua:14"), and tests match
// the file:line of extensions in their temp folders.
const folder = mkdtempSync(join(tmpdir(), "awl"));
// Like /tmp: a child running as nobody (e2e `asNobody`) makes its own temp files too.
chmodSync(folder, 0o1777);
// The run's list of the files' folders (test/support/temp-root.ts), for its last sweep.
writeFileSync(join(inject("tempRoot"), basename(folder)), `${folder}\n${testFile}\n`);
process.env.TMPDIR = folder;

afterAll(() => {
  removeFileFolders();
  const left = existsSync(folder) ? readdirSync(folder).filter((name) => !madeFolders.has(join(folder, name))) : [];
  try {
    removeTree(folder);
  } catch {
    // A process of the file's still writing there: the run's last sweep removes it (test/support/temp-root.ts).
  }
  if (left.length > 0) {
    throw new Error(`${testFile} left in its temp folder what nothing removes: ${left.join(", ")}. Make temp folders with tempDir() (test/support/temp-dir.ts), which removes them; if awl made them, awl leaks temp files.`);
  }
});
