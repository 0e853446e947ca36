/**
 * Compaction (docs/compaction.md): the {@link ContextLayer} that keeps a conversation inside the model's window.
 * Before a request whose estimate passes the threshold (default 80 % of the window) it first prunes old tool outputs
 * (never those of the last turns), and if that is not enough asks the model for a summary that replaces the older
 * messages, keeping the recent ones. After a refusal as too long it compacts harder, once. `/compact` runs it on
 * demand. It cuts only where no tool_use is separated from its tool_result (SPEC §5), and never throws.
 */
import type { CompactionEvent, CompactionOutcome, CompactionReason, ContextLayer, RequestShape } from "../agent/context-layer.js";
import { applyCompaction, type CompactionChange } from "../model/compaction.js";
import type { Conversation } from "../model/conversation.js";
import { textOf } from "../model/conversation.js";
import { addUsage, type Message, type Usage } from "../model/message.js";
import type { ProviderError } from "../providers/errors.js";
import type { Provider, Receiver } from "../providers/types.js";
import { estimateMessages, estimateRequest, estimateShape, messageChars, CHARS_PER_TOKEN } from "./estimate.js";
import { summaryRequest } from "./summary-prompt.js";
import { totalInputTokens } from "../usage/cost.js";
import { conventionOf } from "../usage/meter.js";

export const DEFAULT_THRESHOLD_PERCENT = 80;
/** Turns (user prompts and all that followed them) whose tool outputs are never pruned. */
export const PROTECTED_TURNS = 2;
/** The recent messages a summary keeps: at most this share of the window. */
const KEEP_RECENT_SHARE = 0.3;
/** A summary may be at most this share of the window. */
const SUMMARY_MAX_SHARE = 0.25;
/** Tool outputs shorter than this are not worth pruning. */
const PRUNE_MIN_CHARS = 400;
/** Below this estimate no compaction is considered (no window is that small): the window is not even looked up. */
const MIN_TOKENS = 3_000;

export interface CompactorOptions {
  /** The provider in use (it changes with `/model`). */
  provider(): Provider;
  /** The window of the model in use; called only when the estimate reaches 3 000 tokens (it may ask the server). */
  contextWindow(): number | Promise<number>;
  /** Compact when the next request's estimate passes this percentage of the window. Default 80. */
  thresholdPercent?: number;
  /** Compact automatically before requests (false: only `/compact` and after a refusal). Default true. */
  auto?: boolean;
  /** Each summary call's usage, as it is reported (the cost meter). */
  onUsage?(usage: Usage): void;
  /**
   * Asked before a summary is requested (hooks' `compaction`): instructions for the summary, added after the
   * user's own (`/compact INSTRUCTIONS`). Undefined: none.
   */
  instructions?(reason: CompactionReason, given: string | undefined, signal: AbortSignal): Promise<string | undefined>;
}

/** A request with no tools and no system prompt (the shape `estimate` assumes when given none). */
const NO_TOOLS: RequestShape = { tools: [] };

export class Compactor implements ContextLayer {
  /** Per conversation: messages from this index on carry usage that describes the conversation as it is now. */
  private readonly freshFrom = new WeakMap<Conversation, number>();

  constructor(private readonly options: CompactorOptions) {}

  get thresholdPercent(): number {
    return this.options.thresholdPercent ?? DEFAULT_THRESHOLD_PERCENT;
  }

  /** The estimated tokens of the next request: the conversation's messages, and `request`'s tools and system prompt. */
  estimate(conversation: Conversation, request: RequestShape = NO_TOOLS): number {
    const messages = conversation.messages;
    if (!this.freshFrom.has(conversation)) this.freshFrom.set(conversation, messages.length);
    const from = this.freshFrom.get(conversation)!;
    for (let i = messages.length - 1; i >= from; i--) {
      const usage = messages[i]!.usage;
      if (messages[i]!.role !== "assistant" || !usage) continue;
      const input = totalInputTokens(usage, conventionOf(this.options.provider().name)) + usage.output_tokens;
      if (input > 0) return estimateRequest(messages, request, { index: i, tokens: input });
    }
    return estimateRequest(messages, request);
  }

  async beforeRequest(conversation: Conversation, request: RequestShape, signal: AbortSignal): Promise<CompactionOutcome | undefined> {
    if (this.options.auto === false) return undefined;
    const before = this.estimate(conversation, request);
    if (before < MIN_TOKENS) return undefined;
    const window = await this.options.contextWindow();
    const limit = Math.floor((window * this.thresholdPercent) / 100);
    if (before <= limit) return undefined;
    return this.compact(conversation, { reason: "threshold", request, signal, window, target: limit, before });
  }

