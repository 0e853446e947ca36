/**
 * Where a tool's path argument really points, and path globs for rules (`edit(src/**)`, `write(~/notes/**)`).
 *
 * A path is interpreted once, here, the way the tools open it (docs/permissions.md, "Paths"): `~` and `~/` are
 * the home folder; `\xNN` with NN from 80 to FF is that byte (how tools show names that are not UTF-8; no other
 * escape is decoded: `\x2e` is four characters); relative to the workspace; `..` folded; every symlink of the
 * part that exists followed (`realpath`), a dangling one too (a write creates its target). So
 * `link-to-etc/passwd` and `src/../../x` are seen for what they are. The tool is then handed the resolved path
 * (tool-set.ts), so nothing reinterprets it. A path with a NUL byte or text that is not valid Unicode fails
 * closed: it is denied, never matched.
 */
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { isAbsolute, join, resolve, sep } from "node:path";

/** The real absolute path, names that are not UTF-8 written with `\xNN` (what rules match, and what the tool is handed). */
export type ResolvedPath = { ok: true; path: string } | { ok: false; reason: string };

/** Lone UTF-16 surrogates: what invalid UTF-8 in the model's JSON turns into. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The escapes tools write for bytes that are not UTF-8 (extensions/std/_text.lua `printable`), and only those. */
const BYTE_ESCAPE = /\\x([89a-fA-F][0-9a-fA-F])/g;

/** Symlinks followed in a row before a path counts as a loop (Linux's limit). */
const MAX_LINKS = 40;

/** The real absolute path `input` names, seen from `workspace`; see the module comment. */
export function resolveToolPath(input: string, workspace: string, home: string): ResolvedPath {
  if (input.includes("\0")) return { ok: false, reason: "the path holds a NUL byte" };
  if (LONE_SURROGATE.test(input) || input.includes("\uFFFD")) return { ok: false, reason: "the path is not valid UTF-8 text" };
  if (input === "") return { ok: false, reason: "the path is empty" };
  const bytes = binary(pathBytes(expandHome(input, home)));
  const real = realBinary(resolve(binary(Buffer.from(workspace)), bytes));
  if (real === undefined) return { ok: false, reason: `the path passes through more than ${MAX_LINKS} symlinks` };
  const path = printablePath(Buffer.from(real, "latin1"));
  // A real name holding text like `\x80` would be read back as a byte: no tool could be handed it unchanged.
  if (binary(pathBytes(path)) !== real) return { ok: false, reason: `the path resolves to ${path}, a name awl cannot hand to a tool unchanged` };
  return { ok: true, path };
}

/** The bytes a path argument names: its UTF-8, with each `\xNN` escape of a byte from 80 to FF that byte. */
export function pathBytes(text: string): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (const match of text.matchAll(BYTE_ESCAPE)) {
    parts.push(Buffer.from(text.slice(at, match.index)), Buffer.from([parseInt(match[1]!, 16)]));
    at = match.index + match[0].length;
  }
  parts.push(Buffer.from(text.slice(at)));
  return Buffer.concat(parts);
}

/** A path's bytes as text: each name that is not UTF-8 with its bytes from 80 to FF as `\xNN` (as tools show it). */
export function printablePath(bytes: Buffer): string {
  const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }); // a name may start with U+FEFF
  return binary(bytes)
    .split("/")
    .map((name) => {
      try {
        return strict.decode(Buffer.from(name, "latin1"));
      } catch {
        return name.replace(/[\x80-\xff]/g, (c) => `\\x${c.charCodeAt(0).toString(16).toUpperCase()}`);
      }
    })
    .join("/");
}

/** `~` and `~/x` become the home folder; anything else is left as it is. */
export function expandHome(path: string, home: string): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return join(home, path.slice(2));
  return path;
}

/** The absolute path with every symlink of its existing part followed (a dangling one too); the missing part kept. */
export function realPathOf(absolute: string): string {
  const real = realBinary(binary(Buffer.from(absolute)));
  return real === undefined ? absolute : Buffer.from(real, "latin1").toString();
}

/** Bytes as a string of one character per byte (latin1): node:path and node:fs work on it byte for byte. */
function binary(bytes: Buffer): string {
  return bytes.toString("latin1");
}

/** realPathOf on a latin1 path; undefined for a symlink loop. */
function realBinary(absolute: string): string | undefined {
  let current = absolute;
  const missing: string[] = [];
  for (let links = 0; ; ) {
    try {
      // The kernel's one call, not node:fs's walk (an lstat per folder in JavaScript): realPathOf runs a dozen times at start.
      const real = realpathSync.native(Buffer.from(current, "latin1"), { encoding: "latin1" });
      return missing.length === 0 ? real : join(real, ...missing.reverse());
    } catch {
      // Not there, or a symlink whose target is not (a write through it creates the target): follow it by hand.
      const target = linkTarget(current);
      if (target !== undefined) {
        if (++links > MAX_LINKS) return undefined;
        current = resolve(current, "..", target);
        continue;
      }
      const cut = current.lastIndexOf("/");
      if (cut <= 0 && current.length <= 1) return join(current, ...missing.reverse());
      missing.push(current.slice(cut + 1));
      current = current.slice(0, cut) || "/";
    }
  }
}

/** The target of `path` (latin1) when it is a symlink. */
function linkTarget(path: string): string | undefined {
  try {
    if (!lstatSync(Buffer.from(path, "latin1")).isSymbolicLink()) return undefined;
    return readlinkSync(Buffer.from(path, "latin1"), { encoding: "latin1" });
  } catch {
    return undefined;
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

/** A literal path as a glob that matches only it: each `*`, `?`, `[` and `{` in a class of its own (`[*]`). */
export function escapeGlob(path: string): string {
  return path.replace(/[*?[{]/g, "[$&]");
}

export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
