/**
 * Which arguments of a call are paths (docs/permissions.md, "Which argument is a path or a command"), and the
 * arguments as the tool is handed them once the engine resolved those paths: the tool opens exactly what was
 * decided on, never its own reading of the model's text (SPEC §13).
 */
import { isAbsolute, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isInside } from "./paths.js";

/** Arguments that must be a path (string) or a list of them; anything else there is denied. */
const STRICT_KEYS = ["path", "cwd", "paths"];
/** Names models and servers give a path too; a value that is no string (or list of strings) there is no path. */
const ALIAS_KEYS = ["file_path", "filePath", "file", "filename", "directory", "dir"];
/** A `file:` URI is a path; another scheme is not. */
const URI_KEY = "uri";

/** One path a call names: where it stands in the arguments, and its text (a `file:` URI already decoded). */
export interface PathArg {
  key: string;
  /** Its place in a list argument. */
  index?: number;
  text: string;
  uri: boolean;
}

/** The paths of a call's arguments, or why one cannot be read safely. */
export function pathArgsOf(args: Record<string, unknown>): { paths: PathArg[] } | { error: string } {
  const paths: PathArg[] = [];
  const bad = (key: string, what: string) => ({ error: `the "${key}" argument must be ${what}, got ${JSON.stringify(args[key])}` });
  for (const key of [...STRICT_KEYS, ...ALIAS_KEYS]) {
    const value = args[key];
    if (value === undefined) continue;
    if (typeof value === "string") {
      paths.push({ key, text: value, uri: false });
    } else if (Array.isArray(value) && value.every((v) => typeof v === "string")) {
      if (key !== "paths" && STRICT_KEYS.includes(key)) return bad(key, "a string");
      value.forEach((text: string, index) => paths.push({ key, index, text, uri: false }));
    } else if (STRICT_KEYS.includes(key)) {
      return bad(key, key === "paths" ? "a list of strings" : "a string");
    }
  }
  const uri = args[URI_KEY];
  if (typeof uri === "string" && /^file:/i.test(uri)) {
    try {
      paths.push({ key: URI_KEY, text: fileURLToPath(uri), uri: true });
    } catch (error) {
      return { error: `the "uri" argument ${JSON.stringify(uri)} is no file path awl can check: ${(error as Error).message}` };
    }
  }
  return { paths };
}

/**
 * The arguments with each path replaced by its resolved form (`resolved[i]` for `paths[i]`): a relative path
 * inside the workspace stays relative to it (the tool runs there), any other is absolute; `absolute` makes them
 * all absolute (an MCP server runs in a folder of its own). Undefined when nothing changes.
 */
export function handOff(
  input: Record<string, unknown>,
  paths: readonly PathArg[],
  resolved: readonly string[],
  workspace: string,
  absolute: boolean,
): { input: Record<string, unknown> } | { error: string } | undefined {
  if (paths.length === 0) return undefined;
  const out: Record<string, unknown> = { ...input };
  for (const [i, arg] of paths.entries()) {
    const real = resolved[i]!;
    let value: string;
    if (arg.uri) {
      if (/\\x[89a-fA-F][0-9a-fA-F]/.test(real)) return { error: `the "uri" argument names ${real}, which is not UTF-8: awl cannot hand it to the tool unchanged` };
      value = pathToFileURL(real).href;
    } else {
      value = !absolute && !isAbsolute(arg.text) && arg.text !== "~" && !arg.text.startsWith("~/") && isInside(real, workspace) ? relative(workspace, real) || "." : real;
    }
    if (arg.index === undefined) {
      out[arg.key] = value;
    } else {
      const list = out[arg.key] === input[arg.key] ? [...(input[arg.key] as string[])] : (out[arg.key] as string[]);
      list[arg.index] = value;
      out[arg.key] = list;
    }
  }
  return { input: out };
}
