/**
 * Progressive disclosure (docs/skills.md): the system prompt names every offered skill with its description,
 * in name order, until the listing reaches its byte budget; the skills past it are named without their
 * description. The bodies are not sent until the model (the `skill` tool) or the user (`/name`, `$name`) asks.
 */
import type { SkillEntry } from "./discover-skills.js";

/** Bytes of the descriptions' lines the system prompt holds at most. */
export const SKILL_LISTING_BUDGET = 8 * 1024;

export interface SkillListing {
  /** The system prompt's section; "" when no skill is offered. */
  text: string;
  /** Skills listed with their description. */
  described: string[];
  /** Skills past the budget, listed by name only. */
  namedOnly: string[];
}

const HEADER = [
  "# Skills",
  "",
  "Skills are instructions for particular tasks, each in its own folder. When a task matches a skill's description, load the skill with the skill tool before you start and follow it; read the files it mentions from its folder with your ordinary tools.",
  "",
].join("\n");

/** The listing of the offered skills, within `budget` bytes of description lines. */
export function skillListing(skills: readonly SkillEntry[], budget = SKILL_LISTING_BUDGET): SkillListing {
  const offered = skills.filter((s) => s.state === "offered").sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (offered.length === 0) return { text: "", described: [], namedOnly: [] };
  const lines: string[] = [];
  const described: string[] = [];
  const namedOnly: string[] = [];
  let used = 0;
  for (const skill of offered) {
    const line = `- ${skill.name}: ${oneLine(skill.fields!.description)}`;
    const bytes = Buffer.byteLength(line) + 1;
    if (namedOnly.length === 0 && used + bytes <= budget) {
      lines.push(line);
      described.push(skill.name);
      used += bytes;
    } else namedOnly.push(skill.name);
  }
  if (namedOnly.length > 0) lines.push(`- also (descriptions left out for space; load one to see it): ${namedOnly.join(", ")}`);
  return { text: `${HEADER}${lines.join("\n")}`, described, namedOnly };
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
