/**
 * `awl tool call NAME ['JSON' | -]`: runs one tool directly, no model involved: a Lua tool through the Lua pool, or
 * else an MCP server's tool (the servers are started for it).
 * The input is checked against the tool's schema as a model's would be. The result goes to stdout; an error
 * result, a crash or a timeout goes to stderr with a non-zero exit code.
 */
import { crashReport } from "../../agent/agent.js";
import { parseToolInput } from "../../model/blocks.js";
import type { ToolOutcome, ToolProgress } from "../../tools/types.js";
import { validateToolInput } from "../../tools/validate-input.js";
import { formatUserMessage } from "../../ui/error-text.js";
import { EXIT } from "../exit-codes.js";
import { readPipedStdin } from "../stdin.js";
import type { McpToolDefinition, McpToolSet } from "../../extensions/mcp/mcp-tool-set.js";
import { compareCodeUnits } from "../../tools/registry.js";
import { openMcpForListing } from "../../runtime/mcp-tools.js";
import { mcpProblems } from "./tools.js";
import { configError, openExtensions, parseCommandArgs, parseTimeoutFlag, processIO, usageError, type CommandIO } from "./extension-host.js";

export const TOOL_USAGE = `usage: awl tool call NAME ['JSON' | -] [--timeout MS] [--json] [--extensions-dir DIR]... [--approve-mcp-json] [--trust-project] [--sandbox]

Runs the tool NAME once with the JSON input (default {}; - reads it from stdin),
exactly as awl would for a model, and prints the result. NAME is an extension's
tool or an MCP server's (<server>_<tool>, as awl tools lists it; a project's
.mcp.json servers only once approved, or with --approve-mcp-json).
  --timeout MS   stop the handler after MS milliseconds (default: the tool's own, or --tool-timeout)
  --json         print the whole outcome as JSON (status, content, is_error, summary, ...)
  --tool-timeout MS, --lua-workers N, --lua-memory-mb MB   Lua limits, as for awl (docs/cli.md)
Exit codes: 0 result, 1 error result / timeout / unknown tool, 2 bad usage or input, 3 crash, 130 cancelled.
`;

export async function run(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  const parsed = parseCommandArgs(argv, { timeout: { type: "string" }, "approve-mcp-json": { type: "boolean" } });
  if (!parsed.ok) return usageError(io, "tool call", parsed.message);
  if (parsed.values.help) return io.stdout(TOOL_USAGE), EXIT.ok;
  const [verb, name, inputArg, ...rest] = parsed.positionals;
  if (verb !== "call") return usageError(io, "tool call", verb === undefined ? "missing subcommand: awl tool call NAME 'JSON'" : `unknown subcommand "${verb}"; did you mean awl tool call?`);
  if (!name) return usageError(io, "tool call", "missing the tool name: awl tool call NAME 'JSON'");
  if (rest.length > 0) return usageError(io, "tool call", `unexpected argument "${rest[0]}"; quote the JSON input as one argument`);
  const timeout = parseTimeoutFlag(parsed.values.timeout, "--timeout");
  if (typeof timeout === "string") return usageError(io, "tool call", timeout);

  const input = inputArg === "-" ? await readPipedStdin() : (inputArg ?? "{}");
  const value = parseToolInput(input);
  if (value === undefined) return usageError(io, "tool call", `the input is not valid JSON: ${input.length > 200 ? `${input.slice(0, 200)}…` : input}`);

  const opened = await openExtensions(parsed.values, io);
  if (!opened.ok) return configError(io, opened.error);
  const tools = opened.value;
  let mcp: McpToolSet | undefined;
  try {
    const tool = tools.tool(name);
    const unavailable = tool && tools.unavailableReason(tool);
    if (tool && unavailable !== undefined) {
      io.stderr(formatUserMessage({ message: `the tool "${name}" is not available here: ${unavailable}`, hint: "its available(ctx) decides; awl does not offer it to the model" }));
      return EXIT.error;
    }
    if (!tool) {
      mcp = await openMcpForListing({ approveProject: parsed.values["approve-mcp-json"] === true, trustProject: parsed.values["trust-project"] === true, reservedNames: () => tools.definitions().map((t) => t.name) });
      const mcpTool = mcp?.definitions().find((t) => t.name === name);
      if (mcp && mcpTool) return await callMcpTool(io, mcp, mcpTool, input, value, timeout, parsed.values.json === true);
      const known = [...tools.definitions(), ...(mcp?.definitions() ?? [])].map((t) => t.name).sort(compareCodeUnits);
      const problems = [...tools.problems(), ...(mcp ? mcpProblems(mcp) : [])];
      io.stderr(
        formatUserMessage({
          message: `no tool named "${name}"${known.length > 0 ? ` (tools: ${known.join(", ")})` : " (no extension or MCP server offers any tool)"}`,
          hint: "awl tools lists every tool and awl extensions every extension with its errors",
        }) + problems.map((p) => `  ${p}\n`).join(""),
      );
      return EXIT.error;
    }
    const check = await validateToolInput(name, tool.schema, value);
    if (!check.ok) return usageError(io, "tool call", check.message);

    const outcome = await cancellable((signal) =>
      tools.run({ id: "awl-tool-call", name, input }, {
        signal,
        onProgress: (update) => io.stderr(progressText(update)),
        ...(timeout !== undefined && { timeoutMs: timeout }),
      }),
    );
    return report(io, name, outcome, parsed.values.json === true);
  } finally {
    await Promise.all([tools.close(), mcp?.close()]);
  }
}

