/**
 * `awl extensions`: every extension found, with its state (loaded, failed, shadowed, disabled), its metadata, its
 * tools and its errors, then the MCP servers; `awl extensions enable|disable NAME [--project]` switches one on or
 * off; `awl extensions new NAME [--user] [--dir]` writes a skeleton (extension-new.ts).
 */
import { UNPINNED } from "../../extensions/enabled-extensions.js";
import { EXIT } from "../exit-codes.js";
import type { ExtensionReport, LuaToolSet } from "../../extensions/lua-tool-set.js";
import type { RegisteredTool } from "../../tools/registry.js";
import { toolJSON } from "./tools.js";
import { openMcpForListing } from "../../runtime/mcp-tools.js";
import { mcpServerJSON, mcpServerText } from "./mcp-report.js";
import { configError, displayPath, openExtensions, parseCommandArgs, processIO, projectTrust, usageError, type CommandIO } from "./extension-host.js";

export const EXTENSIONS_USAGE = `usage: awl extensions [--json] [--extensions-dir DIR]... [--approve-mcp-json] [--trust-project]
       awl extensions disable NAME [--project]
       awl extensions enable NAME [--project]
       awl extensions new NAME [--user] [--dir]

Lists every extension found in --extensions-dir folders, .awl/extensions/ and
~/.config/awl/extensions/ (in that order of precedence): its state (loaded,
failed or shadowed), its tools and its errors; then files and folders skipped;
then every MCP server configured (docs/mcp.md), started for the listing: its
state (starting, ready, failed with its last stderr lines, disabled,
unapproved), transport, tools and their schema cost per request. A disabled
extension is listed with its metadata (read without running it).

disable/enable switch an extension (a capability folder as a unit, or a bundled
one such as std.ls) off or on: in your config file, or with --project in
.awl/config.json (the project's setting wins). A running awl follows at its
next model call.

new writes a working, commented skeleton in .awl/extensions/ (--user: in
~/.config/awl/extensions/), a single file or with --dir a capability folder
with metadata, and a .luarc.json for lua-language-server.
`;

export async function run(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  const verb = argv[0];
  if (verb === "enable" || verb === "disable") return switchExtension(verb, argv.slice(1), io);
  if (verb === "new") return newExtension(argv.slice(1), io);
  const parsed = parseCommandArgs(argv, { "approve-mcp-json": { type: "boolean" } });
  if (!parsed.ok) return usageError(io, "extensions", parsed.message);
  if (parsed.values.help) return io.stdout(EXTENSIONS_USAGE), EXIT.ok;
  if (parsed.positionals.length > 0) return usageError(io, "extensions", `unexpected argument "${parsed.positionals[0]}"`);

  let untrusted: readonly string[] = [];
  const opened = await openExtensions(parsed.values, io, (parts) => (untrusted = parts));
  if (!opened.ok) return configError(io, opened.error);
  const tools = opened.value;
  const mcp = await openMcpForListing({ approveProject: parsed.values["approve-mcp-json"] === true, trustProject: parsed.values["trust-project"] === true, reservedNames: () => tools.definitions().map((t) => t.name) });
  try {
    const reports = tools.extensions();
    const skipped = tools.discovery.problems.map((p) => p.message);
    const servers = mcp?.servers() ?? [];
    if (parsed.values.json) {
      const extensions = reports.map((r) => ({ ...r, tools: r.tools.map((t) => toolJSON(t, tools.unavailableReason(t))) }));
      const project = { trusted: untrusted.length === 0, not_loaded: untrusted };
      io.stdout(`${JSON.stringify({ extensions, skipped, project, mcp_servers: servers.map(mcpServerJSON) }, null, 2)}\n`);
    } else {
      if (untrusted.length > 0) io.stdout(`${untrustedListing(untrusted)}\n`);
      io.stdout(reports.length === 0 && servers.length === 0 ? "No extensions found.\n" : reports.map((r) => reportText(r, tools)).join(""));
      if (skipped.length > 0) io.stdout(`\nskipped:\n${skipped.map((s) => `  ${s}\n`).join("")}`);
      if (servers.length > 0) io.stdout(`${reports.length > 0 || skipped.length > 0 ? "\n" : ""}${servers.map(mcpServerText).join("")}`);
    }
    return EXIT.ok;
  } finally {
    await Promise.all([tools.close(), mcp?.close()]);
  }
}

