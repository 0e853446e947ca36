/**
 * Markdown prompt commands (docs/commands.md): each `.md` file below one of these folders is a slash command
 * that sends its text as a prompt, named by its path (`frontend/review.md` is `/frontend:review`). In order of
 * precedence (the first of a name wins; the others are listed as shadowed): the workspace's `.awl/commands/`
 * and `.claude/commands/` (only once the folder is trusted), then the user's `~/.config/awl/commands/` and
 * `~/.claude/commands/`. Discovery only lists file names; a file is read when its command is used or described.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { userConfigDir } from "../config/paths.js";
import { pluginCommandFolders } from "../plugins/parts.js";
import { tilde } from "../skills/discover-skills.js";
import { compareCodeUnits } from "../tools/registry.js";

export interface CommandSource {
  dir: string;
  scope: "project" | "user";
  /** `.awl/commands` or `~/.config/awl/commands`. */
  label: string;
}

/** One command file: `offered`, `shadowed` by one of the same name before it, `untrusted`, or `refused` (bad name). */
export interface PromptCommand {
  /** Lower case, `:` between folders: `frontend:review`. */
  name: string;
  file: string;
  source: CommandSource;
  state: "offered" | "shadowed" | "untrusted" | "refused";
  reason?: string;
}

/** What a command file's front matter says (docs/commands.md). */
export interface CommandFile {
  description: string;
  argumentHint?: string;
  model?: string;
  allowedTools?: string[];
  /** The prompt's template. */
  body: string;
}

/** Command files bigger than this are refused when used. */
export const MAX_COMMAND_BYTES = 256 * 1024;

const NAME = /^[a-z0-9][a-z0-9_.-]*(:[a-z0-9][a-z0-9_.-]*)*$/;

/** The folders, in order of precedence. */
export function commandSources(cwd: string, env: NodeJS.ProcessEnv, trusted: boolean): CommandSource[] {
  const home = env.HOME ?? "";
  const user = join(userConfigDir(env), "commands");
  return [
    { dir: join(cwd, ".awl", "commands"), scope: "project", label: ".awl/commands" },
    { dir: join(cwd, ".claude", "commands"), scope: "project", label: ".claude/commands" },
    { dir: user, scope: "user", label: tilde(user, home) },
    { dir: join(home, ".claude", "commands"), scope: "user", label: "~/.claude/commands" },
    ...pluginCommandFolders(env, cwd, trusted).map((f) => ({ dir: f.dir, scope: "user" as const, label: `plugin ${f.plugin}` })),
  ];
}

/** The commands found, and their files read on demand. */
export class PromptCommands {
  private readonly read = new Map<string, CommandFile | Error>();

  constructor(readonly entries: readonly PromptCommand[]) {}

  /** The offered command of this name (any case). */
  find(name: string): PromptCommand | undefined {
    const lower = name.toLowerCase();
    return this.entries.find((c) => c.state === "offered" && c.name === lower);
  }

  offered(): PromptCommand[] {
    return this.entries.filter((c) => c.state === "offered");
  }

  /** Reads every offered command's file now (once the interactive mode watches the folders: a copy for a bad save). */
  async readAll(): Promise<void> {
    for (const command of this.offered()) await this.file(command);
  }

  /**
   * After a hot reload (these are the commands found again): each offered command's file is read now; one that no
   * longer parses keeps the version `previous` read. One line per change, for the user.
   */
  async carryOver(previous: PromptCommands): Promise<string[]> {
    const lines: string[] = [];
    for (const command of this.offered()) {
      const now = await readCommandFile(command.file);
      const old = previous.read.get(command.file);
      if (now instanceof Error && old !== undefined && !(old instanceof Error)) {
        this.read.set(command.file, old);
        lines.push(`command /${command.name} not reloaded: ${now.message}; its previous version is kept`);
        continue;
      }
      if (now instanceof Error) lines.push(`command /${command.name}: ${now.message}`);
      else if (old !== undefined && JSON.stringify(old) !== JSON.stringify(now)) lines.push(`command /${command.name} reloaded`);
      this.read.set(command.file, now);
    }
    const was = new Set(previous.offered().map((c) => c.name));
    const is = new Set(this.offered().map((c) => c.name));
    const changes = [...[...is].filter((n) => !was.has(n)).map((n) => `+/${n}`), ...[...was].filter((n) => !is.has(n)).map((n) => `-/${n}`)];
    if (changes.length > 0) lines.unshift(`commands: ${changes.join(" ")}`);
    return lines;
  }