/** An MCP server's tool: the input checked against its schema, then one call; `--timeout` replaces the call's own. */
async function callMcpTool(io: CommandIO, mcp: McpToolSet, tool: McpToolDefinition, input: string, value: unknown, timeout: number | undefined, json: boolean): Promise<number> {
  const check = await validateToolInput(tool.name, tool.schema, value);
  if (!check.ok) return usageError(io, "tool call", check.message);
  let timedOut = false;
  const outcome = await cancellable(async (signal) => {
    const controller = new AbortController();
    const abort = (): void => controller.abort();
    signal.addEventListener("abort", abort);
    const timer = timeout === undefined ? undefined : setTimeout(() => ((timedOut = true), controller.abort()), timeout);
    try {
      const call = { id: "awl-tool-call", name: tool.name, input };
      return await mcp.execute(call, controller.signal, (update) => io.stderr(progressText(update)));
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", abort);
    }
  });
  return report(io, tool.name, timedOut && outcome.status !== "result" ? { status: "timeout", timeout_ms: timeout! } : outcome, json);
}

/** Runs `work` with a signal that Ctrl-C (SIGINT) aborts. */
async function cancellable(work: (signal: AbortSignal) => Promise<ToolOutcome>): Promise<ToolOutcome> {
  const controller = new AbortController();
  const onSigint = (): void => controller.abort();
  process.once("SIGINT", onSigint);
  try {
    return await work(controller.signal);
  } finally {
    process.off("SIGINT", onSigint);
  }
}

function report(io: CommandIO, name: string, outcome: ToolOutcome, json: boolean): number {
  if (json) io.stdout(`${JSON.stringify(outcome, null, 2)}\n`);
  switch (outcome.status) {
    case "result":
      if (!json) {
        if (outcome.is_error) io.stderr(formatUserMessage({ message: `tool "${name}" returned an error: ${outcome.content}` }));
        else io.stdout(outcome.content.endsWith("\n") || outcome.content === "" ? outcome.content : `${outcome.content}\n`);
        if (outcome.images?.length) io.stderr(`awl: (the result also holds ${outcome.images.length} image(s); --json shows them)\n`);
      }
      return outcome.is_error ? EXIT.error : EXIT.ok;
    case "crash":
      if (!json) io.stderr(`awl: ${crashReport(outcome)}\n`);
      return EXIT.toolCrash;
    case "timeout":
      if (!json) io.stderr(formatUserMessage({ message: `tool "${name}" timed out after ${outcome.timeout_ms} ms and was stopped`, hint: "raise it with --timeout MS" }));
      return EXIT.error;
    case "cancelled":
      if (!json) io.stderr("awl: cancelled\n");
      return EXIT.cancelled;
  }
}

/** Progress is worth a line on stderr; a block's title and state are for the UI's block, noise here. */
function progressText(update: ToolProgress): string {
  switch (update.kind) {
    case "progress":
      return `awl: progress ${Math.round(update.fraction * 100)}%${update.detail ? ` ${update.detail}` : ""}\n`;
    case "title":
    case "show":
      return "";
  }
}
