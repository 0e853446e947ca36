/**
 * The agent turn (seed phase 1 `runStep`, with the phase 3 tool loop; SPEC §5):
 * call the model; if it asked for tools, run them and feed the results back; repeat until the model stops,
 * the turn is cancelled, a tool crashed or ended it (`ends_turn`), a provider error ends it, or the step limit is hit.
 */
import type { ToolResultBlock, ToolUseBlock } from "../model/blocks.js";
import { Conversation } from "../model/conversation.js";
import { addUsage, emptyUsage } from "../model/message.js";
import type { Message, StopReason, Usage } from "../model/message.js";
import type { ProviderError } from "../providers/errors.js";
import type { Provider, Receiver, StepResult, ToolSpec } from "../providers/types.js";
import type { ToolCall, ToolOutcome, ToolProgress, ToolSet } from "../tools/types.js";
import type { CompactionOutcome, ContextLayer, RequestShape } from "./context-layer.js";
import { answerUnansweredToolUses } from "./invariant.js";
import { runToolBatch } from "./tool-batch.js";

/** Model calls allowed in one turn unless configured otherwise. */
export const DEFAULT_MAX_STEPS = 50;

/**
 * A model call that offers tools and is still unanswered after this long is a model at work (a local server
 * answers within a few ms, a hosted model's first byte takes ~300 ms and more): the tools hear it ("slow"), so
 * hosts that start only for a likely call (MCP servers) start meanwhile. Each host decides what it is worth: Lua
 * workers start at the request itself in the interactive mode, here in stream-json and ACP, and only once a call
 * streams in print mode (LuaToolSet.prewarm).
 */
export const PREWARM_AFTER_MS = 250;

export interface AgentOptions {
  provider: Provider;
  tools?: ToolSet;
  /** Model calls per turn; reaching it ends the turn with stop reason `max_steps`. */
  maxSteps?: number;
  /**
   * The system prompt sent with every model call (see `buildSystemPrompt`), followed by the tools' instructions
   * (`ToolSet.instructions`, e.g. MCP servers'); not part of the conversation. A function is asked before each call
   * with the names of the tools offered then, so advice about tools follows them when they change (hot reload, an
   * extension switched off); it should return the same text for the same names, so prompt caches hit.
   */
  system?: SystemPrompt;
  /** Keeps the conversation inside the window (compaction), called before each model call and after an overflow. */
  context?: ContextLayer;
  /** Text for one request only (hooks' `before_request`), see {@link RequestContext}. */
  requestContext?: RequestContext;
}

/**
 * Asked before each model call with the messages about to be sent: texts added to that request only (at the end of
 * its last user message), never saved in the conversation; the messages themselves cannot be changed.
 */
export type RequestContext = (messages: readonly Message[], signal: AbortSignal) => Promise<readonly string[]>;

/** The Receiver calls for each model response, plus what happens to tools and the conversation during a turn. */
export interface TurnReceiver extends Receiver {
  onToolStart?(call: ToolCall): void;
  /** A batch of calls is about to run (checkpoints are taken here before tools that can write); awaited. */
  onToolBatchStart?(calls: readonly ToolUseBlock[]): void | Promise<void>;
  onToolProgress?(call: ToolCall, update: ToolProgress): void;
  onToolEnd?(call: ToolCall, outcome: ToolOutcome, result: ToolResultBlock): void;
  /** Each message appended to the conversation during the turn, in order. */
  onMessageAppended?(message: Message): void;
  /** A compaction ran (or tried to) before a model call; the conversation sent from now on is the compacted one. */
  onCompaction?(outcome: CompactionOutcome): void;
}

export interface ToolCrash {
  call: ToolCall;
  extension: string;
  message: string;
  traceback: string;
}

export interface TurnResult {
  /** From the model (`end_turn`, `max_tokens`, `content_filter`, `unknown`) or from awl (`max_steps`, `cancelled`, `tool_crash`, `error`). */
  stop_reason: StopReason;
  /** Messages appended during this turn (not the prompt the caller added before it). */
  messages: Message[];
  /** Summed over the turn's model calls, with what failed or retried calls reported before they broke off. */
  usage: Usage;
  /** Set when `stop_reason` is `error`. */
  error?: ProviderError;
  /** Set (non-empty) when `stop_reason` is `tool_crash`. */
  crashes: ToolCrash[];
  /** Model calls made. */
  steps: number;
}

