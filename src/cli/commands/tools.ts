/**
 * `awl tools`: every tool the extensions offer, with its extension, file:line and description, then the tools of
 * the MCP servers (started for the listing), then any problems.
 */
import { systemPromptWith } from "../../agent/agent.js";
import { loadConfig } from "../../config/layers.js";
import { systemPromptFor } from "../../prompt/for-cwd.js";
import { EXIT } from "../exit-codes.js";
import { systemPromptChoice } from "../../runtime/system-prompt-option.js";
import type { McpToolDefinition, McpToolSet } from "../../extensions/mcp/mcp-tool-set.js";
import { compareCodeUnits, type RegisteredTool } from "../../tools/registry.js";
import type { ToolSpec } from "../../providers/types.js";
import type { ToolDefinition } from "../../tools/types.js";
import { toolJSON as wireToolJSON } from "../../providers/openai/request.js";
import { openMcpForListing } from "../../runtime/mcp-tools.js";
import { configError, displayPath, openExtensions, parseCommandArgs, processIO, usageError, type CommandIO } from "./extension-host.js";

export const TOOLS_USAGE = `usage: awl tools [--json] [--extensions-dir DIR]... [--approve-mcp-json] [--trust-project]

Lists every tool the extensions register: name, extension, file:line, kinds, what its
schema costs in every request (bytes of request JSON, estimated tokens), description;
then the tools of every MCP server configured (docs/mcp.md), started for the listing
(a project's .mcp.json servers only once approved, or with --approve-mcp-json); the
total; what the system prompt adds to every request (awl's default or the config file's,
with the instruction files found here); then every problem found (extensions that failed to load, refused registrations,
MCP servers that failed, wait for approval or were still starting).
`;

/** The bytes a tool adds to each request (its entry in an OpenAI-compatible `tools` array; Anthropic's is about the same). */
export function requestBytes(tool: ToolSpec): number {
  return Buffer.byteLength(wireToolJSON(tool)) + 1; // and the comma between entries
}

/** A rough count: about 4 bytes of English and JSON per token. */
export function estimatedTokens(bytes: number): number {
  return Math.round(bytes / 4);
}

function cost(bytes: number): string {
  return `${bytes} B ≈ ${estimatedTokens(bytes)} tokens`;
}

export async function run(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  const parsed = parseCommandArgs(argv, { "approve-mcp-json": { type: "boolean" } });
  if (!parsed.ok) return usageError(io, "tools", parsed.message);
  if (parsed.values.help) return io.stdout(TOOLS_USAGE), EXIT.ok;
  if (parsed.positionals.length > 0) return usageError(io, "tools", `unexpected argument "${parsed.positionals[0]}"`);
  const opened = await openExtensions(parsed.values, io);
  if (!opened.ok) return configError(io, opened.error);
  const tools = opened.value;
  const mcp = await openMcpForListing({ approveProject: parsed.values["approve-mcp-json"] === true, trustProject: parsed.values["trust-project"] === true, reservedNames: () => tools.definitions().map((t) => t.name) });
  try {
    // Every registered tool, offered or not: an author wants to see the ones their available() hides.
    const definitions = tools.extensions().flatMap((e) => e.tools).sort((a, b) => compareCodeUnits(a.name, b.name));
    const mcpTools = mcp?.definitions() ?? [];
    const problems = [...tools.problems(), ...(mcp ? mcpProblems(mcp) : [])];
    const offered = definitions.filter((t) => tools.unavailableReason(t) === undefined);
    const total = [...offered, ...mcpTools].reduce((sum, t) => sum + requestBytes(t), 0);
    const count = offered.length + mcpTools.length;
    const prompt = await promptCost([...offered, ...mcpTools].map((t) => t.name).sort(compareCodeUnits), mcp?.instructions() ?? [], parsed.values["trust-project"] === true);
    if (parsed.values.json) {
      const listing = {
        tools: [...definitions.map((t) => toolJSON(t, tools.unavailableReason(t))), ...mcpTools.map(mcpToolJSON)],
        total: { request_bytes: total, estimated_tokens: estimatedTokens(total) },
        ...(prompt.ok && { system_prompt: { request_bytes: prompt.bytes, estimated_tokens: estimatedTokens(prompt.bytes), instruction_files: prompt.files } }),
        problems: prompt.ok ? problems : [...problems, prompt.error],
      };
      io.stdout(`${JSON.stringify(listing, null, 2)}\n`);
    } else {
      if (definitions.length === 0 && mcpTools.length === 0) io.stdout("No tools: no extension or MCP server offers any.\n");
      io.stdout(definitions.map((t) => toolText(t, tools.unavailableReason(t))).join(""));
      if (mcpTools.length > 0) io.stdout(`${definitions.length > 0 ? "\n" : ""}${mcpTools.map(mcpToolText).join("")}`);
      if (count > 0) io.stdout(`\n${count} ${count === 1 ? "tool" : "tools"} offered to the model: ${cost(total)} in every request\n`);
      if (prompt.ok && count > 0) {
        const files = prompt.files.length === 0 ? "no instruction file" : `${prompt.files.length} instruction ${prompt.files.length === 1 ? "file" : "files"}`;
        io.stdout(`the system prompt (${prompt.how}, ${files}): ${cost(prompt.bytes)}; with the tools ${cost(prompt.bytes + total)}\n`);
      } else if (!prompt.ok) problems.push(prompt.error);
      if (problems.length > 0) io.stdout(`\n${problems.length} ${problems.length === 1 ? "problem" : "problems"}:\n${problems.map((p) => `  ${p}\n`).join("")}`);
    }
    return EXIT.ok;
  } finally {
    await Promise.all([tools.close(), mcp?.close()]);
  }
}

