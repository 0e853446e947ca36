/** `awl tools`: every tool the extensions offer, with its extension, file:line and description, then any problems. */
import { EXIT } from "../exit-codes.js";
import { compareCodeUnits, type RegisteredTool } from "../../tools/registry.js";
import { toolJSON as wireToolJSON } from "../../providers/openai/request.js";
import { configError, displayPath, openExtensions, parseCommandArgs, processIO, usageError, type CommandIO } from "./extension-host.js";

export const TOOLS_USAGE = `usage: awl tools [--json] [--extensions-dir DIR]... [--trust-project]

Lists every tool the extensions register: name, extension, file:line, kinds, what its
schema costs in every request (bytes of request JSON, estimated tokens), description; the
total; then every problem found (extensions that failed to load, refused registrations).
`;

/** The bytes a tool adds to each request (its entry in an OpenAI-compatible `tools` array; Anthropic's is about the same). */
export function requestBytes(tool: RegisteredTool): number {
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
  const parsed = parseCommandArgs(argv);
  if (!parsed.ok) return usageError(io, "tools", parsed.message);
  if (parsed.values.help) return io.stdout(TOOLS_USAGE), EXIT.ok;
  if (parsed.positionals.length > 0) return usageError(io, "tools", `unexpected argument "${parsed.positionals[0]}"`);
  const opened = await openExtensions(parsed.values, io);
  if (!opened.ok) return configError(io, opened.error);
  const tools = opened.value;
  try {
    // Every registered tool, offered or not: an author wants to see the ones their available() hides.
    const definitions = tools.extensions().flatMap((e) => e.tools).sort((a, b) => compareCodeUnits(a.name, b.name));
    const problems = tools.problems();
    if (parsed.values.json) {
      const offered = definitions.filter((t) => tools.unavailableReason(t) === undefined);
      const total = offered.reduce((sum, t) => sum + requestBytes(t), 0);
      const listing = { tools: definitions.map((t) => toolJSON(t, tools.unavailableReason(t))), total: { request_bytes: total, estimated_tokens: estimatedTokens(total) }, problems };
      io.stdout(`${JSON.stringify(listing, null, 2)}\n`);
    } else {
      io.stdout(definitions.length === 0 ? "No tools: no extension registers any.\n" : definitions.map((t) => toolText(t, tools.unavailableReason(t))).join(""));
      const offered = definitions.filter((t) => tools.unavailableReason(t) === undefined);
      if (offered.length > 0) {
        const total = offered.reduce((sum, t) => sum + requestBytes(t), 0);
        io.stdout(`\n${offered.length} ${offered.length === 1 ? "tool" : "tools"} offered to the model: ${cost(total)} in every request\n`);
      }
      if (problems.length > 0) io.stdout(`\n${problems.length} ${problems.length === 1 ? "problem" : "problems"}:\n${problems.map((p) => `  ${p}\n`).join("")}`);
    }
    return EXIT.ok;
  } finally {
    await tools.close();
  }
}

function toolText(tool: RegisteredTool, unavailable: string | undefined): string {
  const description = tool.description.trim() ? tool.description.trim().replace(/\n/g, "\n    ") : "(no description)";
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
    parallel: tool.parallel,
    kinds: tool.kinds,
    timeout_ms: tool.timeout_ms,
    request_bytes: requestBytes(tool),
    estimated_tokens: estimatedTokens(requestBytes(tool)),
    schema: JSON.parse(tool.schema) as unknown,
  };
}
