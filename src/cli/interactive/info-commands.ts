/** `/tools`: the tools the model is offered (`/extensions` shows where they come from). */
import { oneLine } from "../output/tool-block.js";
import type { SlashCommand } from "./slash-commands.js";

export const toolsCommand: SlashCommand = {
  name: "tools",
  summary: "list the tools the model is offered, with their extension",
  run: (_args, { runtime, print }) => {
    const tools = runtime.agent.tools?.definitions() ?? [];
    if (tools.length === 0) return print("no tools: no extension registers one (awl extensions shows why)");
    const width = Math.max(...tools.map((t) => t.name.length));
    print([`tools (${tools.length}):`, ...tools.map((t) => `  ${t.name.padEnd(width)}  ${t.extension}  ${oneLine(t.description ?? "", 80)}`)].join("\n"));
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
    print(agentsText(host.reload()).trimEnd());
  },
};
