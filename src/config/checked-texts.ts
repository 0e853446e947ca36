/**
 * Config files whose exact text passed the schema check with nothing to say (no error, no unknown key), remembered
 * in `$XDG_CACHE_HOME/awl/config-checked.json` so that the next start with the same text does not load and run the
 * generated validator (a chunk of ~90 KB) to learn it again (issue 30). The memory holds a SHA-256 digest of each
 * text, never the text (a config file may hold an `api_key`), in a file only the user reads, and belongs to one
 * schema (awl's version and the schema file's size and time): another awl, or any change to a file, checks it
 * again. A memory that cannot be read or written only costs that check.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { awlVersion } from "../version.js";
import { packagePath } from "../util/package-path.js";
import { userCacheDir } from "./paths.js";

/** Bump when the file's shape changes. */
const FORMAT = 2;
/** The files remembered at most (the user's own and a few projects'); the oldest is forgotten first. */
const MAX_FILES = 16;

interface CheckedFile {
  format: number;
  schema: string;
  /** Config file path → the SHA-256 (hex) of the text that passed. */
  digests: Record<string, string>;
}

/** Where the memory is kept for this environment. */
function checkedPath(env: NodeJS.ProcessEnv): string {
  return join(userCacheDir(env), "config-checked.json");
}

/** The schema the checks were made against: awl's version and the schema file's size and modification time. */
function schemaIdentity(): string {
  try {
    const stat = statSync(packagePath("schema", "config.schema.json"));
    return `${awlVersion()}:${stat.size}:${stat.mtimeMs}`;
  } catch {
    return "";
  }
}

function readChecked(env: NodeJS.ProcessEnv, schema: string): Record<string, string> {
  try {
    const file = JSON.parse(readFileSync(checkedPath(env), "utf8")) as CheckedFile;
    if (file.format === FORMAT && file.schema === schema && typeof file.digests === "object" && file.digests !== null) return file.digests;
  } catch {
    // none yet, or unreadable: nothing remembered
  }
  return {};
}

/** Whether `text` is the text of `path` that last passed the check against this awl's schema. */
export function checkedBefore(env: NodeJS.ProcessEnv, path: string, text: string): boolean {
  const schema = schemaIdentity();
  return schema !== "" && readChecked(env, schema)[path] === digestOf(text);
}

function digestOf(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Remembers that `text`, the text of `path`, passed the check with nothing to say. Never throws. */
export function rememberChecked(env: NodeJS.ProcessEnv, path: string, text: string): void {
  const schema = schemaIdentity();
  if (schema === "") return;
  const digests = readChecked(env, schema);
  delete digests[path];
  digests[path] = digestOf(text);
  const paths = Object.keys(digests);
  for (const old of paths.slice(0, Math.max(0, paths.length - MAX_FILES))) delete digests[old];
  const file = checkedPath(env);
  try {
    mkdirSync(dirname(file), { recursive: true });
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify({ format: FORMAT, schema, digests } satisfies CheckedFile), { mode: 0o600 });
    renameSync(temp, file);
  } catch {
    // a read-only cache folder: the next start checks the file again
  }
}
