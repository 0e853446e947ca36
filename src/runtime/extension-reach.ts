/** The skills and prompt commands of a run (docs/skills.md, docs/commands.md), found at start-up. */
import { discoverCommands, type PromptCommands } from "../prompt-commands/discover-commands.js";
import { discoverSkills } from "../skills/discover-skills.js";
import { SkillToolSet } from "../skills/skill-tool-set.js";

export interface ExtensionReach {
  skills: SkillToolSet;
  commands: PromptCommands;
}

/** Finds them for `cwd`; the workspace's own only when it is `trusted`. */
export async function openExtensionReach(cwd: string, trusted: boolean, env: NodeJS.ProcessEnv = process.env): Promise<ExtensionReach> {
  const skills = new SkillToolSet(await discoverSkills({ cwd, env, trusted }));
  return { skills, commands: discoverCommands(cwd, env, trusted) };
}
