/**
 * Sub-agent definitions (docs/agents.md): Markdown files whose YAML front matter gives `name`, `description`,
 * `tools` and `model`, and whose body is the sub-agent's system prompt, in the folders the peers share, plus the
 * built-in `general-purpose` agent. A project's definitions count only once the folder is trusted; a project
 * definition wins over a user one of the same name (the clash is reported).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { userConfigDir } from "../config/paths.js";
import { pluginAgentFolders } from "../plugins/parts.js";
import { openFrontMatterCache, type CachedFrontMatter, type FrontMatterCache } from "../util/front-matter-cache.js";

/** One sub-agent a `task` call can start. */
export interface AgentDefinition {
  name: string;
  /** When to use it: the model reads it in the `task` tool's description. */
  description: string;
  /** Tool names it may use (as written); undefined: every tool of the parent. */
  tools?: string[];
  /** A model id on the parent's provider; undefined: the parent's model (`inherit`). */
  model?: string;
  /** Its system prompt (the file's body). */
  prompt: string;
  /** Where it was defined: `built-in`, `project` or `user`. */
  source: "built-in" | "project" | "user";
  /** The file (`built-in` for the built-in agent). */
  file: string;
}

/** A definition file that was not used, and why. */
export interface AgentProblem {
  file: string;
  message: string;
}

/** The definitions in effect, by name order, and what was wrong with the rest. */
export interface AgentCatalog {
  agents: AgentDefinition[];
  problems: AgentProblem[];
}

/** Where to look. */
export interface AgentFolders {
  /** The workspace (its `.awl/agents/` and `.claude/agents/`). */
  cwd: string;
  /** Whether the workspace is trusted: its definitions are read only then. */
  trusted: boolean;
  env: NodeJS.ProcessEnv;
  /**
   * The cache of what each file's front matter and body said, by size and modification time (so a start-up
   * loads no YAML parser when nothing changed); false: none. Default `$XDG_CACHE_HOME/awl/agents.json`.
   */
  cachePath?: string | false;
}

/** The name of the built-in agent, used when a `task` call names none. */
export const GENERAL_PURPOSE = "general-purpose";

/** A definition file larger than this is refused (its body would be every request's system prompt). */
export const MAX_DEFINITION_BYTES = 256 * 1024;

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** The built-in general-purpose agent (a definition file of that name replaces it). */
export const BUILT_IN_AGENT: AgentDefinition = {
  name: GENERAL_PURPOSE,
  description: "Researches questions, searches code and does multi-step tasks, with all your tools.",
  prompt: [
    "You are a sub-agent: another agent handed you the task below. Do it with the tools you have, then answer with",
    "what it asked for, complete and self-contained: your final message is all it will see of your work (not your",
    "tool calls). Be concise; give file paths and line numbers where they help. You cannot ask the user anything.",
  ].join("\n"),
  source: "built-in",
  file: "built-in",
};

/** The folders definitions are read from, highest precedence first. */
export function agentFolders(folders: AgentFolders): { dir: string; source: "project" | "user" }[] {
  const project = folders.trusted
    ? [
        { dir: join(folders.cwd, ".awl", "agents"), source: "project" as const },
        { dir: join(folders.cwd, ".claude", "agents"), source: "project" as const },
      ]
    : [];
  const plugins = pluginAgentFolders(folders.env, folders.cwd, folders.trusted).map((f) => ({ dir: f.dir, source: "user" as const }));
  return [...project, { dir: join(userConfigDir(folders.env), "agents"), source: "user" }, ...plugins];
}

/** Reads every definition; never rejects (an unreadable or malformed file is a problem, the rest are used). */
export async function loadAgentDefinitions(folders: AgentFolders): Promise<AgentCatalog> {
  const chosen = new Map<string, AgentDefinition>();
  const problems: AgentProblem[] = [];
  const cache = openFrontMatterCache("agents", folders.cachePath, folders.env);
  for (const { dir, source } of agentFolders(folders)) {
    for (const file of markdownFiles(dir)) {
      const read = await readDefinition(file, source, cache);
      if ("message" in read) {
        problems.push(read);
        continue;
      }
      const earlier = chosen.get(read.name);
      if (earlier) {
        problems.push({ file, message: `${file}: the agent "${read.name}" is also defined in ${earlier.file}, which wins (project over user, .awl over .claude)` });
        continue;
      }
      chosen.set(read.name, read);
    }
  }
  cache.save();
  if (!chosen.has(GENERAL_PURPOSE)) chosen.set(GENERAL_PURPOSE, BUILT_IN_AGENT);
  const agents = [...chosen.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { agents, problems };
}

function markdownFiles(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.name.endsWith(".md") && !e.name.startsWith(".") && (e.isFile() || e.isSymbolicLink()))
      .map((e) => join(dir, e.name))
      .sort();
  } catch {
    return [];
  }
}

