/** `awl extensions`: every extension found, with its state (loaded, failed, shadowed), its tools and its errors. */
import { EXIT } from "../exit-codes.js";
import type { ExtensionReport, LuaToolSet } from "../../extensions/lua-tool-set.js";
import type { RegisteredTool } from "../../tools/registry.js";
import { toolJSON } from "./tools.js";
import { openMcpForListing } from "../mcp-tools.js";
import { mcpServerJSON, mcpServerText } from "./mcp-report.js";
import { configError, displayPath, openExtensions, parseCommandArgs, processIO, usageError, type CommandIO } from "./extension-host.js";

export const EXTENSIONS_USAGE = `usage: awl extensions [--json] [--extensions-dir DIR]... [--approve-mcp-json]

Lists every extension found in --extensions-dir folders, .awl/extensions/ and
~/.config/awl/extensions/ (in that order of precedence): its state (loaded,
failed or shadowed), its tools and its errors; then files and folders skipped;
then every MCP server configured (docs/mcp.md), started for the listing: its
state (starting, ready, failed with its last stderr lines, disabled,
unapproved), transport, tools and their schema cost per request.
`;

export async function run(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  const parsed = parseCommandArgs(argv, { "approve-mcp-json": { type: "boolean" } });
  if (!parsed.ok) return usageError(io, "extensions", parsed.message);
  if (parsed.values.help) return io.stdout(EXTENSIONS_USAGE), EXIT.ok;
  if (parsed.positionals.length > 0) return usageError(io, "extensions", `unexpected argument "${parsed.positionals[0]}"`);

  const opened = await openExtensions(parsed.values);
  if (!opened.ok) return configError(io, opened.error);
  const tools = opened.value;
  const mcp = await openMcpForListing({ approveProject: parsed.values["approve-mcp-json"] === true, reservedNames: () => tools.definitions().map((t) => t.name) });
  try {
    const reports = tools.extensions();
    const skipped = tools.discovery.problems.map((p) => p.message);
    const servers = mcp?.servers() ?? [];
    if (parsed.values.json) {
      const extensions = reports.map((r) => ({ ...r, tools: r.tools.map((t) => toolJSON(t, tools.unavailableReason(t))) }));
      io.stdout(`${JSON.stringify({ extensions, skipped, mcp_servers: servers.map(mcpServerJSON) }, null, 2)}\n`);
    } else {
      io.stdout(reports.length === 0 && servers.length === 0 ? "No extensions found.\n" : reports.map((r) => reportText(r, tools)).join(""));
      if (skipped.length > 0) io.stdout(`\nskipped:\n${skipped.map((s) => `  ${s}\n`).join("")}`);
      if (servers.length > 0) io.stdout(`${reports.length > 0 || skipped.length > 0 ? "\n" : ""}${servers.map(mcpServerText).join("")}`);
    }
    return EXIT.ok;
  } finally {
    await Promise.all([tools.close(), mcp?.close()]);
  }
}

export function reportText(report: ExtensionReport, tools: LuaToolSet): string {
  const lines = [`${report.name}  ${report.state}  ${displayPath(report.file)}  (${report.source})`];
  if (report.shadowed_by) lines.push(`    hidden by ${displayPath(report.shadowed_by)}`);
  const toolName = (t: RegisteredTool): string => {
    const why = tools.unavailableReason(t);
    return why === undefined ? t.name : `${t.name} (not offered: ${why})`;
  };
  if (report.tools.length > 0) lines.push(`    tools: ${report.tools.map(toolName).join(", ")}`);
  else if (report.state === "loaded") lines.push("    tools: none");
  for (const error of report.errors) lines.push(`    error: ${error.replace(/\n/g, "\n      ")}`);
  return `${lines.join("\n")}\n`;
}
