/**
 * Where a tool's path argument really points, and path globs for rules (`edit(src/**)`, `write(~/notes/**)`).
 *
 * A path is resolved the way the tool will open it: relative to the workspace, `..` folded, and every symlink
 * of the part that exists followed (`realpath`), so `link-to-etc/passwd` and `src/../../x` are seen for what
 * they are. A path with a NUL byte or text that is not valid Unicode fails closed: it is denied, never matched.
 */
import { realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve, sep } from "node:path";

export type ResolvedPath = { ok: true; path: string } | { ok: false; reason: string };

/** Lone UTF-16 surrogates: what invalid UTF-8 in the model's JSON turns into. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The real absolute path `input` names, seen from `workspace`; `~` and `~/` are the home folder. */
export function resolveToolPath(input: string, workspace: string, home: string): ResolvedPath {
  if (input.includes("\0")) return { ok: false, reason: "the path holds a NUL byte" };
  if (LONE_SURROGATE.test(input) || input.includes("\uFFFD")) return { ok: false, reason: "the path is not valid UTF-8 text" };
  if (input === "") return { ok: false, reason: "the path is empty" };
  return { ok: true, path: realPathOf(resolve(workspace, expandHome(input, home))) };
}

/** `~` and `~/x` become the home folder; anything else is left as it is. */
export function expandHome(path: string, home: string): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return join(home, path.slice(2));
  return path;
}

/** The absolute path with every symlink of its existing part followed; the part that does not exist yet kept. */
export function realPathOf(absolute: string): string {
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      const real = realpathSync(current);
      return missing.length === 0 ? real : join(real, ...missing.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return absolute;
      missing.push(basename(current));
      current = parent;
    }
  }
}

/** Whether `path` is `folder` or lies below it (both absolute and real). */
export function isInside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

/**
 * A path glob as a matcher of real absolute paths. `*` is any run of characters but `/`, `**` any run of
 * folders, `?` one character, `{a,b}` either, `[abc]` a class. Relative globs are relative to `workspace`,
 * `~/` to `home`; the part before the first wildcard is resolved like a path (symlinks followed). A glob
 * without wildcards matches that path and everything below it. Throws an Error naming the problem for a bad glob.
 */
export function compilePathGlob(glob: string, workspace: string, home: string): (path: string) => boolean {
  if (glob.includes("\0")) throw new Error("the pattern holds a NUL byte");
  const expanded = expandHome(glob, home);
  const absolute = isAbsolute(expanded) ? expanded : join(workspace, expanded);
  const wildcard = absolute.search(/[*?[{]/);
  if (wildcard < 0) {
    const fixed = realPathOf(resolve(absolute));
    return (path) => isInside(path, fixed);
  }
  // The fixed folders before the first wildcard are resolved; the rest is matched as written.
  const cut = absolute.lastIndexOf("/", wildcard);
  const prefix = realPathOf(resolve(absolute.slice(0, cut) || "/"));
  const regex = new RegExp(`^${escapeRegex(prefix === "/" ? "" : prefix)}/${globBody(absolute.slice(cut + 1))}$`, "s");
  return (path) => regex.test(path);
}

/** The regex source for a glob below a fixed folder. */
function globBody(glob: string): string {
  let out = "";
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const slash = glob[i + 2] === "/";
        // `**/` is any number of folders (none included); a final `**` is anything below.
        out += slash ? "(?:[^/]*/)*" : ".*";
        i += slash ? 2 : 1;
      } else {
        out += "[^/]*";
      }
    } else if (c === "?") {
      out += "[^/]";
    } else if (c === "[") {
      const close = glob.indexOf("]", i + 2);
      if (close < 0) throw new Error(`"[" at ${i + 1} is never closed with "]"`);
      const body = glob.slice(i + 1, close);
      out += `[${body.startsWith("!") ? `^${body.slice(1)}` : body.replace(/\\/g, "\\\\")}]`;
      i = close;
    } else if (c === "{") {
      braces++;
      out += "(?:";
    } else if (c === "}" && braces > 0) {
      braces--;
      out += ")";
    } else if (c === "," && braces > 0) {
      out += "|";
    } else {
      out += escapeRegex(c);
    }
  }
  if (braces > 0) throw new Error('"{" is never closed with "}"');
  return out;
}

export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