/** The listing's first lines in an untrusted folder: what did not load, and the two ways to trust it. */
function untrustedListing(parts: readonly string[]): string {
  return `not loaded: this folder is not trusted, so its ${parts.join(", ")} did not load.
    awl permissions trust   trusts ${process.cwd()} (saved in your config)
    --trust-project         trusts it for one run
`;
}

export function reportText(report: ExtensionReport, tools: LuaToolSet): string {
  const lines = [`${report.name}  ${report.state}  ${displayPath(report.file)}  (${report.source})`];
  const meta = report.metadata;
  if (meta?.label || meta?.description) lines.push(`    ${[meta.label, meta.description].filter(Boolean).join(": ")}`);
  const facts = [meta?.version && `version ${meta.version}`, meta?.license && `license ${meta.license}`, meta?.homepage].filter(Boolean);
  if (facts.length > 0) lines.push(`    ${facts.join(", ")}`);
  if (report.shadowed_by) lines.push(`    hidden by ${displayPath(report.shadowed_by)}`);
  if (report.disabled_by === UNPINNED) lines.push(`    not loaded: ${UNPINNED} (run awl here to review the change, or pass --trust-project)`);
  else if (report.disabled_by) lines.push(`    switched off in ${displayPath(report.disabled_by)} (awl extensions enable ${report.name})`);
  const toolName = (t: RegisteredTool): string => {
    const why = tools.unavailableReason(t);
    return why === undefined ? t.name : `${t.name} (not offered: ${why})`;
  };
  if (report.tools.length > 0) lines.push(`    tools: ${report.tools.map(toolName).join(", ")}`);
  else if (report.state === "loaded") lines.push("    tools: none");
  for (const error of report.errors) lines.push(`    error: ${error.replace(/\n/g, "\n      ")}`);
  return `${lines.join("\n")}\n`;
}

/** `awl extensions enable|disable NAME [--project]`. */
async function switchExtension(verb: "enable" | "disable", argv: readonly string[], io: CommandIO): Promise<number> {
  const parsed = parseCommandArgs(argv, { project: { type: "boolean" } });
  if (!parsed.ok) return usageError(io, "extensions", parsed.message);
  if (parsed.positionals.length !== 1) return usageError(io, "extensions", `awl extensions ${verb} takes one extension name, e.g. awl extensions ${verb} std.ls`);
  const name = parsed.positionals[0]!;
  const { enablementFiles, readEnablement, setEnabled } = await import("../../extensions/enablement.js");
  const files = enablementFiles(process.cwd(), process.env);
  const scope = parsed.values.project ? "project" : "user";
  const file = files[scope];
  const written = await setEnabled(file, scope, name, verb === "enable");
  if (!written.ok) return configError(io, written.error);
  const still = readEnablement(process.cwd(), process.env).disabled.get(name);
  const state = verb === "enable" ? (still ? `still disabled by ${displayPath(still)}` : "enabled") : "disabled";
  io.stdout(`${name}: ${state} (${displayPath(file)})\n`);
  return EXIT.ok;
}

/** `awl extensions new NAME [--user] [--dir]`. */
async function newExtension(argv: readonly string[], io: CommandIO): Promise<number> {
  const parsed = parseCommandArgs(argv, { user: { type: "boolean" }, dir: { type: "boolean" } });
  if (!parsed.ok) return usageError(io, "extensions", parsed.message);
  if (parsed.positionals.length !== 1) return usageError(io, "extensions", "awl extensions new takes one name, e.g. awl extensions new weather");
  const { writeNewExtension } = await import("./extension-new.js");
  const made = writeNewExtension(parsed.positionals[0]!, { user: parsed.values.user === true, dir: parsed.values.dir === true, cwd: process.cwd(), env: process.env });
  if (typeof made === "string") return configError(io, { message: made, hint: "nothing was written" });
  // A project extension loads only in a trusted folder (docs/permissions.md); the hint says so when it is not.
  const trust = parsed.values.user === true ? undefined : await projectTrust(false);
  const trusted = trust === undefined || !trust.ok || trust.value.trusted;
  const flag = trusted ? "" : " --trust-project";
  const note = trusted ? "" : "this folder is not trusted yet: awl permissions trust loads its extensions in every run\n";
  io.stdout(`${made.written.map((f) => `wrote ${displayPath(f)}\n`).join("")}try it: awl tool call ${made.tool} '${made.input}'${flag}\n${note}`);
  return EXIT.ok;
}