  /** The file's front matter and template, or an Error naming file:line (read once, then kept). */
  async file(command: PromptCommand): Promise<CommandFile | Error> {
    const known = this.read.get(command.file);
    if (known) return known;
    const parsed = await readCommandFile(command.file);
    this.read.set(command.file, parsed);
    return parsed;
  }
}

/** Every command file of every source (the workspace's only when `trusted`). */
export function discoverCommands(cwd: string, env: NodeJS.ProcessEnv, trusted: boolean): PromptCommands {
  const entries: PromptCommand[] = [];
  const taken = new Map<string, PromptCommand>();
  for (const source of commandSources(cwd, env, trusted)) {
    for (const relative of markdownFiles(source.dir, "", 0)) {
      const name = relative.slice(0, -".md".length).split("/").join(":").toLowerCase();
      const entry: PromptCommand = { name, file: join(source.dir, relative), source, state: "offered" };
      entries.push(entry);
      if (source.scope === "project" && !trusted) {
        entry.state = "untrusted";
        entry.reason = "this folder is not trusted, so its commands are not read (awl permissions trust)";
      } else if (!NAME.test(name)) {
        entry.state = "refused";
        entry.reason = `"/${name}" is not a command name (letters, digits, _ . - in each part)`;
      } else if (taken.has(name)) {
        entry.state = "shadowed";
        entry.reason = `the ${taken.get(name)!.source.scope} command in ${taken.get(name)!.source.label} has this name and wins`;
      } else taken.set(name, entry);
    }
  }
  return new PromptCommands(entries);
}

/** The `.md` files below `dir`, relative to it, folders first by name; none when it is missing. */
function markdownFiles(dir: string, prefix: string, depth: number): string[] {
  if (depth > 8) return [];
  let names: string[];
  try {
    names = readdirSync(join(dir, prefix));
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of names.sort(compareCodeUnits)) {
    if (name.startsWith(".")) continue;
    const relative = prefix === "" ? name : `${prefix}/${name}`;
    if (name.endsWith(".md")) out.push(relative);
    else {
      try {
        if (statSync(join(dir, relative)).isDirectory()) out.push(...markdownFiles(dir, relative, depth + 1));
      } catch {
        // a dangling link
      }
    }
  }
  return out;
}

/** A command file read: its front matter and template, or an Error naming file:line. */
export async function readCommandFile(file: string): Promise<CommandFile | Error> {
  let text: string;
  try {
    const size = statSync(file).size;
    if (size > MAX_COMMAND_BYTES) return new Error(`${file}: it is ${Math.round(size / 1024)} KB, more than the ${MAX_COMMAND_BYTES / 1024} KB a command file may be`);
    text = readFileSync(file, "utf8");
  } catch (error) {
    return new Error(`${file}: cannot read it: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  const { parseFrontMatter } = await import("../util/front-matter.js");
  let data: Record<string, unknown>;
  let body: string;
  try {
    ({ data, body } = parseFrontMatter(text, file));
  } catch (error) {
    return error as Error;
  }
  const stringOf = (key: string): string | undefined => (typeof data[key] === "string" ? (data[key] as string) : data[key] === undefined ? undefined : String(data[key]));
  const tools = data["allowed-tools"];
  const out: CommandFile = { description: stringOf("description") ?? firstLine(body), body };
  const hint = stringOf("argument-hint");
  if (hint !== undefined) out.argumentHint = hint;
  const model = stringOf("model");
  if (model !== undefined) out.model = model;
  if (typeof tools === "string") out.allowedTools = tools.split(/[\s,]+/).filter(Boolean);
  else if (Array.isArray(tools)) out.allowedTools = tools.map(String);
  return out;
}

/** A command without a description is described by its first line of text (as Claude Code does). */
function firstLine(body: string): string {
  return (body.split("\n").find((l) => l.trim() !== "") ?? "").replace(/^#+\s*/, "").trim().slice(0, 120);
}
