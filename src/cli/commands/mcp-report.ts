/** How `awl extensions`, `awl mcp list` and `/extensions` show MCP servers: state, transport, tools, schema cost. */
import type { McpServerReport } from "../../extensions/mcp/mcp-tool-set.js";
import { displayPath } from "./extension-host.js";

export function mcpServerText(report: McpServerReport): string {
  const lines = [`mcp:${report.name}  ${report.state}  ${report.transport}  ${report.target}  (${report.source}: ${displayPath(report.file)})`];
  if (report.state === "ready") {
    const count = `${report.tools.length} ${report.tools.length === 1 ? "tool" : "tools"}`;
    lines.push(`    ${count}, ${schemaCostText(report)} per request${report.tools.length > 0 ? `: ${report.tools.join(", ")}` : ""}`);
  }
  if (report.error) lines.push(`    ${report.state === "ready" ? "note" : "error"}: ${report.error.replace(/\n/g, "\n      ")}`);
  for (const refused of report.refused) lines.push(`    refused: ${refused}`);
  return `${lines.join("\n")}\n`;
}

/** "6.1 KB ≈ 1.5k tokens" */
export function schemaCostText(report: Pick<McpServerReport, "schema_bytes" | "schema_tokens">): string {
  const bytes = report.schema_bytes >= 1024 ? `${(report.schema_bytes / 1024).toFixed(1)} KB` : `${report.schema_bytes} B`;
  const tokens = report.schema_tokens >= 1000 ? `${(report.schema_tokens / 1000).toFixed(1)}k` : String(report.schema_tokens);
  return `schemas ${bytes} ≈ ${tokens} tokens`;
}

/** The JSON form (`--json`): the report as it is, minus the pid. */
export function mcpServerJSON(report: McpServerReport): Record<string, unknown> {
  const { pid: _pid, ...rest } = report;
  return rest;
}
