/**
 * `awl.fs.walk` and `awl.fs.grep` in the worker: a recursive listing filtered by globs and by `.gitignore` (the
 * rules of every `.gitignore` from the repository's root down, plus `.git/info/exclude`, as git applies them),
 * and a regex search of the files it finds. One host call walks a 20 000-file tree; Lua only sees the results.
 *
 * Both stop early when the call is cancelled or past its deadline (`stop()`), returning what they found, so a
 * walk of a huge tree never holds a worker beyond its call.
 */
import { closeSync, lstatSync, openSync, readdirSync, readFileSync, readSync, statSync, type Dirent } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { HostRecord, HostValue } from "./lua-c.js";
import { fsFailure } from "./host-fs.js";
import { ancestorLayers, ignoredBy, withOwnLayer, type IgnoreLayer } from "../../../util/ignore-layers.js";
import { makeIgnore } from "../../../util/make-ignore.js";

type Matcher = (path: string) => boolean;
type Picomatch = (glob: string | string[], options?: Record<string, unknown>) => Matcher;

const require = createRequire(import.meta.url);
// Loaded at the first glob: a worker that never walks never pays for it.
let picomatch: Picomatch | undefined;
const loadPicomatch = (): Picomatch => (picomatch ??= require("picomatch") as Picomatch);

export interface WalkOptions {
  /** Globs the path (relative to the walk's folder) must match; one without a `/` matches the name at any depth. */
  glob?: string[];
  /** Respect `.gitignore` files (default true). */
  gitignore?: boolean;
  /** Include names starting with `.` (default false; `.git` itself never). */
  hidden?: boolean;
  /** "file" (default), "directory" or "any". */
  type?: "file" | "directory" | "any";
  /** "path" (default, byte order) or "mtime" (newest first). */
  sort?: "path" | "mtime";
  /** Most entries returned (0: all); `total` counts them all. */
  limit?: number;
  /** Most folder levels below the walk's folder (0: no limit). */
  max_depth?: number;
}

interface Found {
  /** The path relative to the walk's folder; a name that is not UTF-8 written with `\xNN` escapes. */
  path: string;
  abs: string;
  /** For a name that is not UTF-8: its path's bytes, relative (`rel`) and absolute (`abs`). */
  bytes?: { rel: Buffer; abs: Buffer };
  type: string;
  mtime?: number;
  size?: number;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }); // a name may start with U+FEFF

/**
 * A name that is not UTF-8 as the std tools show it: every byte from 0x80 up as `\xNN`, as
 * extensions/std/_text.lua's `printable` writes it (and `_paths.lua` reads it back).
 */
