/**
 * One sub-agent run (docs/agents.md): a child conversation with its own system prompt and tools, run by an
 * `Agent` of its own under the parent call's signal, bounded by steps and tokens, saved as a side session linked
 * to the parent's, its progress reported as it goes. Its final answer becomes the `task` call's outcome.
 */
import { Agent, type TurnReceiver, type TurnResult } from "../agent/agent.js";
import { Conversation } from "../model/conversation.js";
import { addUsage, emptyUsage, type Message, type Usage } from "../model/message.js";
import type { Provider } from "../providers/types.js";
import { SessionRecorder } from "../session/recorder.js";
import type { SessionStore } from "../session/store.js";
import type { ToolCall, ToolOutcome, ToolSet } from "../tools/types.js";
import type { AgentDefinition } from "./definitions.js";

/** Where a sub-agent run is saved and what it is linked to. */
export interface SideSession {
  store: SessionStore;
  /** The parent session's id (the header's `parent.session`); no side session is saved without one. */
  parent: string;
  cwd: string;
}

/** What one run needs. */
export interface SubAgentRun {
  definition: AgentDefinition;
  /** The `task` call that starts it. */
  call: ToolCall;
  /** The task as the parent model wrote it. */
  prompt: string;
  /** The short description the parent gave (shown in the live block). */
  description: string;
  provider: Provider;
  tools: ToolSet;
  system: string;
  maxSteps: number;
  /** Tokens (input + output of every model call) after which the sub-agent is stopped. */
  maxTokens: number;
  session?: SideSession;
  /** A line for the live block: the agent, its step, its tokens, its current tool. */
  onProgress?(line: string): void;
  /** A side session could not be written (the run goes on). */
  warn?(text: string): void;
}

/** How the run ended, for the `task` result's details (and the side session's id). */
export interface SubAgentDetails {
  agent: string;
  stop_reason: string;
  steps: number;
  usage: Usage;
  /** The side session's id, when saved. */
  session?: string;
}

/** Runs the sub-agent to its end; never throws. The outcome carries its final answer, or why it has none. */
export async function runSubAgent(run: SubAgentRun, signal: AbortSignal): Promise<{ outcome: ToolOutcome; usage: Usage }> {
  const { definition: def } = run;
  const conversation = new Conversation();
  const prompt = conversation.addUserMessage(run.prompt);
  const recorder = sideRecorder(run);
  recorder?.message(prompt);

  // Stopped by the parent (Esc) through `signal`, or by its own token limit through `limit`.
  const limit = new AbortController();
  const stop = (): void => limit.abort();
  if (signal.aborted) stop();
  else signal.addEventListener("abort", stop, { once: true });
  let overLimit = false;
  let steps = 0;
  let spent = emptyUsage();
  const report = (state: string): void => run.onProgress?.(`${def.name}: ${run.description} · step ${steps} · ${grouped(tokens(spent))} tokens · ${state}`);

  const live: TurnReceiver = {
    onMessageStart: () => {
      steps++;
      report("thinking");
    },
    onRetry: () => {
      steps--;
    },
    onToolStart: (call) => report(`running ${call.name}`),
    onMessageAppended: (message: Message) => {
      if (message.role !== "assistant" || !message.usage) return;
      spent = addUsage(spent, message.usage);
      if (tokens(spent) >= run.maxTokens && message.content.some((b) => b.type === "tool_use")) {
        overLimit = true;
        stop();
      }
    },
  };
  const agent = new Agent({ provider: run.provider, tools: run.tools, maxSteps: run.maxSteps, system: run.system });
  report("starting");
  let result: TurnResult;
  try {
    result = await agent.runStep(conversation, recorder ? recorder.wrap(live) : live, { signal: limit.signal });
  } finally {
    signal.removeEventListener("abort", stop);
    recorder?.endTurn();
    recorder?.close();
  }
  report(result.stop_reason === "end_turn" ? "done" : result.stop_reason);

  const details: SubAgentDetails = { agent: def.name, stop_reason: overLimit ? "max_tokens" : result.stop_reason, steps: result.steps, usage: result.usage };
  if (recorder) details.session = recorder.writer.id;
  const answer = finalText(result.messages);
  const trailer = `\n\n(sub-agent ${def.name}: ${result.steps} model call${result.steps === 1 ? "" : "s"}, ${grouped(tokens(result.usage))} tokens)`;
  const done = (content: string, is_error: boolean): { outcome: ToolOutcome; usage: Usage } => ({
    outcome: { status: "result", content: content + trailer, is_error, details, summary: `${def.name}: ${details.stop_reason}, ${result.steps} steps` },
    usage: result.usage,
  });
  const partial = answer ? `\nIts last words:\n${answer}` : "";
  if (overLimit) return done(`the sub-agent "${def.name}" was stopped at its token limit (${grouped(run.maxTokens)} tokens) before it finished.${partial}`, true);
  switch (result.stop_reason) {
    case "cancelled":
      return { outcome: { status: "cancelled" }, usage: result.usage };
    case "error":
      return done(`the sub-agent "${def.name}" failed: ${result.error?.message ?? "the model call failed"}${partial}`, true);
    case "max_steps":
      return done(`the sub-agent "${def.name}" reached its step limit (${run.maxSteps} model calls) before it finished.${partial}`, true);
    case "tool_crash":
      return done(`the sub-agent "${def.name}" stopped: a tool crashed (${result.crashes.map((c) => c.message).join("; ")}).${partial}`, true);
    default:
      return done(answer || `the sub-agent "${def.name}" ended without an answer (${result.stop_reason})`, answer === "");
  }
}

/** The side session's recorder, or undefined when the run is not saved (or its file cannot be made: said once). */
function sideRecorder(run: SubAgentRun): SessionRecorder | undefined {
  const side = run.session;
  if (!side) return undefined;
  const created = side.store.create({
    cwd: side.cwd,
    provider: run.provider.name,
    model: run.provider.model,
    parent: { session: side.parent, tool_use_id: run.call.id, agent: run.definition.name },
  });
  if (!created.ok) {
    run.warn?.(`the sub-agent "${run.definition.name}" is not saved: ${created.error.message}`);
    return undefined;
  }
  return new SessionRecorder(created.value, (error) => run.warn?.(`the sub-agent "${run.definition.name}"'s session: ${error.message}`));
}

/** The text of the last assistant message (the sub-agent's answer). */
function finalText(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "assistant") continue;
    const text = m.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
    if (text.trim() !== "") return text.trim();
  }
  return "";
}

/** Every token a usage counts. */
export function tokens(usage: Usage): number {
  return usage.input_tokens + usage.output_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);
}

/** 12345 as "12,345" (not `toLocaleString`: its first call loads Intl's data, ~50 ms before the first request). */
function grouped(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}
