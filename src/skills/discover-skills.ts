/**
 * Where awl finds Agent Skills (docs/skills.md): a skill is a folder holding `SKILL.md`, directly inside one of
 * these, in this order of precedence (the first skill of a name wins; the others are listed as shadowed):
 * the workspace's `.awl/skills/`, `.agents/skills/`, `.claude/skills/` (only once the folder is trusted), then
 * the user's `~/.config/awl/skills/`, `~/.agents/skills/`, `~/.claude/skills/`. Only the front matter is read
 * here (the first 64 KB of a file at most), and what it said is cached by size and modification time
 * (util/front-matter-cache.ts), so a start-up with many skills parses none that did not change.
 */
import { closeSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { userConfigDir } from "../config/paths.js";
import { pluginSkillFolders } from "../plugins/parts.js";
import { compareCodeUnits } from "../tools/registry.js";
import { openFrontMatterCache, type CachedFrontMatter, type FrontMatterCache } from "../util/front-matter-cache.js";
import { checkSkillFields, type SkillFields } from "./skill-rules.js";

/** One folder skills are looked for in. */
export interface SkillSource {
  /** Absolute path. */
  dir: string;
  scope: "project" | "user";
  /** How listings name it: `.awl/skills` or `~/.config/awl/skills`. */
  label: string;
}

/**
 * A skill folder and what awl made of it: `offered` (in the system prompt and the `skill` tool), `refused` (its
 * `SKILL.md` breaks the rules), `shadowed` (a skill of the same name comes first), `untrusted` (the workspace is not
 * trusted, so its skills were not read).
 */
export interface SkillEntry {
  name: string;
  dir: string;
  file: string;
  source: SkillSource;
  /** Bytes of `SKILL.md`. */
  size: number;
  state: "offered" | "refused" | "shadowed" | "untrusted";
  /** Why it is refused, shadowed or untrusted. */
  reason?: string;
  /** The front matter, for offered and shadowed skills. */
  fields?: SkillFields;
}

export interface SkillDiscoveryOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Whether the workspace is trusted: its skills are read only then. */
  trusted: boolean;
  /** The front-matter cache file; false: none (tests). Default `$XDG_CACHE_HOME/awl/skills.json`. */
  cachePath?: string | false;
}

/** The most of a `SKILL.md` read to find its front matter. */
export const FRONT_MATTER_BYTES = 64 * 1024;

/** The folders skills are looked for in, in order of precedence. */
export function skillSources(cwd: string, env: NodeJS.ProcessEnv, trusted: boolean): SkillSource[] {
  const home = env.HOME ?? "";
  const user = userConfigDir(env);
  return [
    ...[".awl/skills", ".agents/skills", ".claude/skills"].map((label) => ({ dir: join(cwd, label), scope: "project" as const, label })),
    { dir: join(user, "skills"), scope: "user", label: tilde(join(user, "skills"), home) },
    { dir: join(home, ".agents", "skills"), scope: "user", label: "~/.agents/skills" },
    { dir: join(home, ".claude", "skills"), scope: "user", label: "~/.claude/skills" },
    ...pluginSkillFolders(env, cwd, trusted).map((f) => ({ dir: f.dir, scope: "user" as const, label: `plugin ${f.plugin}` })),
  ];
}

/** Every skill folder of every source, each with its state; offered ones first come first by precedence. */
export async function discoverSkills(options: SkillDiscoveryOptions): Promise<SkillEntry[]> {
  const cache = openFrontMatterCache("skills", options.cachePath ?? undefined, options.env);
  const entries: SkillEntry[] = [];
  const taken = new Map<string, SkillEntry>();
  // The same folder reached twice (~/.agents/skills linked to ~/.claude/skills) is one set of skills.
  const seen = new Set<string>();
  for (const source of skillSources(options.cwd, options.env, options.trusted)) {
    for (const folder of skillFolders(source.dir, seen)) {
      const dir = join(source.dir, folder.name);
      const file = join(dir, "SKILL.md");
      const entry: SkillEntry = { name: folder.name, dir, file, source, size: folder.size, state: "offered" };
      entries.push(entry);
      if (source.scope === "project" && !options.trusted) {
        entry.state = "untrusted";
        entry.reason = "this folder is not trusted, so its skills are not read (awl permissions trust)";
        continue;
      }
      const read = await frontMatterOf(file, folder, cache);
      const checked = "error" in read ? { ok: false as const, reasons: [read.error] } : checkSkillFields(read.data, folder.name);
      if (!checked.ok) {
        entry.state = "refused";
        entry.reason = checked.reasons.join("; ");
        continue;
      }
      entry.fields = checked.fields;
      const first = taken.get(checked.fields.name);
      if (first) {
        entry.state = "shadowed";
        entry.reason = `the ${first.source.scope} skill in ${first.source.label} has this name and wins`;
        continue;
      }
      taken.set(checked.fields.name, entry);
    }
  }
  cache.save();
  return entries;
}

interface Folder {
  name: string;
  size: number;
  mtimeMs: number;
}

/** The folders of `dir` holding a `SKILL.md`, by name; none when `dir` is missing or was seen. */
function skillFolders(dir: string, seen: Set<string>): Folder[] {
  let names: string[];
  try {
    const real = statSync(dir);
    const key = `${real.dev}:${real.ino}`;
    if (seen.has(key)) return [];
    seen.add(key);
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: Folder[] = [];
  for (const name of names.sort(compareCodeUnits)) {
    if (name.startsWith(".")) continue;
    try {
      const stat = statSync(join(dir, name, "SKILL.md"));
      if (stat.isFile()) out.push({ name, size: stat.size, mtimeMs: stat.mtimeMs });
    } catch {
      // not a skill folder
    }
  }
  return out;
}

/** The front matter of `file`, from the cache when its size and time match, else parsed (and cached). */
async function frontMatterOf(file: string, folder: Folder, cache: FrontMatterCache): Promise<CachedFrontMatter> {
  const key = `${folder.size}:${folder.mtimeMs}`;
  const cached = cache.get(file, key);
  if (cached) return cached;
  let result: CachedFrontMatter;
  try {
    const { FrontMatterError, parseFrontMatter } = await import("../util/front-matter.js");
    try {
      result = { data: parseFrontMatter(readHead(file, FRONT_MATTER_BYTES), file).data };
    } catch (error) {
      if (!(error instanceof FrontMatterError)) throw error;
      result = { error: error.message };
    }
  } catch (error) {
    result = { error: `${file}: cannot read it: ${(error as Error).message}` };
  }
  cache.set(file, key, result);
  return result;
}

/** The first `bytes` of a file as text (a character cut at the end shows as U+FFFD). */
export function readHead(file: string, bytes: number): string {
  const fd = openSync(file, "r");
  try {
    const buffer = Buffer.alloc(bytes);
    const read = readSync(fd, buffer, 0, bytes, 0);
    return buffer.subarray(0, read).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/** `~/…` for a path inside the home folder. */
export function tilde(path: string, home: string): string {
  return home !== "" && path.startsWith(`${home}/`) ? `~/${path.slice(home.length + 1)}` : path;
}
