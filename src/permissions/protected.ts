/**
 * Protected paths (SPEC §13, docs/permissions.md "Protected paths"): places whose contents change what runs
 * later, so a write there always asks, whatever the mode (bypass aside) or the allow rules say.
 *
 * - a folder named `.git` or `.awl`, anywhere, and everything below it (hooks and config that git runs; awl's
 *   project config and extensions);
 * - awl's own config and data folders (given by the caller: they follow `$XDG_CONFIG_HOME`, `$XDG_DATA_HOME`);
 * - the files awl reads as instructions, `AGENTS.md` and `CLAUDE.md`, in any folder.
 *
 * Names compare without regard to case: on a file system that ignores it, `.GIT/config` is `.git/config`.
 */
import { sep } from "node:path";
import { isInside } from "./paths.js";

const PROTECTED_FOLDERS = [".git", ".awl"];
const INSTRUCTION_FILES = ["agents.md", "claude.md"];

/** What makes `path` (real, absolute) protected, in words; undefined when it is not. */
export function protectionOf(path: string, folders: readonly string[]): string | undefined {
  const names = path.split(sep).map((name) => name.toLowerCase());
  const folder = names.findIndex((name) => PROTECTED_FOLDERS.includes(name));
  if (folder >= 0) return `a ${path.split(sep)[folder]}/ folder`;
  if (INSTRUCTION_FILES.includes(names.at(-1)!)) return "a file awl reads as instructions";
  const own = folders.find((dir) => isInside(path, dir));
  if (own !== undefined) return `awl's own folder ${own}`;
  return undefined;
}
