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
import { skillBodyText } from "./skill-body.js";
import { skillListing } from "./skill-listing.js";

/** The tool's name, as models see it. */
export const SKILL_TOOL = "skill";

export class SkillToolSet implements ToolSet {
  private readonly tools: readonly ToolDefinition[];
  private readonly listing: readonly string[];

  constructor(readonly skills: readonly SkillEntry[]) {
    const text = skillListing(skills).text;
    this.listing = text === "" ? [] : [text];
    this.tools = text === "" ? [] : [SKILL_DEFINITION];
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
    const body = await skillBodyText(skill);
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
