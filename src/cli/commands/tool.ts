/**
 * `awl tool call NAME ['JSON' | -]`: runs one tool handler directly through the Lua pool, no model involved.
 * The input is checked against the tool's schema as a model's would be. The result goes to stdout; an error
 * result, a crash or a timeout goes to stderr with a non-zero exit code.
 */
import { crashReport } from "../../agent/agent.js";
import { parseToolInput } from "../../model/blocks.js";
import type { ToolOutcome, ToolProgress } from "../../tools/types.js";
import { validateToolInput } from "../../tools/validate-input.js";
import { formatUserMessage } from "../error-text.js";
import { EXIT } from "../exit-codes.js";
import { readPipedStdin } from "../stdin.js";
import { configError, openExtensions, parseCommandArgs, parseTimeoutFlag, processIO, usageError, type CommandIO } from "./extension-host.js";

export const TOOL_USAGE = `usage: awl tool call NAME ['JSON' | -] [--timeout MS] [--json] [--extensions-dir DIR]... [--trust-project]

Runs the tool NAME once with the JSON input (default {}; - reads it from stdin),
exactly as awl would for a model, and prints the result.
  --timeout MS   stop the handler after MS milliseconds (default: the tool's own, or --tool-timeout)
  --json         print the whole outcome as JSON (status, content, is_error, summary, ...)
  --tool-timeout MS, --lua-workers N, --lua-memory-mb MB   Lua limits, as for awl (docs/cli.md)
Exit codes: 0 result, 1 error result / timeout / unknown tool, 2 bad usage or input, 3 crash, 130 cancelled.
`;

export async function run(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  const parsed = parseCommandArgs(argv, { timeout: { type: "string" } });
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
  try {
    const tool = tools.tool(name);
    const unavailable = tool && tools.unavailableReason(tool);
    if (tool && unavailable !== undefined) {
      io.stderr(formatUserMessage({ message: `the tool "${name}" is not available here: ${unavailable}`, hint: "its available(ctx) decides; awl does not offer it to the model" }));
      return EXIT.error;
    }
    if (!tool) {
      const known = tools.definitions().map((t) => t.name);
      const problems = tools.problems();
      io.stderr(
        formatUserMessage({
          message: `no tool named "${name}"${known.length > 0 ? ` (tools: ${known.join(", ")})` : " (no extension registers any tool)"}`,
          hint: "awl tools lists every tool and awl extensions every extension with its errors",
        }) + problems.map((p) => `  ${p}\n`).join(""),
      );
      return EXIT.error;
    }
    const check = await validateToolInput(name, tool.schema, value);
    if (!check.ok) return usageError(io, "tool call", check.message);

    const controller = new AbortController();
    const onSigint = (): void => controller.abort();
    process.once("SIGINT", onSigint);
    let outcome: ToolOutcome;
    try {
      outcome = await tools.run({ id: "awl-tool-call", name, input }, {
        signal: controller.signal,
        onProgress: (update) => io.stderr(progressText(update)),
        ...(timeout !== undefined && { timeoutMs: timeout }),
      });
    } finally {
      process.off("SIGINT", onSigint);
    }
    return report(io, name, outcome, parsed.values.json === true);
  } finally {
    await tools.close();
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

function progressText(update: ToolProgress): string {
  switch (update.kind) {
    case "progress":
      return `awl: progress ${Math.round(update.fraction * 100)}%${update.detail ? ` ${update.detail}` : ""}\n`;
    case "title":
      return `awl: title ${update.text}\n`;
    case "show":
      return "";
  }
}
