/** `awl -p`: one turn, rendered as text, json or stream-json, then an exit code (docs/cli.md). */
import type { TurnReceiver } from "../agent/agent.js";
import { EXIT, exitCodeFor } from "./exit-codes.js";
import type { CliOptions, OutputFormat } from "../runtime/flags.js";
import { StreamJsonWriter, failureJSON, jsonLine, resultJSON } from "./output/json-output.js";
import { providerError } from "../providers/errors.js";
import { invokePrompt, type Invocation } from "../runtime/prompt-invocation.js";
import { compactionText, retryText, turnEndText } from "../ui/output/notices.js";
import { LineSink, wantsColor } from "../ui/output/sink.js";
import type { Writer } from "../ui/output/output-order.js";
import { TerminalRenderer } from "../ui/output/terminal-renderer.js";
import { wrapText } from "../ui/output/wrap-text.js";
import { stripControls } from "../ui/safe-text.js";
import { runningJobsText } from "../jobs/job-table.js";
import type { Runtime } from "../runtime/runtime.js";

export interface PrintIO {
  stdout: Writer;
  stderr: Writer;
  /** stdout is a terminal: the answer streams live; otherwise each message is written once complete. */
  stdoutIsTerminal: boolean;
  /** Style stderr (thinking dimmed) — a terminal, NO_COLOR unset. */
  stderrColor: boolean;
  /** Style stdout (the answer's Markdown) — a terminal, NO_COLOR unset. Default false. */
  stdoutColor?: boolean;
  /** For a stream that is a terminal, its width: the model's text there is made safe and wrapped (docs/cli.md). */
  stdoutColumns?: () => number;
  stderrColumns?: () => number;
}

/** Runs one turn for `prompt` and returns the exit code. */
export async function runPrintTurn(runtime: Runtime, prompt: string, format: OutputFormat, io: PrintIO, signal?: AbortSignal): Promise<number> {
  let renderer: TerminalRenderer | undefined;
  let receiver: TurnReceiver;
  if (format === "text") {
    // Tool blocks are printed once each, when the call ends (docs/cli.md): print mode's output is a log.
    const layout = { ...(io.stdoutColumns && { answerColumns: io.stdoutColumns }), ...(io.stderrColumns && { asideColumns: io.stderrColumns }) };
    renderer = new TerminalRenderer(new LineSink(io.stdout, io.stdoutColor ?? false), new LineSink(io.stderr, io.stderrColor), io.stdoutIsTerminal, {
      tools: runtime.agent.tools,
      whole: !io.stderrColumns,
    }, layout);
    receiver = renderer;
  } else if (format === "stream-json") {
    receiver = new StreamJsonWriter(io.stdout);
  } else {
    // json: nothing on stdout until the end; retries are still worth a line on stderr.
    receiver = { onRetry: (notice) => io.stderr.write(retryText(notice)), onCompaction: (outcome) => io.stderr.write(compactionText(outcome)) };
  }

  // `/command ARGS`, `/skill-name`, `$skill-name` (src/runtime/prompt-invocation.ts): what the prompt becomes.
  const invoked = await invokePrompt(prompt, runtime, runtime.options.cwd ?? process.cwd(), signal ?? new AbortController().signal);
  if (invoked.kind !== "send") return notSent(invoked, format, io);
  for (const note of invoked.notes) io.stderr.write(`awl: ${note}\n`);
  const { prompt: promptMessage, result } = await runtime.runTurn(invoked.content, receiver, signal, invoked.model === undefined ? {} : { model: invoked.model });
  await renderer?.finish();
  // `--permission-mode plan`: a turn that ended with the model's plan (exit_plan) prints it as the answer.
  const plan = runtime.plan?.takeDelivered();
  if (plan !== undefined && format === "text") io.stdout.write(`${io.stdoutIsTerminal ? stripControls(plan) : plan}`.replace(/\n*$/, "\n"));
  if (format !== "text") io.stdout.write(jsonLine(resultJSON(promptMessage, result, runtime.sessionId, runtime.usage.meter.snapshot(), runtime.permissions?.takeDenied())));
  // The run ends here: background jobs still running stop with it (named, so nobody expects them to go on).
  const running = runtime.jobs?.running() ?? [];
  if (running.length > 0) io.stderr.write(`awl: ${runningJobsText(running, "they stop now, as awl exits")}\n`);
  const note = turnEndText(result, runtime.settings);
  io.stderr.write(io.stderrColumns ? wrapText(note, io.stderrColumns()) : note);
  return exitCodeFor(result.stop_reason, result.error?.kind);
}

/** A command that printed text (exit 0), or was refused (exit 2, the reason on stderr and in the JSON result). */
function notSent(invoked: Exclude<Invocation, { kind: "send" }>, format: OutputFormat, io: PrintIO): number {
  if (invoked.kind === "printed") {
    (format === "text" ? io.stdout : io.stderr).write(invoked.text.replace(/\n*$/, "\n"));
    return EXIT.ok;
  }
  io.stderr.write(`awl: ${invoked.message}\n`);
  if (format !== "text") io.stdout.write(jsonLine(failureJSON(providerError("config", invoked.message))));
  return EXIT.usage;
}

/** One print-mode turn on the process's stdio; the first Ctrl-C cancels it (exit 130), a second exits at once. */
export async function runPrintMode(runtime: Runtime, cli: CliOptions, prompt: string): Promise<number> {
  runtime.singleTurn = true;
  // A thread started while the model thinks would cost a reply that needs no tool ≈ 25 MB (issue 30).
  runtime.hosts.lua?.startForCallsOnly();
  return untilSecondInterrupt(async (signal) => {
    const io: PrintIO = {
      stdout: process.stdout,
      stderr: process.stderr,
      stderrColor: wantsColor(process.stderr, process.env),
      stdoutIsTerminal: Boolean(process.stdout.isTTY),
    };
    if (cli.outputFormat === "text" && (process.stdout.isTTY || process.stderr.isTTY)) {
      // Exact widths of wide characters before any text is laid out (chat.ts starts loading them early).
      // On a terminal the answer is drawn as Markdown (chat.ts starts loading the renderer early too).
      const [width, markdown] = await Promise.all([import("../ui/output/width.js"), import("../ui/markdown/load.js")]);
      await Promise.all([width.loadDisplayWidth(), process.stdout.isTTY ? markdown.loadMarkdown() : undefined]);
      if (process.stdout.isTTY) io.stdoutColumns = () => process.stdout.columns || 80;
      io.stdoutColor = wantsColor(process.stdout, process.env);
      if (process.stderr.isTTY) io.stderrColumns = () => process.stderr.columns || 80;
    }
    return runPrintTurn(runtime, prompt, cli.outputFormat, io, signal);
  });
}

/** Runs `work` with a signal that the first Ctrl-C (SIGINT) aborts; a second Ctrl-C exits at once (130). */
export async function untilSecondInterrupt(work: (signal: AbortSignal) => Promise<number>): Promise<number> {
  const controller = new AbortController();
  const onInterrupt = (): void => {
    if (controller.signal.aborted) process.exit(EXIT.cancelled);
    controller.abort();
  };
  process.on("SIGINT", onInterrupt);
  try {
    return await work(controller.signal);
  } finally {
    process.off("SIGINT", onInterrupt);
  }
}
