/**
 * `awl --input-format stream-json --output-format stream-json`: a conversation held over stdin and stdout
 * (docs/cli.md, "Input format"). Each user line is one turn, run one after another in one session; each turn
 * prints its events and its result object as `-p --output-format stream-json` does. A control line interrupts
 * the running turn, or rewinds or forks the session once the turns sent before it have ended; each checkpoint saved is
 * a `checkpoint` line; a line awl cannot use is an `input_error` line and reading goes on; at the end of stdin awl
 * finishes the turns already sent, then exits.
 */
import { AgentSession, type PromptContent, type TurnOptions } from "../agent-session/agent-session.js";
import { replayEvent } from "../agent-session/events.js";
import type { Turn } from "../agent-session/turn.js";
import { EXIT, exitCodeFor } from "./exit-codes.js";
import { StreamJsonWriter, jsonLine, resultJSON } from "./output/json-output.js";
import { turnEndText } from "../ui/output/notices.js";
import type { Writer } from "../ui/output/output-order.js";
import type { Runtime } from "../runtime/runtime.js";
import { untilSecondInterrupt } from "./print-mode.js";
import { parseInputLine, readLines } from "./stream-input.js";
import { untilAborted } from "../util/until-aborted.js";
import { invokePrompt, mayInvoke } from "../runtime/prompt-invocation.js";
import { refreshCompileCachesAtExit } from "./compile-cache.js";
import type { RewindOutcome } from "../agent-session/branching.js";
import type { CheckpointRecord } from "../checkpoints/store.js";

export interface StreamJsonIO {
  stdin: AsyncIterable<Buffer | string>;
  stdout: Writer;
  stderr: Writer;
}

/**
 * Runs the session until stdin ends and its turns are done, or `signal` aborts (Ctrl-C: the running and
 * queued turns are cancelled and awl stops reading); returns the exit code (docs/cli.md).
 */