function printableName(raw: Buffer): string {
  let out = "";
  for (const byte of raw) out += byte < 0x80 ? String.fromCharCode(byte) : `\\x${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  return out;
}

/**
 * The names in `abs` that are not UTF-8 (readdir gave them with U+FFFD in place of their bytes), by the name
 * readdir gave: each one's bytes.
 */
function rawNames(abs: string): Map<string, Buffer> {
  const byLossy = new Map<string, Buffer>();
  try {
    for (const raw of readdirSync(abs, { encoding: "buffer" })) {
      try {
        strictUtf8.decode(raw);
      } catch {
        byLossy.set(raw.toString("utf8"), raw);
      }
    }
  } catch {
    // gone since the listing: nothing to add
  }
  return byLossy;
}

function direntType(entry: Dirent): string {
  if (entry.isDirectory()) return "directory";
  if (entry.isFile()) return "file";
  if (entry.isSymbolicLink()) return "symlink";
  return "other";
}

/**
 * Every entry below `dir` that passes the filters, in walk order (unsorted), calling `visit` for each; stops when
 * `stop()` says so. Symlinks are listed but never followed (a link to a folder is not descended, as ripgrep does).
 */
function walkTree(dir: string, options: WalkOptions, stop: () => boolean, visit: (found: Found) => void): boolean {
  const wantType = options.type ?? "file";
  const useIgnore = options.gitignore !== false;
  const glob = options.glob && options.glob.length > 0 ? globMatcher(options.glob) : undefined;
  const maxDepth = options.max_depth && options.max_depth > 0 ? options.max_depth : Infinity;
  let stopped = false;
  const visitDir = (abs: string, rel: string, depth: number, layers: IgnoreLayer[]): void => {
    if (stopped || (stopped = stop())) return;
    let entries: Dirent[];
    try {
      entries = readdirSync(abs, { withFileTypes: true });
    } catch {
      return; // unreadable folder: skipped, like ripgrep does
    }
    const here = useIgnore ? withOwnLayer(layers, abs, makeIgnore) : layers;
    // Names that are not UTF-8 are rare: their bytes are looked up only in a folder that has one.
    const raws = entries.some((e) => e.name.includes("\uFFFD")) ? rawNames(abs) : undefined;
    for (const entry of entries) {
      const raw = raws?.get(entry.name);
      const name = raw ? printableName(raw) : entry.name;
      if (name === ".git" || (!options.hidden && name.startsWith("."))) continue;
      const childAbs = join(abs, name);
      const childRel = rel ? `${rel}/${name}` : name;
      const type = direntType(entry);
      const isDir = type === "directory";
      if (useIgnore && ignoredBy(here, childAbs, isDir)) continue;
      const wanted = wantType === "any" || (wantType === "directory" ? isDir : !isDir);
      const bytes = raw && { rel: Buffer.concat([Buffer.from(rel ? `${rel}/` : ""), raw]), abs: Buffer.concat([Buffer.from(`${abs}/`), raw]) };
      if (wanted && (!glob || glob(childRel))) visit({ path: childRel, abs: childAbs, type, ...(bytes && { bytes }) });
      // A folder whose name is not UTF-8 is listed, not entered.
      if (isDir && !raw && depth < maxDepth) visitDir(childAbs, childRel, depth + 1, here);
      if (stopped) return;
    }
  };
  visitDir(dir, "", 1, useIgnore ? ancestorLayers(dir, makeIgnore) : []);
  return stopped;
}

/**
 * A path matches when it matches one of the globs: one without a `/` is matched against the name at any depth
 * (`*.ts`), one with a `/` against the whole relative path (`src/**\/*.ts`, a leading `./` ignored), as ripgrep's
 * `--glob` and git do.
 * (picomatch's `basename` option alone would match every glob against the name only.)
 */
function globMatcher(globs: readonly string[]): Matcher {
  const matchers = globs
    .map((g) => g.replace(/^(\.\/)+/, "")) // `./src/*.ts` is `src/*.ts`
    .map((g) => loadPicomatch()(g, { dot: true, ...(!g.includes("/") && { basename: true }) }));
  return (path) => matchers.some((m) => m(path));
}

function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * `awl.fs.walk`: `{ path, type, size, mtime }` records (paths relative to `dir`, `/`-separated), sorted, at most
 * `limit`; then the number found in all, and whether the walk was stopped early.
 */
export function walk(dir: string, options: WalkOptions, stop: () => boolean): HostValue[] {
  try {
    if (!statSync(dir).isDirectory()) return [null, `${dir}: Not a directory`, 20];
  } catch (err) {
    return fsFailure(err, `${dir}: `);
  }
  const found: Found[] = [];
  const stopped = walkTree(dir, options, stop, (f) => found.push(f));
  for (const f of found) {
    try {
      const stat = lstatSync(f.bytes?.abs ?? f.abs);
      f.mtime = stat.mtimeMs / 1000;
      f.size = stat.size;
    } catch {
      f.mtime = 0;
    }
  }
  if (options.sort === "mtime") found.sort((a, b) => b.mtime! - a.mtime! || compareBytes(a.path, b.path));
  else found.sort((a, b) => compareBytes(a.path, b.path));
  const limit = options.limit && options.limit > 0 ? options.limit : found.length;
  const records: HostRecord[] = found.slice(0, limit).map((f) => ({ path: f.bytes?.rel ?? f.path, type: f.type, size: f.size ?? 0, mtime: f.mtime ?? 0 }));
  return [records, found.length, stopped];
}

export interface GrepOptions extends Omit<WalkOptions, "type" | "sort"> {
  ignore_case?: boolean;
  /** Lines of context before and after each match. */
  context?: number;
  /** Longest line text returned, in characters (longer ones are cut). */
  max_line?: number;
}

/** POSIX classes inside brackets (`[[:alpha:]_]`), ASCII as in ripgrep, as JavaScript class ranges. */
const POSIX_CLASSES: Record<string, string> = {
  alnum: "0-9A-Za-z", alpha: "A-Za-z", ascii: "\\x00-\\x7F", blank: "\\t ", cntrl: "\\x00-\\x1F\\x7F", digit: "0-9",
  graph: "\\x21-\\x7E", lower: "a-z", print: "\\x20-\\x7E", punct: "\\x21-\\x2F\\x3A-\\x40\\x5B-\\x60\\x7B-\\x7E",
  space: "\\t\\n\\v\\f\\r ", upper: "A-Z", word: "0-9A-Za-z_", xdigit: "0-9A-Fa-f",
};

/**
 * The spellings of ripgrep's regex syntax (Rust's) that JavaScript lacks or reads otherwise, rewritten so the
 * fallback finds what ripgrep would: leading inline flags (`(?i)` ignores case; `(?m)`, `(?s)`, `(?u)` change
 * nothing line by line), named groups `(?P<name>...)`, and POSIX classes in brackets (`[[:digit:]]`), which
 * JavaScript would read as a set of the characters `[:digt` and silently find the wrong lines.
 */
function fromRipgrepSyntax(pattern: string): { source: string; ignoreCase: boolean } {
  let ignoreCase = false;
  const flags = /^\(\?([imsu]+)\)/.exec(pattern);
  if (flags) {
    ignoreCase = flags[1]!.includes("i");
    pattern = pattern.slice(flags[0].length);
  }
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") {
      out += pattern.slice(i, i + 2);
      i++;
    } else if (!inClass && pattern.startsWith("(?P<", i)) {
      out += "(?<";
      i += 3;
    } else if (!inClass && c === "[") {
      inClass = true;
      const negate = pattern[i + 1] === "^" ? "^" : "";
      out += `[${negate}`;
      i += negate.length;
      if (pattern[i + 1] === "]") {
        out += "\\]"; // a `]` first in a class is literal in both
        i++;
      }
    } else if (inClass && c === "[") {
      const posix = /^\[:([a-z]+):\]/.exec(pattern.slice(i));
      const range = posix && POSIX_CLASSES[posix[1]!];
      if (range) {
        out += range;
        i += posix[0].length - 1;
      } else out += "\\[";
    } else {
      if (inClass && c === "]") inClass = false;
      out += c;
    }
  }
  return { source: out, ignoreCase };
}

