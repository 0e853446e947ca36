/**
 * Runs one assistant message's tool calls: prepared in order, executed concurrently (a tool that is not
 * parallel-safe runs alone), results reported in the model's order. Every call ends in exactly one
 * tool_result, whatever happens (SPEC §5).
 */
import { setMaxListeners } from "node:events";
import { parseToolInput } from "../model/blocks.js";
import type { ToolResultBlock, ToolUseBlock } from "../model/blocks.js";
import { toolResult } from "../model/conversation.js";
import type { ToolCall, ToolDefinition, ToolOutcome, ToolProgress, ToolSet } from "../tools/types.js";
import { validateToolInput } from "../tools/validate-input.js";

export interface BatchHooks {
  onToolStart?(call: ToolCall): void;
  onToolProgress?(call: ToolCall, update: ToolProgress): void;
  onToolEnd?(call: ToolCall, outcome: ToolOutcome, result: ToolResultBlock): void;
}

export interface CallRecord {
  call: ToolCall;
  outcome: ToolOutcome;
  result: ToolResultBlock;
}

/** A call that cannot run is answered at once; the rest are ready to execute. */
type Prepared = { kind: "immediate"; call: ToolCall; message: string } | { kind: "ready"; call: ToolCall; definition: ToolDefinition };

export async function runToolBatch(
  uses: readonly ToolUseBlock[],
  tools: ToolSet | undefined,
  turnSignal: AbortSignal,
  hooks: BatchHooks,
): Promise<CallRecord[]> {
  const batch = batchSignal(turnSignal);
  try {
    return await runBatch(uses, tools, batch.signal, hooks);
  } finally {
    batch.release();
  }
}

/**
 * The batch's own signal, aborted with the turn's. Every call of a batch listens on it while it waits or runs
 * (for a Lua slot, a request, a child process), so a batch of a dozen calls would set off Node's listener-leak
 * warning on the turn's signal; the batch's signal takes any number, and the turn's gets one listener per batch.
 */
function batchSignal(turnSignal: AbortSignal): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  const forward = (): void => controller.abort(turnSignal.reason);
  if (turnSignal.aborted) forward();
  else turnSignal.addEventListener("abort", forward, { once: true });
  return { signal: controller.signal, release: () => turnSignal.removeEventListener("abort", forward) };
}

async function runBatch(uses: readonly ToolUseBlock[], tools: ToolSet | undefined, signal: AbortSignal, hooks: BatchHooks): Promise<CallRecord[]> {
  const definitions = new Map((tools?.definitions() ?? []).map((d) => [d.name, d]));
  const prepared: Prepared[] = [];
  for (const use of uses) prepared.push(await prepare({ id: use.id, name: use.name, input: use.input }, definitions));

  const records: (CallRecord | undefined)[] = new Array(prepared.length);
  const finish = (index: number, call: ToolCall, outcome: ToolOutcome): void => {
    const result = resultFor(call, outcome);
    records[index] = { call, outcome, result };
    hooks.onToolEnd?.(call, outcome, result);
  };
  const run = async (index: number, item: Prepared & { kind: "ready" }): Promise<void> => {
    const { call } = item;
    if (signal.aborted) return finish(index, call, { status: "cancelled" });
    hooks.onToolStart?.(call);
    let outcome: ToolOutcome;
    try {
      outcome = await tools!.execute(call, signal, (update) => hooks.onToolProgress?.(call, update));
    } catch (e) {
      // ToolSet.execute must not throw; if one does, the call still gets its answer.
      outcome = { status: "result", content: `the tool host failed: ${e instanceof Error ? e.message : String(e)}`, is_error: true };
    }
    finish(index, call, outcome);
  };

  // Parallel-safe calls run together; a call that is not parallel-safe waits for the group before it and runs alone.
  let group: Promise<void>[] = [];
  for (let i = 0; i < prepared.length; i++) {
    const item = prepared[i]!;
    if (item.kind === "immediate") {
      hooks.onToolStart?.(item.call);
      finish(i, item.call, { status: "result", content: item.message, is_error: true });
    } else if (item.definition.parallel) {
      group.push(run(i, item));
    } else {
      await Promise.all(group);
      group = [];
      await run(i, item);
    }
  }
  await Promise.all(group);
  return records as CallRecord[];
}

async function prepare(call: ToolCall, definitions: ReadonlyMap<string, ToolDefinition>): Promise<Prepared> {
  const definition = definitions.get(call.name);
  if (!definition) {
    const known = [...definitions.keys()];
    const offer = known.length > 0 ? `Available tools: ${known.join(", ")}.` : "No tools are available.";
    return { kind: "immediate", call, message: `unknown tool "${call.name}". ${offer}` };
  }
  const input = parseToolInput(call.input);
  if (input === undefined) {
    return { kind: "immediate", call, message: `the input for tool "${call.name}" is not valid JSON: ${truncate(call.input, 200)}` };
  }
  const check = await validateToolInput(call.name, definition.schema, input);
  if (!check.ok) return { kind: "immediate", call, message: check.message };
  return { kind: "ready", call, definition };
}

/** The model-facing answer for each way a call can end. */
export function resultFor(call: ToolCall, outcome: ToolOutcome): ToolResultBlock {
  switch (outcome.status) {
    case "result":
      return toolResult(call.id, outcome.content, outcome.is_error, outcome.images);
    case "crash":
      return toolResult(call.id, `the "${outcome.extension}" extension crashed: ${outcome.message}`, true);
    case "timeout":
      return toolResult(call.id, `the tool "${call.name}" timed out after ${formatSeconds(outcome.timeout_ms)} and was stopped`, true);
    case "cancelled":
      return toolResult(call.id, `the tool "${call.name}" was cancelled by the user`, true);
  }
}

function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
