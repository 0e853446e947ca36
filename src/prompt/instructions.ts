/**
 * The project's instruction files (SPEC §9): `AGENTS.md` in every folder from the repository's root down to the
 * working directory (nearest last, so it has the last word), each folder's `CLAUDE.md` where it has no
 * `AGENTS.md`, and first the user's own `$XDG_CONFIG_HOME/awl/AGENTS.md` (or `CLAUDE.md` there). Outside a git
 * repository only the working directory's own file counts. A project's file that resolves outside the project (a
 * symlink such as `AGENTS.md -> ~/.ssh/id_rsa` in a cloned repository) is never read: as if absent, the same
 * check a project's `system_prompt: "@file"` has (SPEC §13).
 */
import { readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { userConfigDir } from "../config/paths.js";
import { isInside, realPathOf } from "../permissions/paths.js";

/** One instruction file as it goes into the system prompt. */
export interface InstructionFile {
  /** Absolute path. */
  path: string;
  /** `user`: awl's config folder; `project`: the repository or the working directory. */
  scope: "user" | "project";
  text: string;
  /** The file was longer than {@link MAX_INSTRUCTION_BYTES} and its text is cut there. */
  truncated: boolean;
}

/** Each file is cut here: every request carries them. */
export const MAX_INSTRUCTION_BYTES = 32 * 1024;

const NAMES = ["AGENTS.md", "CLAUDE.md"] as const;

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The folder holding `.git` at or above `dir`, or undefined. */
export function gitRoot(dir: string): string | undefined {
  for (let at = resolve(dir); ; at = dirname(at)) {
    try {
      statSync(join(at, ".git"));
      return at;
    } catch {
      if (dirname(at) === at) return undefined;
    }
  }
}

/** The first instruction file of `dir`; with `confinedTo`, only one whose real path lies inside that (real) folder. */
function readInstruction(dir: string, scope: InstructionFile["scope"], confinedTo?: string): InstructionFile | undefined {
  for (const name of NAMES) {
    const path = join(dir, name);
    if (!isFile(path)) continue;
    if (confinedTo !== undefined && !isInside(realPathOf(path), confinedTo)) continue;
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch {
      continue; // unreadable: as if absent
    }
    const truncated = bytes.length > MAX_INSTRUCTION_BYTES;
    let text = (truncated ? bytes.subarray(0, MAX_INSTRUCTION_BYTES) : bytes).toString("utf8").replace(/^\ufeff/, "");
    if (truncated) text = text.replace(/\ufffd{1,3}$/, ""); // a character the cut went through
    text = text.trimEnd();
    return { path, scope, text, truncated };
  }
  return undefined;
}

/** The instruction files for a working directory, in the order they go into the prompt. */
export function findInstructionFiles(cwd: string, env: NodeJS.ProcessEnv): InstructionFile[] {
  const files: InstructionFile[] = [];
  const user = readInstruction(userConfigDir(env), "user");
  if (user) files.push(user);
  const here = resolve(cwd);
  const root = gitRoot(here) ?? here;
  const chain: string[] = [];
  for (let at = here; ; at = dirname(at)) {
    chain.unshift(at);
    if (at === root || dirname(at) === at) break;
  }
  const project = realPathOf(root);
  for (const dir of chain) {
    const file = readInstruction(dir, "project", project);
    if (file && file.path !== user?.path) files.push(file);
  }
  return files;
}
