/**
 * Background commands at the tool seam (docs/std-tools.md, "Background commands"): around the tools, under the
 * permission layer. A `bash` call of the std tool with `run_in_background: true` starts a job here (job-table.ts)
 * and returns at once with its id; a Lua call cannot own a program that outlives it, so awl's host serves it. Two
 * tools come with `bash` once a job was started (until then they would only make every request longer):
 * `bash_output` (the new output of a job, optionally waiting for a pattern or a time) and `bash_stop`. Starting is
 * decided as any `bash` call (an exec); reading and stopping are `read` tools.
 */
import { parseToolInput } from "../model/blocks.js";
import type { ToolCall, ToolDefinition, ToolOutcome, ToolProgress, ToolSet } from "../tools/types.js";
import { savedText, type JobTable } from "./job-table.js";
import { ToolSetLayer } from "../tools/tool-set-layer.js";

/** The longest `bash_output` waits, in seconds. */
export const MAX_WAIT_SECONDS = 600;

const OUTPUT_TOOL: ToolDefinition = {
  name: "bash_output",
  description: `The new output of a background job (bash with run_in_background) since the last read, and whether it still runs. wait_for: a regex to wait for in the new output (e.g. "listening on"); timeout: seconds to wait (at most ${MAX_WAIT_SECONDS}; default 0, with wait_for 30).`,
  schema: JSON.stringify({
    type: "object",
    properties: { id: { type: "string", description: "The job's id, e.g. job1" }, wait_for: { type: "string" }, timeout: { type: "integer", minimum: 0, maximum: MAX_WAIT_SECONDS } },
    required: ["id"],
  }),
  extension: "awl.jobs",
  file: "built-in",
  parallel: true,
  timeout_ms: 0,
  kinds: ["read"],
};

const STOP_TOOL: ToolDefinition = {
  name: "bash_stop",
  description: "Stop a background job (bash with run_in_background) and everything it started.",
  schema: JSON.stringify({ type: "object", properties: { id: { type: "string", description: "The job's id, e.g. job1" } }, required: ["id"] }),
  extension: "awl.jobs",
  file: "built-in",
  // After the reads before it in the same reply: they see the job's output first.
  parallel: false,
  timeout_ms: 0,
  kinds: ["read"],
};

/** The tools of `inner`, plus `bash_output` and `bash_stop` once a job was started with the std `bash`. */
export class JobsToolSet extends ToolSetLayer {
  private offered: { from: readonly ToolDefinition[]; started: boolean; tools: readonly ToolDefinition[] } | undefined;

  constructor(
    inner: ToolSet,
    readonly jobs: JobTable,
    /** The folder commands run in. */
    private readonly cwd: string,
  ) {
    super(inner);
  }

  definitions(): readonly ToolDefinition[] {
    const from = this.inner.definitions();
    const started = this.jobs.list().length > 0;
    if (this.offered?.from === from && this.offered.started === started) return this.offered.tools;
    const tools = started && stdBash(from) ? [...from, OUTPUT_TOOL, STOP_TOOL].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) : from;
    this.offered = { from, started, tools };
    return tools;
  }

  async execute(call: ToolCall, signal: AbortSignal, onProgress?: (update: ToolProgress) => void): Promise<ToolOutcome> {
    const input = parseToolInput(call.input) as Record<string, unknown> | undefined;
    if (call.name === "bash" && input?.run_in_background === true && stdBash(this.inner.definitions())) return this.start(input);
    if (call.name === OUTPUT_TOOL.name) return this.output(input, signal);
    if (call.name === STOP_TOOL.name) return this.stop(input);
    return this.inner.execute(call, signal, onProgress);
  }

  private start(input: Record<string, unknown>): ToolOutcome {
    const command = typeof input.command === "string" ? input.command : "";
    if (command.trim() === "") return failure(`bash needs a "command"`);
    const job = this.jobs.start(command, this.cwd);
    if ("error" in job) return failure(job.error);
    if (job.ended !== undefined) return failure(`the background job ${job.id} could not start: ${job.ended}`);
    return result(`Started ${job.id} in the background (pid ${job.pid}). Read its output with bash_output {"id": "${job.id}"} (wait_for a pattern such as a "listening" line), stop it with bash_stop; it stops when awl exits.`, `${job.id} started`);
  }

  private async output(input: Record<string, unknown> | undefined, signal: AbortSignal): Promise<ToolOutcome> {
    const id = typeof input?.id === "string" ? input.id : "";
    let waitFor: RegExp | undefined;
    if (typeof input?.wait_for === "string" && input.wait_for !== "") {
      try {
        waitFor = new RegExp(input.wait_for, "m");
      } catch (e) {
        return failure(`wait_for is not a regular expression: ${(e as Error).message}`);
      }
    }
    const seconds = typeof input?.timeout === "number" ? Math.min(input.timeout, MAX_WAIT_SECONDS) : waitFor ? 30 : 0;
    const read = await this.jobs.read(id, { ...(waitFor && { waitFor }), timeoutMs: seconds * 1000, signal });
    if ("error" in read) return failure(read.error);
    const { job } = read;
    const state = job.ended === undefined ? `${job.id} is running` : `${job.id} has ended (${job.ended})`;
    const skipped = read.skipped > 0 ? `[… ${read.skipped} bytes of earlier output skipped; ${savedText(job)}]\n` : "";
    const waited = waitFor && read.matched === false ? `\n[${input?.wait_for} did not appear ${job.ended === undefined ? `within ${seconds} s` : "before the job ended"}]` : "";
    const body = read.text === "" && !skipped ? "(no new output)" : `${skipped}${read.text}`;
    return result(`${body}${body.endsWith("\n") ? "" : "\n"}[${state}]${waited}`, state);
  }

  private async stop(input: Record<string, unknown> | undefined): Promise<ToolOutcome> {
    const stopped = await this.jobs.stop(typeof input?.id === "string" ? input.id : "");
    if ("error" in stopped) return failure(stopped.error);
    const { job } = stopped;
    return stopped.already
      ? result(`${job.id} had already ended (${job.ended}); nothing to stop.`, `${job.id} had ended`)
      : result(`Stopped ${job.id} (${job.ended}); ${savedText(job)}.`, `${job.id} stopped`);
  }
}

/** Whether `tools` hold awl's own `bash` (a user's replacement does what it likes with the input). */
function stdBash(tools: readonly ToolDefinition[]): boolean {
  return tools.some((t) => t.name === "bash" && t.extension === "std.bash");
}

function result(content: string, summary: string): ToolOutcome {
  return { status: "result", content, is_error: false, summary };
}

function failure(content: string): ToolOutcome {
  return { status: "result", content, is_error: true };
}
