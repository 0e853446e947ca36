/** `/tools`: the tools the model is offered (`/extensions` shows where they come from). */
import { oneLine } from "../../ui/output/tool-block.js";
import type { SlashCommand } from "./slash-command.js";

export const toolsCommand: SlashCommand = {
  name: "tools",
  summary: "list the tools the model is offered, with their extension",
  run: (_args, { runtime, print }) => {
    const tools = runtime.agent.tools?.definitions() ?? [];
    if (tools.length === 0) return print("no tools: no extension registers one (awl extensions shows why)");
    // Three aligned columns; the description cut to what is left of the terminal's width (a line never wraps).
    const names = Math.max(...tools.map((t) => t.name.length));
    const extensions = Math.max(...tools.map((t) => t.extension.length));
    const room = Math.max(20, (process.stdout.columns || 100) - 1 - (2 + names + 2 + extensions + 2));
    print([`tools (${tools.length}):`, ...tools.map((t) => `  ${t.name.padEnd(names)}  ${t.extension.padEnd(extensions)}  ${oneLine(t.description ?? "", room)}`)].join("\n"));
  },
};

/** `/jobs`: the background commands of this run (bash with run_in_background), running or ended. */
export const jobsCommand: SlashCommand = {
  name: "jobs",
  summary: "list the background commands the model started (bash_stop stops one; all stop when awl exits)",
  run: async (_args, { runtime, print }) => {
    const jobs = runtime.jobs?.list() ?? [];
    if (jobs.length === 0) return print(runtime.jobs ? "no background jobs" : "background jobs need the std bash tool, which this run does not have");
    const { jobLines } = await import("../../jobs/job-table.js");
    print([`background jobs (${jobs.length}):`, ...jobLines(jobs).map((l) => `  ${l}`)].join("\n"));
  },
};

/** `/agents`: the sub-agents the task tool can start (read again, so an edited definition shows), then files not used. */
export const agentsCommand: SlashCommand = {
  name: "agents",
  summary: "list the sub-agents the task tool can start, and definition files not used",
  run: async (_args, { runtime, print }) => {
    const host = runtime.hosts.agents;
    if (!host) return print("sub-agents are off here (agents.max_depth is 0, or the tools are the embedder's own)");
    const { agentsText } = await import("../commands/agents.js");
    print(agentsText(await host.reload()).trimEnd());
  },
};