  async afterOverflow(conversation: Conversation, request: RequestShape, _error: ProviderError, signal: AbortSignal): Promise<CompactionOutcome | undefined> {
    const before = this.estimate(conversation, request);
    const window = await this.options.contextWindow();
    // The estimate fell short of what the server counted: aim well below both.
    const target = Math.min(Math.floor((window * this.thresholdPercent) / 100), Math.floor(before * 0.6));
    return this.compact(conversation, { reason: "overflow", request, signal, window, target, before });
  }

  /** `/compact [instructions]`: a summary now, whatever the size (the last turns kept as they are). */
  async compactNow(conversation: Conversation, signal: AbortSignal, instructions?: string, request: RequestShape = NO_TOOLS): Promise<CompactionOutcome> {
    const before = this.estimate(conversation, request);
    const window = await this.options.contextWindow();
    return this.compact(conversation, { reason: "manual", request, signal, window, target: 0, before, ...(instructions ? { instructions } : {}) });
  }

  private async compact(
    conversation: Conversation,
    job: { reason: CompactionReason; request: RequestShape; signal: AbortSignal; window: number; target: number; before: number; instructions?: string },
  ): Promise<CompactionOutcome> {
    const original = conversation.messages;
    const shapeTokens = estimateShape(job.request);
    // 1. Prune old tool outputs, oldest first, until the estimate is under the target.
    const pruned = job.reason === "manual" ? [] : pruneCandidates(original, job.before - job.target);
    let view = pruned.length > 0 ? applyCompaction(original, { replaces: 0, pruned }) : original;
    const afterPrune = estimateMessages(view) + shapeTokens;
    const gain = job.before - afterPrune;
    if (pruned.length > 0 && afterPrune <= job.target)
      return { applied: this.apply(conversation, { replaces: 0, pruned }, job, view) };

    // 2. A summary of the older messages, the recent ones kept.
    // Kept: what fits in 30 % of the window (after a refusal, the window figure may be wrong: also at most 30 % of the
    // refused request); on /compact, the last turn.
    const keep = job.reason === "overflow" ? Math.min(job.window * KEEP_RECENT_SHARE, job.before * 0.3) : job.window * KEEP_RECENT_SHARE;
    const cut = job.reason === "manual" ? lastTurnStart(view) : cutIndex(view, Math.floor(keep));
    const prunedOnly = (problem: string, usage?: Usage): CompactionOutcome => {
      const outcome: CompactionOutcome = { problem, ...(usage ? { usage } : {}) };
      if (pruned.length > 0 && gain > 0 && problem !== CANCELLED) outcome.applied = this.apply(conversation, { replaces: 0, pruned }, job, view);
      return outcome;
    };
    if (cut === undefined) return prunedOnly("there is nothing old enough to summarise: the recent turns alone fill the context");
    const older = view.slice(0, cut);
    const added = await this.options.instructions?.(job.reason, job.instructions, job.signal);
    const instructions = [job.instructions, added].filter((t) => t !== undefined && t !== "").join("\n\n");
    const request = summaryRequest(older, Math.floor(job.window * 0.5), instructions || undefined);
    const asked = await this.askSummary(request, job.signal);
    if ("problem" in asked) return prunedOnly(asked.problem, asked.usage);
    const summaryTokens = Math.ceil(asked.summary.length / CHARS_PER_TOKEN);
    const olderTokens = estimateMessages(older);
    if (summaryTokens >= olderTokens || summaryTokens > job.window * SUMMARY_MAX_SHARE)
      return prunedOnly(`the summary reply (about ${summaryTokens} tokens) was longer than it may be (it replaces about ${olderTokens}); it was not used`, asked.usage);
    const keptIds = new Set(view.slice(cut).flatMap((m) => m.content.flatMap((b) => (b.type === "tool_result" ? [b.tool_use_id] : []))));
    const change: CompactionChange = { summary: asked.summary, replaces: cut, pruned: pruned.filter((id) => keptIds.has(id)) };
    if (change.pruned!.length === 0) delete change.pruned;
    view = applyCompaction(original, change);
    return { applied: this.apply(conversation, change, job, view), ...(asked.usage ? { usage: asked.usage } : {}) };
  }

