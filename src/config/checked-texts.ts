/**
 * Config files whose exact text passed the schema check with nothing to say (no error, no unknown key), remembered
 * in `$XDG_CACHE_HOME/awl/config-checked.json` so that the next start with the same text does not load and run the
 * generated validator (a chunk of ~90 KB) to learn it again (issue 30). The memory holds the texts themselves, not
 * a digest of them, and belongs to one schema (awl's version and the schema file's size and time): another awl, or
 * any change to a file, checks it again. A memory that cannot be read or written only costs that check.
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { awlVersion } from "../version.js";
import { packagePath } from "../util/package-path.js";
import { userCacheDir } from "./paths.js";

/** Bump when the file's shape changes. */
const FORMAT = 1;
/** The files remembered at most (the user's own and a few projects'); the oldest is forgotten first. */
const MAX_FILES = 16;

interface CheckedFile {
  format: number;
  schema: string;
  /** Config file path → the text that passed. */
  texts: Record<string, string>;
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
    if (file.format === FORMAT && file.schema === schema && typeof file.texts === "object" && file.texts !== null) return file.texts;
  } catch {
    // none yet, or unreadable: nothing remembered
  }
  return {};
}

/** Whether `text` is the text of `path` that last passed the check against this awl's schema. */
export function checkedBefore(env: NodeJS.ProcessEnv, path: string, text: string): boolean {
  const schema = schemaIdentity();
  return schema !== "" && readChecked(env, schema)[path] === text;
}

/** Remembers that `text`, the text of `path`, passed the check with nothing to say. Never throws. */
export function rememberChecked(env: NodeJS.ProcessEnv, path: string, text: string): void {
  const schema = schemaIdentity();
  if (schema === "") return;
  const texts = readChecked(env, schema);
  delete texts[path];
  texts[path] = text;
  const paths = Object.keys(texts);
  for (const old of paths.slice(0, Math.max(0, paths.length - MAX_FILES))) delete texts[old];
  const file = checkedPath(env);
  try {
    mkdirSync(dirname(file), { recursive: true });
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify({ format: FORMAT, schema, texts } satisfies CheckedFile));
    renameSync(temp, file);
  } catch {
    // a read-only cache folder: the next start checks the file again
  }
}
