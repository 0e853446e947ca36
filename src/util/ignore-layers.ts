/**
 * `.gitignore` as git applies it: the rules of every `.gitignore` from the repository's root down to a folder,
 * plus `.git/info/exclude`, each read relative to its own folder, a deeper file's rule winning (`!` re-includes).
 * Shared by `awl.fs.walk` (in the Lua workers) and `@path` completion. The `ignore` package is passed in by the
 * caller, so a worker that never walks never loads it.
 */
import { lstatSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

/** The part of the `ignore` package's matcher used here. */
export type Ignore = { add(rules: string): Ignore; test(path: string): { ignored: boolean; unignored: boolean } };
/** Makes an empty matcher (`() => ignore({ allowRelativePaths: true })`). */
export type MakeIgnore = () => Ignore;

/** One ignore file's rules and the folder they are relative to. */
export interface IgnoreLayer {
  base: string;
  rules: Ignore;
}

/** The rules of one ignore file, or undefined when there is none. */
export function ignoreFileRules(file: string, make: MakeIgnore): Ignore | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  return make().add(text);
}

/**
 * The repository's `info/exclude`, where git reads it: in `.git/`, or for a linked worktree (`git worktree add`:
 * `.git` is a file naming the worktree's git folder) in the main repository's git folder, which all its
 * worktrees share.
 */
export function excludeFile(root: string): string {
  const dotGit = join(root, ".git");
  let pointer: string;
  try {
    pointer = readFileSync(dotGit, "utf8");
  } catch {
    return join(dotGit, "info", "exclude"); // a folder (or nothing): the usual place
  }
  const gitDir = /^gitdir: *(.+)$/m.exec(pointer)?.[1]?.trim();
  if (!gitDir) return join(dotGit, "info", "exclude");
  const own = resolve(root, gitDir);
  try {
    return join(resolve(own, readFileSync(join(own, "commondir"), "utf8").trim()), "info", "exclude");
  } catch {
    return join(own, "info", "exclude");
  }
}

/** The repository root at or above `dir` (the folder holding `.git`), or undefined. */
export function repositoryRoot(dir: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    try {
      lstatSync(join(at, ".git"));
      return at;
    } catch {
      if (dirname(at) === at) return undefined;
    }
  }
}

/**
 * The layers that apply at `dir` from its ancestors, the root first (`dir`'s own `.gitignore` is not among them):
 * from the repository's root, or outside a repository from `outside` (none when it is not given).
 */
export function ancestorLayers(dir: string, make: MakeIgnore, outside?: string): IgnoreLayer[] {
  const root = repositoryRoot(dir) ?? outside;
  if (!root || relative(root, dir).startsWith("..")) return [];
  const layers: IgnoreLayer[] = [];
  const exclude = ignoreFileRules(excludeFile(root), make);
  if (exclude) layers.push({ base: root, rules: exclude });
  const chain: string[] = [];
  if (dir !== root) {
    for (let at = dirname(dir); at.startsWith(root); at = dirname(at)) {
      chain.unshift(at);
      if (at === root) break;
    }
  }
  for (const at of chain) {
    const rules = ignoreFileRules(join(at, ".gitignore"), make);
    if (rules) layers.push({ base: at, rules });
  }
  return layers;
}

/** `layers` with the `.gitignore` of `dir` itself after them, if it has one. */
export function withOwnLayer(layers: readonly IgnoreLayer[], dir: string, make: MakeIgnore): IgnoreLayer[] {
  const own = ignoreFileRules(join(dir, ".gitignore"), make);
  return own ? [...layers, { base: dir, rules: own }] : [...layers];
}

/** Whether the layers (root first; a deeper file's rule wins, `!` re-includes) ignore `abs`. */
export function ignoredBy(layers: readonly IgnoreLayer[], abs: string, isDir: boolean): boolean {
  let ignored = false;
  for (const layer of layers) {
    let rel = relative(layer.base, abs);
    if (!rel || rel.startsWith("..")) continue;
    if (sep !== "/") rel = rel.split(sep).join("/");
    const verdict = layer.rules.test(isDir ? `${rel}/` : rel);
    if (verdict.ignored) ignored = true;
    else if (verdict.unignored) ignored = false;
  }
  return ignored;
}