  private apply(conversation: Conversation, change: CompactionChange, job: { reason: CompactionReason; before: number; request: RequestShape }, view: Message[]): CompactionEvent {
    conversation.messages.splice(0, conversation.messages.length, ...view);
    this.freshFrom.set(conversation, conversation.messages.length);
    return { ...change, reason: job.reason, tokens_before: job.before, tokens_after: estimateMessages(view) + estimateShape(job.request) };
  }

  /** One summary call; its usage is reported whatever happens. */
  private async askSummary(request: Conversation, signal: AbortSignal): Promise<{ summary: string; usage?: Usage } | { problem: string; usage?: Usage }> {
    let usage: Usage | undefined;
    const spent = (u: Usage | undefined): void => {
      if (!u) return;
      usage = usage ? addUsage(usage, u) : u;
      this.options.onUsage?.(u);
    };
    const receiver: Receiver = {
      onMessageComplete: (message) => spent(message.usage),
      onRetry: (notice) => spent(notice.error.usage),
      onError: (error) => spent(error.usage),
    };
    let result;
    try {
      result = await this.options.provider().streamStep(request, receiver, { signal });
    } catch (e) {
      return { problem: `the summary request failed: ${e instanceof Error ? e.message : String(e)}` };
    }
    const withUsage = <T extends object>(value: T): T & { usage?: Usage } => (usage ? { ...value, usage } : value);
    if (!result.ok) return withUsage({ problem: result.error.kind === "aborted" ? CANCELLED : `the summary request failed: ${result.error.message}` });
    const summary = textOf(result.message).trim();
    if (summary === "") return withUsage({ problem: "the summary reply was empty; it was not used" });
    if (result.message.stop_reason === "max_tokens") return withUsage({ problem: "the summary reply was cut off (it reached the output limit); it was not used" });
    return withUsage({ summary });
  }
}

const CANCELLED = "the compaction was cancelled";

/** Tool outputs before the protected turns, oldest first, enough to free `needTokens` (all of them if not enough). */
function pruneCandidates(messages: readonly Message[], needTokens: number): string[] {
  const protectedFrom = protectedStart(messages);
  const ids: string[] = [];
  let freed = 0;
  for (let i = 0; i < protectedFrom && freed < needTokens; i++) {
    const message = messages[i]!;
    if (message.role !== "user") continue;
    for (const block of message.content) {
      if (block.type !== "tool_result" || block.content.length < PRUNE_MIN_CHARS || block.content.startsWith("[awl: this tool output")) continue;
      ids.push(block.tool_use_id);
      freed += Math.floor(block.content.length / CHARS_PER_TOKEN) - 30;
      if (freed >= needTokens) break;
    }
  }
  return ids;
}

/** Where the last {@link PROTECTED_TURNS} turns start: the index of that user prompt (a user message without tool results). */
function protectedStart(messages: readonly Message[]): number {
  let seen = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (isPrompt(messages[i]!) && ++seen === PROTECTED_TURNS) return i;
  }
  return 0;
}

/** Where the last turn starts (its user prompt), if an earlier message can be summarised. */
function lastTurnStart(messages: readonly Message[]): number | undefined {
  const firstContent = messages.findIndex((m) => m.role !== "system");
  for (let i = messages.length - 1; i > firstContent && firstContent !== -1; i--) if (isPrompt(messages[i]!)) return i;
  return cutIndex(messages, 0);
}

function isPrompt(message: Message): boolean {
  return message.role === "user" && !message.content.some((b) => b.type === "tool_result");
}

/**
 * Where the summary ends and the kept messages begin: the earliest index whose messages from there on fit in
 * `keepTokens`, among the indices where a cut separates no tool_use from its tool_result (before an assistant
 * message, or before a user prompt). At least one message before it is not a system message; undefined if none.
 */
function cutIndex(messages: readonly Message[], keepTokens: number): number | undefined {
  const firstContent = messages.findIndex((m) => m.role !== "system");
  if (firstContent === -1) return undefined;
  let kept = 0;
  let best: number | undefined;
  let latestValid: number | undefined;
  for (let k = messages.length - 1; k > firstContent; k--) {
    kept += Math.ceil(messageChars(messages[k]!) / CHARS_PER_TOKEN) + 4;
    const message = messages[k]!;
    const valid = message.role === "assistant" || isPrompt(message);
    if (!valid) continue;
    latestValid ??= k;
    if (kept <= keepTokens) best = k;
  }
  return best ?? latestValid;
}
