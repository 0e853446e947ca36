/** Slash commands that show what awl has loaded: `/tools` and `/extensions`. */
import type { ToolSet } from "../../tools/types.js";
import type { ExtensionReport } from "../../extensions/lua-tool-set.js";
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

export const extensionsCommand: SlashCommand = {
  name: "extensions",
  summary: "list the extensions: loaded, failed or shadowed, their tools and errors",
  run: (_args, { runtime, print }) => {
    const reports = extensionReports(runtime.agent.tools);
    if (!reports) return print("these tools do not come from Lua extensions");
    if (reports.length === 0) return print("no extensions found (.awl/extensions/ here, ~/.config/awl/extensions/)");
    const lines = [`extensions (${reports.length}):`];
    for (const r of reports) {
      const tools = r.tools.map((t) => t.name).join(", ");
      lines.push(`  ${r.name}  ${r.state}  ${r.source}${tools ? `  tools: ${tools}` : ""}${r.shadowed_by ? `  (shadowed by ${r.shadowed_by})` : ""}`);
      for (const error of r.errors) lines.push(`    ${oneLine(error, 200)}`);
    }
    print(lines.join("\n"));
  },
};

/** The Lua tool set's reports, when the tools are (or include) one. */
function extensionReports(tools: ToolSet | undefined): ExtensionReport[] | undefined {
  const withReports = tools as (ToolSet & { extensions?: () => ExtensionReport[] }) | undefined;
  return typeof withReports?.extensions === "function" ? withReports.extensions() : undefined;
}