/**
 * What the system prompt adds to every request, as `awl -p` here would send it with these tools (the config file's
 * system_prompt and append_system_prompt, the instruction files, the MCP servers' instructions): its entry in an
 * OpenAI-compatible `messages` array.
 */
async function promptCost(
  toolNames: readonly string[],
  added: readonly string[],
  trustProject: boolean,
): Promise<{ ok: true; bytes: number; how: string; files: string[] } | { ok: false; error: string }> {
  const cwd = process.cwd();
  const config = await loadConfig({ env: process.env, cwd, ...(trustProject && { trustProject }) });
  const choice = systemPromptChoice({}, config.ok ? config.value : undefined, cwd);
  if (!choice.ok) return { ok: false, error: choice.error.message };
  const own = systemPromptFor({ cwd, env: process.env, tools: toolNames, ...choice.value });
  const text = systemPromptWith(own.text, added) ?? "";
  const how = choice.value.replace !== undefined ? "system_prompt of the config file" : "awl's default";
  return { ok: true, bytes: Buffer.byteLength(JSON.stringify({ role: "system", content: text })) + 1, how, files: own.instructions.map((f) => f.path) };
}

/** The servers' problems, and those still starting when the listing gave up waiting (their tools are missing). */
export function mcpProblems(mcp: McpToolSet): string[] {
  const starting = mcp.servers().filter((s) => s.state === "starting").map((s) => `MCP server "${s.name}" was still starting when awl stopped waiting: its tools are not listed`);
  return [...mcp.problems(), ...starting];
}

function mcpToolText(tool: McpToolDefinition): string {
  const description = descriptionText(tool);
  return `${tool.name}  ·  MCP server "${tool.server}" (its tool "${tool.tool}")  ·  ${displayPath(tool.file)}  ·  ${tool.kinds.join(", ")}  ·  ${cost(requestBytes(tool))}\n    ${description}\n`;
}

/** An MCP tool in `--json`: as the Lua ones, with its server and the server's name for it instead of file:line. */
function mcpToolJSON(tool: McpToolDefinition): Record<string, unknown> {
  return {
    offered: true,
    name: tool.name,
    description: tool.description,
    extension: tool.extension,
    mcp_server: tool.server,
    mcp_tool: tool.tool,
    file: tool.file,
    ...runtimeFields(tool),
  };
}

/** What `--json` says of any tool after where it comes from: how it runs, what it costs, its schema as sent. */
function runtimeFields(tool: ToolDefinition): Record<string, unknown> {
  return {
    parallel: tool.parallel,
    kinds: tool.kinds,
    timeout_ms: tool.timeout_ms,
    request_bytes: requestBytes(tool),
    estimated_tokens: estimatedTokens(requestBytes(tool)),
    schema: JSON.parse(tool.schema) as unknown,
  };
}

/** A tool's description indented under its line, or a note that it has none. */
function descriptionText(tool: ToolSpec): string {
  return tool.description.trim() ? tool.description.trim().replace(/\n/g, "\n    ") : "(no description)";
}

function toolText(tool: RegisteredTool, unavailable: string | undefined): string {
  const description = descriptionText(tool);
  const hidden = unavailable === undefined ? "" : `    not offered to the model: ${unavailable}\n`;
  return `${tool.name}  ·  extension "${tool.extension}"  ·  ${displayPath(tool.file)}:${tool.line}  ·  ${tool.kinds.join(", ")}  ·  ${cost(requestBytes(tool))}\n    ${description}\n${hidden}`;
}

/** The machine-readable form: the schema as a JSON value, exactly as it is sent. */
export function toolJSON(tool: RegisteredTool, unavailable: string | undefined): Record<string, unknown> {
  return {
    offered: unavailable === undefined,
    ...(unavailable !== undefined && { not_offered_because: unavailable }),
    name: tool.name,
    description: tool.description,
    extension: tool.extension,
    file: tool.file,
    line: tool.line,
    ...runtimeFields(tool),
  };
}
