/**
 * The seam between the agent loop and whatever keeps a long conversation inside the model's window (seed 003,
 * open question 4: the loop's shape does not change). The agent calls `beforeRequest` before every model call,
 * and `afterOverflow` once per call the provider refused as too long (kind `context_length`), retrying the call
 * once when it changed the conversation. An implementation rewrites `conversation.messages` (never cutting a
 * tool_use from its tool_result, SPEC §5) and never throws.
 */
import type { Conversation } from "../model/conversation.js";
import type { CompactionChange } from "../model/compaction.js";
import type { Usage } from "../model/message.js";
import type { ProviderError } from "../providers/errors.js";
import type { ToolSpec } from "../providers/types.js";

/** Why a compaction ran. */
export type CompactionReason = "threshold" | "overflow" | "manual";

/** A compaction that was applied to the conversation. */
export interface CompactionEvent extends CompactionChange {
  reason: CompactionReason;
  /** Estimated tokens of the next request before and after. */
  tokens_before: number;
  tokens_after: number;
}

/** What one attempt to compact came to. */
export interface CompactionOutcome {
  /** Set when the conversation was changed. */
  applied?: CompactionEvent;
  /** Why a summary was not used (an empty, cut-off or too long reply, a failed or cancelled call), in words. */
  problem?: string;
  /** Tokens the summary call was billed for (counted in the turn's usage). */
  usage?: Usage;
}

/** What a request sends besides its messages: the tool definitions and the system prompt. */
export interface RequestShape {
  tools: readonly ToolSpec[];
  system?: string;
}

export interface ContextLayer {
  /**
   * Before a model call: compacts when the request (its messages, and `request`'s tools and system prompt) would
   * pass the threshold. Undefined: nothing to do.
   */
  beforeRequest(conversation: Conversation, request: RequestShape, signal: AbortSignal): Promise<CompactionOutcome | undefined>;
  /** After a refusal as too long: compacts what it can (undefined or no `applied`: the error stands). */
  afterOverflow(conversation: Conversation, request: RequestShape, error: ProviderError, signal: AbortSignal): Promise<CompactionOutcome | undefined>;
}
