/**
 * `awl skills`: every Agent Skill found (docs/skills.md) with its source, size and state (offered, refused with
 * the reason, shadowed, not read in an untrusted folder), the system prompt's listing against its byte budget;
 * then the Markdown prompt commands (docs/commands.md). `/skills` in the interactive mode shows the same.
 */
import { parseArgs } from "node:util";
import { isProjectTrusted } from "../../permissions/setup.js";
import type { PromptCommands } from "../../prompt-commands/discover-commands.js";
import type { SkillEntry } from "../../skills/discover-skills.js";
import { SKILL_LISTING_BUDGET, skillListing } from "../../skills/skill-listing.js";
import { MAX_SKILL_BODY } from "../../skills/skill-body.js";
import { EXIT } from "../exit-codes.js";
import { openExtensionReach } from "../../runtime/extension-reach.js";
import { processIO, usageError } from "./extension-host.js";

export const SKILLS_USAGE = `usage: awl skills [--json] [--trust-project]

Lists every Agent Skill awl finds (.awl/skills, .agents/skills, .claude/skills of a trusted
folder; ~/.config/awl/skills, ~/.agents/skills, ~/.claude/skills): its name, where it is,
the size of its SKILL.md and its state (offered; refused, with the reason; shadowed by a skill
of the same name; not read because the folder is not trusted), and how much of the system
prompt's skill listing it uses; then the Markdown prompt commands (docs/commands.md).
`;

export async function run(argv: readonly string[]): Promise<number> {
  let values: { json?: boolean; "trust-project"?: boolean; help?: boolean };
  try {
    values = parseArgs({ args: [...argv], options: { json: { type: "boolean" }, "trust-project": { type: "boolean" }, help: { type: "boolean", short: "h" } }, strict: true }).values;
  } catch (error) {
    return usageError(processIO, "skills", (error as Error).message.split(". ")[0] ?? String(error));
  }
  if (values.help) {
    process.stdout.write(SKILLS_USAGE);
    return EXIT.ok;
  }
  const cwd = process.cwd();
  const reach = await openExtensionReach(cwd, await isProjectTrusted(cwd, process.env, values["trust-project"] === true));
  if (values.json) {
    const listing = skillListing(reach.skills.skills);
    const skills = reach.skills.skills.map((s) => ({
      name: s.name,
      source: s.source.label,
      scope: s.source.scope,
      file: s.file,
      size: s.size,
      state: s.state,
      ...(s.reason && { reason: s.reason }),
      ...(s.fields && { description: s.fields.description }),
      ...(s.state === "offered" && { listed: listing.namedOnly.includes(s.name) ? "name" : "description" }),
    }));
    const commands = await Promise.all(reach.commands.entries.map(async (c) => {
      const file = c.state === "offered" ? await reach.commands.file(c) : undefined;
      return { name: c.name, source: c.source.label, file: c.file, state: file instanceof Error ? "refused" : c.state, ...(c.reason && { reason: c.reason }), ...(file instanceof Error ? { reason: file.message } : file && { description: file.description }) };
    }));
    process.stdout.write(`${JSON.stringify({ listing_bytes: Buffer.byteLength(listing.text), listing_budget: SKILL_LISTING_BUDGET, skills, commands }, null, 2)}\n`);
    return EXIT.ok;
  }
  process.stdout.write(`${skillsText(reach.skills.skills)}\n${await commandsText(reach.commands)}`);
  return EXIT.ok;
}

/** The skills, one line each (a second for the reason), and the listing's use of its budget. */
export function skillsText(skills: readonly SkillEntry[]): string {
  if (skills.length === 0) return "No skills (docs/skills.md says where awl looks).\n";
  const listing = skillListing(skills);
  const lines = [
    `skills: ${skills.filter((s) => s.state === "offered").length} offered; the system prompt's listing is ${kb(Buffer.byteLength(listing.text))} (descriptions within ${kb(SKILL_LISTING_BUDGET)})${listing.namedOnly.length ? `, ${listing.namedOnly.length} listed by name only: ${listing.namedOnly.join(", ")}` : ""}`,
  ];
  for (const skill of skills) {
    const cut = skill.size > MAX_SKILL_BODY ? ` (only the first ${kb(MAX_SKILL_BODY)} is sent)` : "";
    lines.push(`  ${skill.name}  ${skill.source.label}  ${kb(skill.size)}  ${skill.state}${cut}`);
    if (skill.reason) lines.push(`      ${skill.reason}`);
  }
  return `${lines.join("\n")}\n`;
}

/** The prompt commands, one line each with the description (read now) or the reason. */
export async function commandsText(commands: PromptCommands): Promise<string> {
  if (commands.entries.length === 0) return "No prompt commands (docs/commands.md says where awl looks).\n";
  const lines = [`prompt commands: ${commands.offered().length} offered`];
  for (const command of commands.entries) {
    const file = command.state === "offered" ? await commands.file(command) : undefined;
    const state = file instanceof Error ? "refused" : command.state;
    const hint = file && !(file instanceof Error) && file.argumentHint ? ` ${file.argumentHint}` : "";
    lines.push(`  /${command.name}${hint}  ${command.source.label}  ${state}${file && !(file instanceof Error) && file.description ? `  ${file.description}` : ""}`);
    const reason = file instanceof Error ? file.message : command.reason;
    if (reason) lines.push(`      ${reason}`);
  }
  return `${lines.join("\n")}\n`;
}

function kb(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${bytes} B`;
}
