/**
 * Changing a config file in place (enable/disable, always-allow, trust, `awl mcp add`): the other keys stay, and
 * so does the file's layout as far as possible: a file laid out as JSON.stringify would (any indent) is written
 * the same way; any other layout gets minimal text edits (jsonc-parser, loaded only here) that leave every other
 * byte alone. The result must pass the schema, and replaces the file atomically (a temporary file beside it,
 * renamed over it; a symlinked file's target is the one replaced), the whole read-change-write under the file's
 * lock (util/file-lock.ts), so changes made at once by several processes all land.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, realpathSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseConfigText, type ConfigScope } from "./config-file.js";
import type { ConfigResult } from "./errors.js";
import { withFileLock } from "../util/file-lock.js";

/**
 * One change at `key` (dotted, or a list when a name holds a dot): set `value` there (`undefined` removes the
 * key), or set what `update` makes of the value there now (read under the file's lock, so a change another
 * process made meanwhile is kept).
 */
export type ConfigEdit =
  | {
      key: string | readonly string[];
      value: unknown;
      /** Add `value` at the end of the list at `key` (created when missing) instead of replacing it. */
      append?: boolean;
    }
  | { key: string | readonly string[]; update: (current: unknown) => unknown };

/** Applies `edits` to the config file at `path` (created with its folder when missing); nothing is written on error. */
export async function editConfigFile(path: string, edits: readonly ConfigEdit[], scope: ConfigScope = "user"): Promise<ConfigResult<void>> {
  return editFile(path, edits, async (text, when) => {
    const checked = await parseConfigText(path, text, scope);
    if (checked.ok) return undefined;
    return when === "before"
      ? { message: `${checked.error.message} (not changed)`, hint: checked.error.hint }
      : { message: `${checked.error.message} (the change was not written)`, hint: "this is a bug in the caller of the config writer" };
  });
}

/**
 * Applies `edits` to a JSON file whose format another module checks (a project's `.mcp.json`), laid out and
 * replaced as a config file is; the file must hold one JSON object. Nothing is written on error.
 */
export async function editJsonFile(path: string, edits: readonly ConfigEdit[]): Promise<ConfigResult<void>> {
  return editFile(path, edits, async (text) => {
    try {
      const value: unknown = JSON.parse(text.replace(/^\uFEFF/, ""));
      if (typeof value === "object" && value !== null && !Array.isArray(value)) return undefined;
      return { message: `${path} must hold one JSON object (not changed)`, hint: "fix the file or move it away" };
    } catch (e) {
      return { message: `${path} is not valid JSON (${(e as Error).message}; not changed)`, hint: "fix the file or move it away" };
    }
  });
}

type Check = (text: string, when: "before" | "after") => Promise<{ message: string; hint: string } | undefined>;

async function editFile(path: string, edits: readonly ConfigEdit[], check: Check): Promise<ConfigResult<void>> {
  const target = resolveTarget(path);
  // Read, change and replace under the file's lock: a change made at the same time by another awl is read first,
  // never overwritten.
  try {
    return await withFileLock(target, () => editUnlocked(path, target, edits, check));
  } catch (e) {
    return failure(`the file ${path} cannot be changed: ${(e as Error).message}`, "check the folder's permissions");
  }
}

async function editUnlocked(path: string, target: string, edits: readonly ConfigEdit[], check: Check): Promise<ConfigResult<void>> {
  let text: string;
  try {
    text = readFileSync(target, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") return failure(`the file ${path} cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`, "check its permissions");
    text = "{}\n";
  }
  if (text.trim() === "") text = "{}\n";
  const before = await check(text, "before");
  if (before) return { ok: false, error: before };
  const next = await applyConfigEdits(text, edits);
  const after = await check(next, "after");
  if (after) return { ok: false, error: after };
  try {
    writeAtomically(target, next);
  } catch (e) {
    return failure(`the file ${path} cannot be written (${(e as NodeJS.ErrnoException).code ?? String(e)})`, "check the folder's permissions");
  }
  return { ok: true, value: undefined };
}

/** The file a path names, through symlinks, so a dotfile manager's link stays a link. */
function resolveTarget(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The indent of a file laid out exactly as `JSON.stringify(value, null, indent)`, else undefined. */
function stringifyIndent(text: string): string | undefined {
  const indent = /\n([ \t]+)"/.exec(text)?.[1] ?? "  ";
  return JSON.stringify(JSON.parse(text), null, indent) === text.trimEnd() ? indent : undefined;
}

/** The text of a config file (valid JSON) after `edits`, laid out as the file was (see the top of this module). */
export async function applyConfigEdits(text: string, edits: readonly ConfigEdit[]): Promise<string> {
  return stringifyIndent(text) !== undefined ? rewrite(text, edits) : await editText(text, edits);
}

function rewrite(text: string, edits: readonly ConfigEdit[]): string {
  const indent = stringifyIndent(text)!;
  const root = JSON.parse(text) as Record<string, unknown>;
  for (const edit of edits) {
    const path = toPath(edit.key);
    let parent = root;
    for (const key of path.slice(0, -1)) {
      const child = parent[key];
      parent = (parent[key] = typeof child === "object" && child !== null && !Array.isArray(child) ? child : {}) as Record<string, unknown>;
    }
    const last = path.at(-1)!;
    const value = "update" in edit ? edit.update(parent[last]) : edit.value;
    if ("append" in edit && edit.append) parent[last] = [...(Array.isArray(parent[last]) ? parent[last] : []), value];
    else if (value === undefined) delete parent[last];
    else parent[last] = value;
  }
  return `${JSON.stringify(root, null, indent)}\n`;
}

async function editText(text: string, edits: readonly ConfigEdit[]): Promise<string> {
  const module = (await import("jsonc-parser")) as typeof import("jsonc-parser") & { default?: typeof import("jsonc-parser") };
  const { applyEdits, modify, parse } = module.default ?? module;
  for (const edit of edits) {
    const path = [...toPath(edit.key)];
    const current = path.reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], parse(text));
    if ("update" in edit) {
      text = applyEdits(text, modify(text, path, edit.update(current), {}));
    } else if (edit.append) {
      text = Array.isArray(current)
        ? applyEdits(text, modify(text, [...path, -1], edit.value, { isArrayInsertion: true }))
        : applyEdits(text, modify(text, path, [edit.value], {}));
    } else {
      text = applyEdits(text, modify(text, path, edit.value, {}));
    }
  }
  return text;
}

function writeAtomically(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  let mode = 0o644;
  try {
    mode = statSync(path).mode & 0o777;
  } catch {
    /* a new file */
  }
  // Named apart from any other writer's ("wx" fails rather than share one).
  const temporary = join(dirname(path), `.${process.pid}.${Date.now()}.${Math.random().toString(36).slice(2)}.config.json.tmp`);
  const fd = openSync(temporary, "wx", mode);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temporary, path);
  } catch (e) {
    unlinkSync(temporary);
    throw e;
  }
}

function toPath(key: string | readonly string[]): readonly string[] {
  return typeof key === "string" ? key.split(".") : key;
}

function failure(message: string, hint: string): { ok: false; error: { message: string; hint: string } } {
  return { ok: false, error: { message, hint } };
}
