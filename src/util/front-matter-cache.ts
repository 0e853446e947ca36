/**
 * What the front matter of each Markdown file awl reads at start-up said (skills' `SKILL.md`, agent
 * definitions), keyed by the file's size and modification time, in `$XDG_CACHE_HOME/awl/<name>.json`: a start-up
 * reads one small file instead of loading the YAML parser and parsing every file. Only a head start: a missing or
 * unreadable cache costs the parse, nothing else.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { userCacheDir } from "../config/paths.js";

/** Bump when the cached shape changes. */
const FORMAT = 1;

/** A front matter's keys (and the body after it, when the reader keeps it), or the error (with file:line) that reading it gave. */
export type CachedFrontMatter = { data: Record<string, unknown>; body?: string } | { error: string };

interface CacheFile {
  format: number;
  files: Record<string, { key: string } & CachedFrontMatter>;
}

export interface FrontMatterCache {
  get(file: string, key: string): CachedFrontMatter | undefined;
  set(file: string, key: string, value: CachedFrontMatter): void;
  /** Writes the cache when something changed (the entries of other folders' skills are kept). */
  save(): void;
}

/** The cache `name` (at `path` when given, else `<user cache folder>/<name>.json`); `false`: none. */
export function openFrontMatterCache(name: string, path: string | undefined | false, env: NodeJS.ProcessEnv): FrontMatterCache {
  if (path === false) return { get: () => undefined, set: () => undefined, save: () => undefined };
  const file = path ?? join(userCacheDir(env), `${name}.json`);
  let old: CacheFile["files"] = {};
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as CacheFile;
    if (parsed.format === FORMAT && parsed.files && typeof parsed.files === "object") old = parsed.files;
  } catch {
    // none yet, or unreadable: parsed again
  }
  const fresh: CacheFile["files"] = {};
  return {
    get(name, key) {
      const hit = old[name];
      if (hit?.key !== key) return undefined;
      const { key: _key, ...value } = hit;
      return value;
    },
    set(name, key, value) {
      fresh[name] = { key, ...value };
    },
    save() {
      if (Object.keys(fresh).length === 0) return;
      try {
        mkdirSync(dirname(file), { recursive: true });
        const temp = `${file}.${process.pid}.tmp`;
        writeFileSync(temp, JSON.stringify({ format: FORMAT, files: { ...old, ...fresh } } satisfies CacheFile));
        renameSync(temp, file);
      } catch {
        // a read-only home: the next start parses again
      }
    },
  };
}
