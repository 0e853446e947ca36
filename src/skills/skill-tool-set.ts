/**
 * The `skill` tool and the skills' listing in the system prompt, as a ToolSet beside the Lua extensions and the
 * MCP servers. It lives in TypeScript, not as a Lua extension like `std.read`: the catalogue it serves is the
 * one awl discovered, checked against the folder's trust and listed within a byte budget in the system prompt
 * (`instructions()`), so the tool and the prompt can never disagree about which skills exist. It declares the
 * kind `read`: it only reads a `SKILL.md` awl already offers; the skill's other files are read, and its scripts
 * run, through the ordinary tools and their permissions. Offered only when at least one skill is.
 */
import { parseToolInput } from "../model/blocks.js";
import type { ToolCall, ToolDefinition, ToolOutcome, ToolSet } from "../tools/types.js";
import type { SkillEntry } from "./discover-skills.js";
import { readSkillFile, skillBodyText, type SkillFileText } from "./skill-body.js";
import { skillListing } from "./skill-listing.js";

/** The tool's name, as models see it. */
export const SKILL_TOOL = "skill";

export class SkillToolSet implements ToolSet {
  private tools: readonly ToolDefinition[] = [];
  private listing: readonly string[] = [];
  private found: readonly SkillEntry[] = [];
  /** Each offered skill's file as it last parsed (hot reload: a bad save keeps it), by file. */
  private readonly copies = new Map<string, SkillFileText>();
  /** Files whose save broke them: their copy is what an invocation loads until a good save. */
  private readonly keptFiles = new Set<string>();

  constructor(skills: readonly SkillEntry[]) {
    this.use(skills);
  }

  /** Every skill found, each with its state. */
  get skills(): readonly SkillEntry[] {
    return this.found;
  }

  /**
   * Keeps a copy of each offered skill's file (once the interactive mode watches the folders): a later save that
   * breaks one keeps this version.
   */
  keepCopies(): void {
    for (const skill of this.found) if (skill.state === "offered" && !this.keptFiles.has(skill.file)) this.copy(skill);
  }

  /**
   * The skills found again (hot reload): the listing and the tool follow them from the next model call. A skill
   * whose file no longer parses keeps its previous version (its copy). One line per change, for the user.
   */
  replace(found: readonly SkillEntry[]): string[] {
    const lines: string[] = [];
    const before = this.found;
    const next = found.map((entry) => {
      const old = before.find((s) => s.state === "offered" && s.file === entry.file);
      if (entry.state !== "refused" || !old || !this.copies.has(entry.file)) {
        this.keptFiles.delete(entry.file);
        if (entry.state === "refused") lines.push(`skill ${entry.name}: ${entry.reason}`);
        return entry;
      }
      this.keptFiles.add(entry.file);
      lines.push(`skill ${old.name} not reloaded: ${entry.reason}; its previous version is kept`);
      return old;
    });
    const names = (list: readonly SkillEntry[]) => new Set(list.filter((s) => s.state === "offered").map((s) => s.name));
    const [was, is] = [names(before), names(next)];
    const added = [...is].filter((n) => !was.has(n));
    const removed = [...was].filter((n) => !is.has(n));
    if (added.length + removed.length > 0) lines.unshift(`skills: ${[...added.map((n) => `+${n}`), ...removed.map((n) => `-${n}`)].join(" ")}`);
    this.use(next);
    for (const skill of next) {
      if (skill.state !== "offered" || this.keptFiles.has(skill.file)) continue;
      const old = this.copies.get(skill.file)?.text;
      this.copy(skill);
      if (old !== undefined && was.has(skill.name) && this.copies.get(skill.file)?.text !== old) lines.push(`skill ${skill.name} reloaded`);
    }
    return lines;
  }

  /** The text `skill` loads: its file now, or the copy kept through a save that broke it. */
  body(skill: SkillEntry): ReturnType<typeof skillBodyText> {
    return skillBodyText(skill, this.keptFiles.has(skill.file) ? this.copies.get(skill.file) : undefined);
  }

  private use(skills: readonly SkillEntry[]): void {
    this.found = skills;
    const text = skillListing(skills).text;
    this.listing = text === "" ? [] : [text];
    this.tools = text === "" ? [] : [SKILL_DEFINITION];
  }

  private copy(skill: SkillEntry): void {
    try {
      this.copies.set(skill.file, readSkillFile(skill));
    } catch {
      this.copies.delete(skill.file);
    }
  }

  /** The offered skill of this name, if any. */
  find(name: string): SkillEntry | undefined {
    return this.skills.find((s) => s.state === "offered" && s.name === name);
  }

  definitions(): readonly ToolDefinition[] {
    return this.tools;
  }

  instructions(): readonly string[] {
    return this.listing;
  }

  async execute(call: ToolCall): Promise<ToolOutcome> {
    const input = parseToolInput(call.input) as { name?: unknown } | null;
    const name = typeof input?.name === "string" ? input.name.replace(/^[/$]/, "") : "";
    const skill = this.find(name);
    if (!skill) {
      const names = this.skills.filter((s) => s.state === "offered").map((s) => s.name);
      return { status: "result", is_error: true, content: `no skill named ${JSON.stringify(name)}; the skills are: ${names.join(", ")}` };
    }
    const body = await this.body(skill);
    return body.ok ? { status: "result", is_error: false, content: body.text, summary: `loaded the skill ${skill.name}` } : { status: "result", is_error: true, content: body.message };
  }
}

const SKILL_DEFINITION: ToolDefinition = {
  name: SKILL_TOOL,
  description: "Load a skill's instructions (the skills are listed in the system prompt) before doing the task it covers.",
  schema: JSON.stringify({
    type: "object",
    properties: { name: { type: "string", description: "The skill's name, as listed." } },
    required: ["name"],
  }),
  extension: "awl.skills",
  file: "(built in)",
  parallel: true,
  timeout_ms: 10_000,
  kinds: ["read"],
};
