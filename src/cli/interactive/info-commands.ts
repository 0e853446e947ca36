/** `/tools`: the tools the model is offered (`/extensions` shows where they come from). */
import { oneLine } from "../output/tool-block.js";
import type { SlashCommand } from "./slash-commands.js";

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
