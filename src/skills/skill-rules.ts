/**
 * The Agent Skills specification's rules for a `SKILL.md` front matter (agentskills.io/specification): `name`
 * (1–64 lowercase letters, digits and hyphens, no hyphen first, last or doubled, equal to the folder's name),
 * `description` (1–1024 characters), optional `license`, `compatibility` (≤ 500), `metadata` (string keys to
 * string values) and `allowed-tools` (space-separated tool names). Other keys (Claude Code's
 * `disable-model-invocation`, `argument-hint`, ...) are kept aside, never a reason to refuse a skill.
 */

/** What a valid front matter says. */
export interface SkillFields {
  name: string;
  description: string;
  license?: string;
  compatibility?: string;
  metadata?: Record<string, string>;
  allowedTools?: string[];
}

export const MAX_NAME = 64;
export const MAX_DESCRIPTION = 1024;
export const MAX_COMPATIBILITY = 500;

/** The fields, or every reason the front matter breaks the rules. */
export function checkSkillFields(data: Record<string, unknown>, folder: string): { ok: true; fields: SkillFields } | { ok: false; reasons: string[] } {
  const reasons: string[] = [];
  const { name, description, license, compatibility, metadata } = data;
  const allowed = data["allowed-tools"];
  if (typeof name !== "string" || name === "") reasons.push("`name` is missing (it must equal the folder's name)");
  else {
    const problem = nameProblem(name);
    if (problem) reasons.push(`\`name\` ${JSON.stringify(name)} ${problem}`);
    else if (name !== folder) reasons.push(`\`name\` ${JSON.stringify(name)} is not the folder's name ${JSON.stringify(folder)}`);
  }
  if (typeof description !== "string" || description.trim() === "") reasons.push("`description` is missing (say what the skill does and when to use it)");
  else if ([...description].length > MAX_DESCRIPTION) reasons.push(`\`description\` is ${[...description].length} characters, more than ${MAX_DESCRIPTION}`);
  if (license !== undefined && typeof license !== "string") reasons.push("`license` must be text");
  if (compatibility !== undefined) {
    if (typeof compatibility !== "string") reasons.push("`compatibility` must be text");
    else if ([...compatibility].length > MAX_COMPATIBILITY) reasons.push(`\`compatibility\` is ${[...compatibility].length} characters, more than ${MAX_COMPATIBILITY}`);
  }
  if (metadata !== undefined && (typeof metadata !== "object" || metadata === null || Array.isArray(metadata) || Object.values(metadata).some((v) => typeof v !== "string"))) {
    reasons.push("`metadata` must map names to text values");
  }
  const tools = typeof allowed === "string" ? allowed.split(/\s+/).filter(Boolean) : Array.isArray(allowed) && allowed.every((t) => typeof t === "string") ? (allowed as string[]) : undefined;
  if (allowed !== undefined && tools === undefined) reasons.push("`allowed-tools` must be tool names separated by spaces");
  if (reasons.length > 0) return { ok: false, reasons };
  const fields: SkillFields = { name: name as string, description: (description as string).trim() };
  if (typeof license === "string") fields.license = license;
  if (typeof compatibility === "string") fields.compatibility = compatibility;
  if (metadata !== undefined) fields.metadata = metadata as Record<string, string>;
  if (tools !== undefined) fields.allowedTools = tools;
  return { ok: true, fields };
}

/** Why `name` is not a skill name, or undefined when it is one. */
export function nameProblem(name: string): string | undefined {
  if (name.length > MAX_NAME) return `is ${name.length} characters, more than ${MAX_NAME}`;
  if (!/^[a-z0-9-]+$/.test(name)) return "may hold only lowercase letters, digits and hyphens";
  if (name.startsWith("-") || name.endsWith("-")) return "may not start or end with a hyphen";
  if (name.includes("--")) return "may not hold two hyphens in a row";
  return undefined;
}
