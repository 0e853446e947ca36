/**
 * The session's commands as ACP advertises them (`available_commands_update`): the Markdown prompt commands,
 * the skills and the extensions' commands, which a client sends back as a prompt `/name ARGS`
 * (src/runtime/prompt-invocation.ts). awl's interactive-only commands (`/help`, `/model`, ...) are not among them.
 */
import type { AvailableCommand } from "@agentclientprotocol/sdk";
import type { Runtime } from "../runtime/runtime.js";

/** Every command a prompt can name, first of a name kept, in the order src/runtime/prompt-invocation.ts looks. */
export async function availableCommands(runtime: Pick<Runtime, "promptCommands" | "skills" | "hosts">): Promise<AvailableCommand[]> {
  const out: AvailableCommand[] = [];
  const add = (command: AvailableCommand): void => {
    if (!out.some((c) => c.name === command.name)) out.push(command);
  };
  const commands = runtime.promptCommands;
  for (const command of commands?.offered() ?? []) {
    const file = await commands!.file(command);
    if (file instanceof Error) continue;
    add({ name: command.name, description: file.description || `(${command.source.label})`, ...(file.argumentHint && { input: { hint: file.argumentHint } }) });
  }
  for (const skill of runtime.skills?.skills ?? []) {
    if (skill.state === "offered") add({ name: skill.name, description: `skill: ${skill.fields!.description}`, input: { hint: "what to do with it (optional)" } });
  }
  const lua = runtime.hosts.lua;
  if (lua) {
    await lua.ready();
    for (const command of lua.commands()) add({ name: command.name, description: command.description || `(extension ${command.extension})`, input: { hint: "arguments" } });
  }
  return out;
}