/**
 * The pattern as a RegExp: with Unicode semantics where it compiles so (`\p{L}`), else without (ripgrep accepts
 * escapes like `\-` that Unicode mode refuses); or why it does not compile.
 */
function compile(pattern: string, ignoreCase: boolean): RegExp | string {
  const { source, ignoreCase: inline } = fromRipgrepSyntax(pattern);
  const flags = ignoreCase || inline ? "i" : "";
  try {
    return new RegExp(source, `${flags}u`);
  } catch {
    try {
      return new RegExp(source, flags);
    } catch (err) {
      const why = (err as Error).message.replace(/^Invalid regular expression: /, "");
      const hint = /\(\?[a-zA-Z]/.test(source) ? " (inline flags such as (?i) work only at the regex's start; or set ignore_case)" : "";
      return `the regex does not compile: ${why}${hint}`;
    }
  }
}

/** Files larger than this are not searched (ripgrep searches them): `awl.fs.grep` lists them as skipped. */
const MAX_GREP_FILE_BYTES = 64 * 1024 * 1024;

/** Whether the first bytes of a file hold a NUL (ripgrep's test for binary files, which it skips). */
function looksBinary(file: string | Buffer): boolean {
  const fd = openSync(file, "r");
  try {
    const head = Buffer.alloc(8192);
    const count = readSync(fd, head, 0, head.length, 0);
    return head.subarray(0, count).includes(0);
  } finally {
    closeSync(fd);
  }
}

/**
 * `awl.fs.grep`: the lines of the files below `dir` (or the one file `dir`) that match `pattern` (a JavaScript
 * regular expression), in path order: `{ path, line, text, match }` records, context lines with `match = false`.
 * At most `limit` matching lines are returned (with their context); then the number of matching lines in all, the
 * number of files holding one, whether the search was stopped early, and the files it did not search, each
 * `{ path, reason }` (larger than {@link MAX_GREP_FILE_BYTES}, or unreadable), so a caller never takes "no match"
 * for an answer about them. Binary files are skipped without a word, as ripgrep does. A pattern that does not
 * compile is (nil, message).
 */
export function grep(dir: string, pattern: string, options: GrepOptions, stop: () => boolean): HostValue[] {
  const regex = compile(pattern, options.ignore_case === true);
  if (typeof regex === "string") return [null, regex];
  let files: { path: string; abs: string | Buffer }[];
  let stopped = false;
  try {
    const stat = statSync(dir);
    if (stat.isDirectory()) {
      const found: Found[] = [];
      stopped = walkTree(dir, { ...options, type: "file" }, stop, (f) => found.push(f));
      // A name that is not UTF-8 is read by its bytes and shown `\xNN`-escaped, as the grep tool shows ripgrep's;
      // files are in the byte order of their paths, as ripgrep's `--sort path` gives them.
      const keyed = found.filter((f) => f.type === "file").map((f) => ({ path: f.path, abs: f.bytes?.abs ?? f.abs, key: f.bytes?.rel ?? Buffer.from(f.path) }));
      files = keyed.sort((a, b) => Buffer.compare(a.key, b.key));
    } else {
      files = [{ path: "", abs: dir }]; // the file itself: its path is the one the caller gave
    }
  } catch (err) {
    return fsFailure(err, `${dir}: `);
  }
  const limit = options.limit && options.limit > 0 ? options.limit : Infinity;
  const context = Math.max(0, options.context ?? 0);
  const maxLine = options.max_line && options.max_line > 0 ? options.max_line : Infinity;
  const cut = (text: string) => (text.length > maxLine ? text.slice(0, maxLine) : text);
  const records: HostRecord[] = [];
  const skipped: HostRecord[] = [];
  let matches = 0;
  let matchedFiles = 0;
  for (const file of files) {
    if (stopped || (stopped = stop())) break;
    let text: string;
    try {
      const size = statSync(file.abs).size;
      if (size > MAX_GREP_FILE_BYTES) {
        skipped.push({ path: file.path, reason: `${megabytes(size)} MB, larger than the ${megabytes(MAX_GREP_FILE_BYTES)} MB searched` });
        continue;
      }
      if (looksBinary(file.abs)) continue;
      text = readFileSync(file.abs, "utf8");
    } catch (err) {
      skipped.push({ path: file.path, reason: String(fsFailure(err)[1]) });
      continue;
    }
    const lines = text.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    let shownUpTo = -1; // last line index already returned for this file
    let any = false;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!.endsWith("\r") ? lines[i]!.slice(0, -1) : lines[i]!;
      if (!regex.test(line)) continue;
      matches++;
      if (!any) matchedFiles++;
      any = true;
      if (matches > limit) continue;
      for (let j = Math.max(shownUpTo + 1, i - context); j < i; j++) {
        records.push({ path: file.path, line: j + 1, text: cut(lines[j]!.replace(/\r$/, "")), match: false });
      }
      records.push({ path: file.path, line: i + 1, text: cut(line), match: true });
      shownUpTo = i;
      // Context after: only lines that are not themselves matches (those come as matches).
      for (let j = i + 1; j <= Math.min(lines.length - 1, i + context); j++) {
        const next = lines[j]!.replace(/\r$/, "");
        if (regex.test(next)) break;
        records.push({ path: file.path, line: j + 1, text: cut(next), match: false });
        shownUpTo = j;
      }
    }
  }
  return [records, matches, matchedFiles, stopped, skipped];
}

function megabytes(bytes: number): string {
  return String(Math.round(bytes / (1024 * 1024)));
}
