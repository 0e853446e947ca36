/**
 * Hot reload of the skills, prompt commands and sub-agent definitions in the interactive mode (docs/skills.md,
 * docs/commands.md, docs/agents.md): their folders ride on the extensions' one watcher (extensions/watch.ts). A
 * save is read at once: the next model call offers the new lists, and an edited skill or command is what the next
 * invocation loads. A save that breaks a file is reported, and its previous version keeps working.
 */
import { agentFolders } from "../agents/definitions.js";
import type { WatchGroup } from "../extensions/watch.js";
import { commandSources, discoverCommands } from "../prompt-commands/discover-commands.js";
import { discoverSkills, skillSources } from "../skills/discover-skills.js";
import type { Runtime } from "../runtime/runtime.js";

/** What a reload needs of the runtime: the three catalogues it swaps. */
type Reach = Pick<Runtime, "skills" | "promptCommands" | "hosts">;

/**
 * The watch group of the run's skill, command and agent folders (a project's only when it is `trusted`); `notice`
 * hears each new line of a reload. Copies of the current files are taken now, for a save that breaks one.
 */
export function reachWatchGroup(runtime: Reach, cwd: string, trusted: boolean, notice: (text: string) => void, env: NodeJS.ProcessEnv = process.env): WatchGroup {
  const own = (source: { scope: string }) => trusted || source.scope !== "project";
  const folders = [
    ...skillSources(cwd, env, trusted).filter(own).map((s) => s.dir),
    ...commandSources(cwd, env, trusted).filter(own).map((s) => s.dir),
    ...agentFolders({ cwd, trusted, env }).map((f) => f.dir),
  ];
  runtime.skills?.keepCopies();
  let reading = runtime.promptCommands?.readAll() ?? Promise.resolve();
  // A problem is said when it appears, not again at every later save.
  let said = new Set<string>();
  return {
    folders: [...new Set(folders)],
    accept: (path) => path.endsWith(".md"),
    onChange: () => {
      reading = reading
        .then(() => reloadReach(runtime, cwd, trusted, env))
        .then(
          (lines) => {
            for (const line of lines) if (!said.has(line)) notice(line);
            said = new Set(lines);
          },
          (error: unknown) => notice(`awl: skills, commands and agents not reloaded: ${(error as Error).message ?? String(error)}`),
        );
    },
  };
}

/** Finds the skills, commands and agents again and puts them in place; what changed, one line each. */
export async function reloadReach(runtime: Reach, cwd: string, trusted: boolean, env: NodeJS.ProcessEnv): Promise<string[]> {
  const lines: string[] = [];
  if (runtime.skills) lines.push(...runtime.skills.replace(await discoverSkills({ cwd, env, trusted })));
  if (runtime.promptCommands) {
    const next = discoverCommands(cwd, env, trusted);
    lines.push(...(await next.carryOver(runtime.promptCommands)));
    runtime.promptCommands = next;
  }
  const agents = runtime.hosts.agents;
  if (agents) {
    const previous = (await agents.agents()).agents;
    const before = new Set(previous.map((a) => a.name));
    const catalog = await agents.reload();
    for (const agent of catalog.agents) {
      const old = previous.find((a) => a.name === agent.name);
      if (old && old !== agent && JSON.stringify(old) !== JSON.stringify(agent)) lines.push(`agent ${agent.name} reloaded`);
    }
    const after = new Set(catalog.agents.map((a) => a.name));
    const changes = [...[...after].filter((n) => !before.has(n)).map((n) => `+${n}`), ...[...before].filter((n) => !after.has(n)).map((n) => `-${n}`)];
    if (changes.length > 0) lines.push(`agents: ${changes.join(" ")}`);
    lines.push(...catalog.problems.map((p) => `agent ${p.file}: ${p.message}`));
  }
  return lines;
}