export async function runStreamJsonSession(runtime: Runtime, firstPrompt: string, io: StreamJsonIO, signal?: AbortSignal): Promise<number> {
  const session = new AgentSession(runtime);
  // Turns sent and not yet ended, oldest (the running one, or the next to run) first.
  const unfinished: Turn[] = [];
  let code: number | undefined;
  let refused = false;
  // Turns print in order: each one's events are written once the turns before it are written.
  let written: Promise<void> = Promise.resolve();
  // A prompt naming a command or skill is made into what it sends first (src/runtime/prompt-invocation.ts); prompts after it
  // wait for that, so turns keep their order.
  let preparing = 0;
  let prepared: Promise<void> = Promise.resolve();
  const preparation = new AbortController();
  signal?.addEventListener("abort", () => preparation.abort(), { once: true });
  // Each checkpoint as it is saved (its id is what a rewind or a reader of docs/checkpoints.md refers to).
  runtime.branching?.onCheckpoint((record) => io.stdout.write(jsonLine({ type: "checkpoint", checkpoint: checkpointJSON(record) })));
  /** Runs `work` now, or after the prompts being made ready before it (so they keep their order). */
  const inOrder = (work: () => void): void => {
    if (preparing === 0) return work();
    preparing++;
    prepared = prepared.then(work).finally(() => preparing--);
  };
  /** A control request answered once the turns sent before it have ended (the answer comes after their lines). */
  const control = (request_id: string | null, work: () => Promise<ControlAnswer>): void =>
    inOrder(() => {
      const answer = work().catch((e: unknown): ControlAnswer => ({ error: e instanceof Error ? e.message : String(e) }));
      written = written.then(async () => {
        const done = await answer;
        const response = "error" in done ? { subtype: "error", request_id, ...done } : { subtype: "success", request_id, response: done.response };
        io.stdout.write(jsonLine({ type: "control_response", response }));
        if ("error" in done) io.stderr.write(`awl: ${done.error}\n`);
      });
    });
  const send = (content: PromptContent): void => {
    if (preparing === 0 && !mayInvoke(content, runtime)) return start(content);
    preparing++;
    prepared = prepared
      .then(async () => {
        const invoked = await invokePrompt(content, runtime, runtime.options.cwd ?? process.cwd(), preparation.signal);
        if (invoked.kind === "send") return start(invoked.content, invoked.model === undefined ? {} : { model: invoked.model });
        written = written.then(() => {
          if (invoked.kind === "printed") io.stdout.write(jsonLine({ type: "command_output", text: invoked.text }));
          else {
            io.stdout.write(jsonLine({ type: "command_refused", message: invoked.message }));
            io.stderr.write(`awl: ${invoked.message}\n`);
            refused = true;
          }
        });
      })
      .finally(() => preparing--);
  };
  const start = (content: PromptContent, options: TurnOptions = {}): void => {
    const turn = session.prompt(content, options);
    unfinished.push(turn);
    void turn.done.then(() => unfinished.splice(unfinished.indexOf(turn), 1));
    written = written.then(() => writeTurn(turn));
  };
  const writeTurn = async (turn: Turn): Promise<void> => {
    const writer = new StreamJsonWriter(io.stdout);
    for await (const event of turn) {
      if (event.type !== "turn_end") {
        replayEvent(event, writer);
        continue;
      }
      // The turn's checkpoints are reported before its result (the turn did not wait for them; its result does).
      await runtime.branching?.checkpointsSaved();
      io.stdout.write(jsonLine(resultJSON(event.prompt, event.result, event.session_id, event.meter, runtime.permissions?.takeDenied())));
      io.stderr.write(turnEndText(event.result, runtime.settings));
      code = exitCodeFor(event.result.stop_reason, event.result.error?.kind);
    }
  };
  if (firstPrompt.trim() !== "") send(firstPrompt);
  const lines = readLines(io.stdin)[Symbol.asyncIterator]();
  for (let number = 1; ; number++) {
    const next = await untilAborted(lines.next(), signal, "stopped" as const);
    if (next === "stopped") {
      for (const turn of unfinished) turn.cancel();
      break;
    }
    if (next.done) break;
    const input = parseInputLine(next.value);
    switch (input.kind) {
      case "blank":
        break;
      case "prompt":
        send(input.content);
        break;
      case "interrupt":
        // The oldest unfinished turn: a prompt line just before may not have started yet, and is the one meant.
        unfinished[0]?.cancel();
        io.stdout.write(jsonLine({ type: "control_response", response: { subtype: "success", request_id: input.request_id } }));
        break;
      case "rewind_points":
        control(input.request_id, async () => ({ response: { prompts: await session.rewindPoints() } }));
        break;
      case "rewind": {
        const { to, mode, overwrite_changed, dry_run } = input;
        control(input.request_id, async () => rewindAnswer(await session.rewind({ to, mode, overwriteChanged: overwrite_changed, dryRun: dry_run })));
        break;
      }
      case "fork":
        control(input.request_id, async () => {
          const forked = await session.fork();
          return forked.ok ? { response: { session_id: forked.id, forked_from: forked.from } } : { error: `cannot fork: ${forked.message}` };
        });
        break;
      case "invalid":
        refused = true;
        io.stdout.write(jsonLine({ type: "input_error", line: number, message: input.message }));
        io.stderr.write(`awl: stdin line ${number}: ${input.message} (line ignored)\n`);
        break;
    }
  }
  await prepared;
  await written;
  if (signal?.aborted) return EXIT.cancelled;
  return code ?? (refused ? EXIT.usage : EXIT.ok);
}

/** What a control request answers: a `response` object, or an `error` message (with fields that go with it). */
type ControlAnswer = { response: Record<string, unknown> } | { error: string; [field: string]: unknown };

function rewindAnswer(outcome: RewindOutcome): ControlAnswer {
  switch (outcome.status) {
    case "error":
      return { error: `cannot rewind: ${outcome.message}` };
    case "conflicts":
      return {
        error: `changed outside awl since its last checkpoint, so nothing was restored: ${outcome.conflicts.join(", ")} ("overwrite_changed": true restores them too)`,
        conflicts: outcome.conflicts,
        files: outcome.files,
      };
    default: {
      const { status, prompt, checkpoint, files } = outcome;
      return { response: { status, prompt, ...(checkpoint !== undefined && { checkpoint }), ...(files && { files }) } };
    }
  }
}

/** A checkpoint as a `checkpoint` line gives it (docs/cli.md). */
function checkpointJSON(record: CheckpointRecord): Record<string, unknown> {
  const { id, session, prompt, when, complete, files, error, skipped } = record;
  return { id, session_id: session, prompt, when, complete, ...(files !== undefined && { files }), ...(error !== undefined && { error }), ...(skipped && { skipped }) };
}

/** The mode on the process's stdio; Ctrl-C cancels the running turn and ends the session (exit 130). */
export async function runStreamJsonMode(runtime: Runtime, prompt: string): Promise<number> {
  refreshCompileCachesAtExit(); // a long run: its chunks' caches may hold more at exit
  const io = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
  return untilSecondInterrupt((signal) => runStreamJsonSession(runtime, prompt, io, signal));
}