/** The user-facing line for a crashed extension (seed phase 3). */
export function crashReport(crash: Pick<ToolCrash, "extension" | "message" | "traceback">): string {
  const trace = crash.traceback.trim();
  return `the "${crash.extension}" extension crashed: ${crash.message}${trace ? `\n${trace}` : ""}`;
}

/** A system prompt, or one made for the tools offered (their names, sorted as offered). */
export type SystemPrompt = string | ((toolNames: readonly string[]) => string);

export class Agent {
  provider: Provider;
  tools: ToolSet | undefined;
  maxSteps: number;
  system: SystemPrompt | undefined;
  context: ContextLayer | undefined;
  requestContext: RequestContext | undefined;

  constructor(options: AgentOptions) {
    this.provider = options.provider;
    this.tools = options.tools;
    this.maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
    this.system = options.system;
    this.context = options.context;
    this.requestContext = options.requestContext;
  }

  /** Runs one turn. Never throws; keeps every tool_use answered whatever happens. */
  async runStep(conversation: Conversation, receiver: TurnReceiver = {}, options: { signal?: AbortSignal } = {}): Promise<TurnResult> {
    const signal = options.signal ?? new AbortController().signal;
    const turn: TurnResult = { stop_reason: "end_turn", messages: [], usage: emptyUsage(), crashes: [], steps: 0 };
    const append = (message: Message): void => {
      conversation.addMessage(message);
      turn.messages.push(message);
      receiver.onMessageAppended?.(message);
    };
    const end = (stop_reason: StopReason): TurnResult => {
      turn.stop_reason = stop_reason;
      return turn;
    };

    // A conversation that broke off mid-turn (e.g. a resumed session) is made whole before anything is sent.
    answerUnansweredToolUses(conversation);

    for (;;) {
      if (signal.aborted) return end("cancelled");
      if (turn.steps >= this.maxSteps) return end("max_steps");
      turn.steps++;
      await this.refreshTools();
      if (signal.aborted) return end("cancelled");
      const request = this.requestShape();
      const compacted = (outcome: CompactionOutcome | undefined): boolean => {
        if (!outcome) return false;
        if (outcome.usage) turn.usage = addUsage(turn.usage, outcome.usage);
        receiver.onCompaction?.(outcome);
        return outcome.applied !== undefined;
      };
      compacted(await this.context?.beforeRequest(conversation, request, signal));
      if (signal.aborted) return end("cancelled");
      let step = await this.callModel(conversation, this.stepReceiver(receiver, turn), request, signal);
      // A request refused as too long: one compaction, one retry (the retry's own refusal stands).
      if (!step.ok && step.error.kind === "context_length" && this.context) {
        const { usage: spent, ...refused } = step.error;
        if (spent) turn.usage = addUsage(turn.usage, spent);
        const recovered = compacted(await this.context.afterOverflow(conversation, request, refused, signal));
        if (signal.aborted) return end("cancelled");
        step = recovered ? await this.callModel(conversation, this.stepReceiver(receiver, turn), request, signal) : { ok: false, error: refused };
      }
      if (!step.ok) {
        // A failed or cancelled call may have been billed for what it streamed before it broke off.
        if (step.error.usage) turn.usage = addUsage(turn.usage, step.error.usage);
        if (step.error.kind === "aborted") return end("cancelled");
        turn.error = step.error;
        return end("error");
      }
      append(step.message);
      turn.usage = addUsage(turn.usage, step.message.usage);

      const uses = step.message.content.filter((b): b is ToolUseBlock => b.type === "tool_use");
      if (uses.length === 0) return end(step.message.stop_reason ?? "end_turn");
      // The tools' own start gets under way first (a worker thread then boots beside this one): checking the
      // calls loads ajv, which holds this thread for tens of ms. Each called tool's host only (a `task` call
      // starts no Lua worker's load).
      const tools = this.tools;
      if (tools?.prewarm) await Promise.all([...new Set(uses.map((u) => u.name))].map((name) => tools.prewarm!("tool_use", name)));

      await receiver.onToolBatchStart?.(uses);
      const records = await runToolBatch(uses, this.tools, signal, receiver);
      append({ role: "user", content: records.map((r) => r.result) });
      for (const { call, outcome } of records) {
        if (outcome.status === "crash") turn.crashes.push({ call, extension: outcome.extension, message: outcome.message, traceback: outcome.traceback });
      }
      if (turn.crashes.length > 0) return end("tool_crash");
      if (signal.aborted) return end("cancelled");
      if (records.some(({ outcome }) => outcome.status === "result" && outcome.ends_turn)) return end("end_turn");
    }
  }