/** One file as a definition, or what is wrong with it (its front matter from `cache` when the file is unchanged). */
export async function readDefinition(file: string, source: "project" | "user", cache?: FrontMatterCache): Promise<AgentDefinition | AgentProblem> {
  let key: string;
  try {
    const stat = statSync(file);
    if (stat.size > MAX_DEFINITION_BYTES) return { file, message: `${file}: the definition is ${stat.size} bytes, more than the ${MAX_DEFINITION_BYTES} allowed; it is not used` };
    key = `${stat.size}:${stat.mtimeMs}`;
  } catch (e) {
    return { file, message: `${file}: cannot be read: ${(e as Error).message}` };
  }
  let parsed: CachedFrontMatter | AgentProblem | undefined = cache?.get(file, key);
  if (!parsed) {
    parsed = await parseFile(file);
    if (!("message" in parsed)) cache?.set(file, key, parsed);
  }
  if ("message" in parsed) return parsed;
  if ("error" in parsed) return { file, message: parsed.error };
  const { data } = parsed;
  const body = parsed.body ?? "";
  const stem = file.slice(file.lastIndexOf("/") + 1, -".md".length);
  const name = data.name ?? stem;
  if (typeof name !== "string" || !NAME.test(name))
    return { file, message: `${file}: "name" should be letters, digits, "-", "_" or "." (at most 64), got ${JSON.stringify(name)}` };
  if (typeof data.description !== "string" || data.description.trim() === "")
    return { file, message: `${file}: "description" is missing (the model needs it to choose the agent)` };
  const tools = toolList(data.tools);
  if (tools === null) return { file, message: `${file}: "tools" should be a list of tool names or a comma-separated string, got ${JSON.stringify(data.tools)}` };
  if (data.model !== undefined && typeof data.model !== "string") return { file, message: `${file}: "model" should be a model id or "inherit", got ${JSON.stringify(data.model)}` };
  const prompt = body.trim();
  if (prompt === "") return { file, message: `${file}: the body (the agent's system prompt) is empty` };
  const definition: AgentDefinition = { name, description: data.description.trim(), prompt, source, file };
  if (tools) definition.tools = tools;
  const model = modelOf(data.model);
  if (model) definition.model = model;
  return definition;
}

/** The file's front matter and body; a file that cannot be read is a problem (not cached: it may be fixed). */
async function parseFile(file: string): Promise<CachedFrontMatter | AgentProblem> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    return { file, message: `${file}: cannot be read: ${(e as Error).message}` };
  }
  // The YAML parser loads only when a file changed since the cache saw it.
  const { FrontMatterError, parseFrontMatter } = await import("../util/front-matter.js");
  try {
    const { data, body } = parseFrontMatter(text, file);
    return { data, body };
  } catch (e) {
    return { error: e instanceof FrontMatterError ? e.message : `${file}: ${(e as Error).message}` };
  }
}

/** `tools` as names; undefined when absent; null when it is neither a list of strings nor a string. */
function toolList(value: unknown): string[] | undefined | null {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value.split(",").map((s) => s.trim()).filter((s) => s !== "");
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value.map((s) => s.trim()).filter((s) => s !== "");
  return null;
}

/** Claude Code's aliases name its own models: on awl they mean the parent's model, as `inherit` does. */
const INHERITED = new Set(["inherit", "sonnet", "opus", "haiku"]);

function modelOf(value: unknown): string | undefined {
  if (typeof value !== "string" || value.trim() === "" || INHERITED.has(value.trim())) return undefined;
  return value.trim();
}

/** Claude Code's tool names, for definitions written for it. */
const CLAUDE_TOOLS: Record<string, string> = { read: "read", write: "write", edit: "edit", multiedit: "edit", bash: "bash", grep: "grep", glob: "find", ls: "ls" };

/**
 * The tools a definition may use among `available` (names), and the names it gave that match none. A name
 * matches exactly, then case-insensitively, then as Claude Code's name for an awl tool (`Glob` is `find`).
 */
export function resolveTools(wanted: readonly string[], available: readonly string[]): { tools: Set<string>; unknown: string[] } {
  const have = new Set(available);
  const lower = new Map(available.map((n) => [n.toLowerCase(), n]));
  const tools = new Set<string>();
  const unknown: string[] = [];
  for (const name of wanted) {
    const found = have.has(name) ? name : (lower.get(name.toLowerCase()) ?? lower.get(CLAUDE_TOOLS[name.toLowerCase()] ?? ""));
    if (found) tools.add(found);
    else unknown.push(name);
  }
  return { tools, unknown };
}