  /** Lets the tools apply what changed since the last model call (ToolSet.refresh); a failure changes nothing. */
  private async refreshTools(): Promise<void> {
    try {
      await this.tools?.refresh?.();
    } catch {
      // refresh never rejects by contract; a tool host that breaks it keeps its previous tools
    }
  }

  /** What the next model call sends besides the conversation: the tools offered now and the system prompt. */
  requestShape(): RequestShape {
    const tools = this.tools?.definitions() ?? [];
    const own = typeof this.system === "function" ? this.system(tools.map((t) => t.name)) : this.system;
    const system = systemPromptWith(own, this.tools?.instructions?.() ?? []);
    return { tools, ...(system && { system }) };
  }

  /**
   * One model call. Tools that can prewarm hear of it as soon as the request is on its way ("request": after the
   * provider has begun it, in the next turn of the event loop, so their start-up work never comes before the
   * request's own), again if it is slow to answer ("slow"), and at its first tool_use block ("tool_use").
   */
  private async callModel(conversation: Conversation, receiver: Receiver, { tools, system }: RequestShape, signal: AbortSignal): Promise<StepResult> {
    const toolSet = this.tools;
    const sent = this.requestContext ? withRequestContext(conversation, await this.requestContext(conversation.messages, signal)) : conversation;
    const step = this.provider.streamStep(sent, receiver, { tools, signal, ...(system && { system }) });
    const prewarming = toolSet?.prewarm && tools.length > 0;
    const soon = prewarming ? setImmediate(() => void toolSet.prewarm?.("request")) : undefined;
    const timer = prewarming ? setTimeout(() => void toolSet.prewarm?.("slow"), PREWARM_AFTER_MS) : undefined;
    try {
      return await step;
    } finally {
      if (soon) clearImmediate(soon);
      clearTimeout(timer);
    }
  }

  /**
   * `receiver`, plus: the tokens of each attempt that is retried count in the turn's usage, and the tools hear at
   * the first tool_use block that a call is coming (they start meanwhile).
   */
  private stepReceiver(receiver: Receiver, turn: TurnResult): Receiver {
    const tools = this.tools;
    return {
      onMessageStart: (role) => receiver.onMessageStart?.(role),
      onBlockStart: (type, index, meta) => {
        if (type === "tool_use") void tools?.prewarm?.("tool_use", meta?.tool_name);
        receiver.onBlockStart?.(type, index, meta);
      },
      onContentDelta: (index, delta) => receiver.onContentDelta?.(index, delta),
      onBlockComplete: (index, block) => receiver.onBlockComplete?.(index, block),
      onMessageComplete: (message) => receiver.onMessageComplete?.(message),
      onError: (error) => receiver.onError?.(error),
      onServerTool: (use) => receiver.onServerTool?.(use),
      onRetry: (notice) => {
        if (notice.error.usage) turn.usage = addUsage(turn.usage, notice.error.usage);
        receiver.onRetry?.(notice);
      },
    };
  }
}

/** The agent's system prompt, then what the tools' hosts add (MCP servers' instructions), a blank line between. */
export function systemPromptWith(own: string | undefined, added: readonly string[]): string | undefined {
  if (added.length === 0) return own;
  return [own ?? "", ...added].filter((text) => text !== "").join("\n\n");
}

/** The conversation as one request sends it: `texts` added at the end of its last user message (a copy; the conversation is unchanged). */
function withRequestContext(conversation: Conversation, texts: readonly string[]): Conversation {
  const messages = conversation.messages;
  const last = messages.findLastIndex((m) => m.role === "user");
  if (texts.length === 0 || last < 0) return conversation;
  const copy = [...messages];
  copy[last] = { ...messages[last]!, content: [...messages[last]!.content, ...texts.map((text) => ({ type: "text" as const, text }))] };
  return new Conversation(copy);
}
