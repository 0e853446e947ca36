/**
 * `--output-format json` and `stream-json` (docs/cli.md, "Output formats"). stdout carries JSON only:
 * stream-json one event per line as it happens, and both end with the same result object.
 */
import type { TurnReceiver, TurnResult } from "../../agent/agent.js";
import type { CompactionOutcome } from "../../agent/context-layer.js";
import type { ContentBlock, ContentBlockType, ToolResultBlock } from "../../model/blocks.js";
import { blockToJSON, messageToJSON, type MessageJSON } from "../../model/json.js";
import type { Message, Role, StopReason, Usage } from "../../model/message.js";
import type { ProviderError } from "../../providers/errors.js";
import type { BlockMeta, RetryNotice, ServerToolUse } from "../../providers/types.js";
import type { ToolCall, ToolOutcome, ToolProgress } from "../../tools/types.js";
import type { MeterSnapshot } from "../../usage/meter.js";
import type { Writer } from "../../ui/output/output-order.js";
import type { DeniedCall } from "../../permissions/tool-set.js";

/** The documented error object: all five keys, `null` where there is no value. */
export interface ErrorJSON {
  kind: string;
  retryable: boolean;
  status: number | null;
  retry_after_ms: number | null;
  message: string;
}

export interface ResultJSON {
  type: "result";
  messages: MessageJSON[];
  stop_reason: StopReason;
  usage: Usage;
  error?: ErrorJSON;
  /** The saved session, for `awl -r ID` (absent with `--no-session`). */
  session_id?: string;
  crashes?: { tool_use_id: string; tool: string; extension: string; message: string; traceback: string }[];
  /** Calls denied because awl could not ask (docs/permissions.md): each with why and the rules that would allow it. */
  permission_denials?: DeniedCall[];
  /** This turn's cost in USD; null when a price is not known (docs/cost.md). */
  cost_usd?: number | null;
  /** The session's cost so far, this turn and every earlier one (a resumed session's too); null when unknown. */
  total_cost_usd?: number | null;
  /** Why a cost is null. */
  cost_note?: string;
  context?: ContextJSON;
}

/** How full the context window is after the turn. */
export interface ContextJSON {
  model: string;
  /** Tokens the conversation holds, from the last call's usage; null before any call reported usage. */
  tokens: number | null;
  window: number;
  /** Where the window came from: `config`, `catalogue`, `server` or `default`. */
  window_source: string;
  percent: number | null;
}

/** The cost and context fields of the result object, from the usage meter. */
export function usageJSON(snapshot: MeterSnapshot): Pick<ResultJSON, "cost_usd" | "total_cost_usd" | "cost_note" | "context"> {
  const cost = (text: string | undefined): number | null => (text === undefined ? null : Number(text));
  const out: Pick<ResultJSON, "cost_usd" | "total_cost_usd" | "cost_note" | "context"> = {
    cost_usd: cost(snapshot.turn.cost_usd),
    total_cost_usd: cost(snapshot.session.cost_usd),
  };
  const note = snapshot.turn.unknown_reason ?? snapshot.session.unknown_reason;
  if (note) out.cost_note = note;
  out.context = {
    model: snapshot.model,
    tokens: snapshot.context_tokens ?? null,
    window: snapshot.context_window,
    window_source: snapshot.context_source,
    percent: snapshot.context_percent ?? null,
  };
  return out;
}

export function errorJSON(error: ProviderError): ErrorJSON {
  return {
    kind: error.kind,
    retryable: error.retryable,
    status: error.status ?? null,
    retry_after_ms: error.retry_after_ms ?? null,
    message: error.message,
  };
}

/** The object that ends both JSON modes: the prompt and the turn's new messages, stop reason, usage, error. */
export function resultJSON(
  prompt: Message | undefined,
  result: Pick<TurnResult, "stop_reason" | "messages" | "usage" | "error" | "crashes">,
  sessionId?: string,
  usage?: MeterSnapshot,
  denials: readonly DeniedCall[] = [],
): ResultJSON {
  const out: ResultJSON = {
    type: "result",
    messages: [...(prompt ? [prompt] : []), ...result.messages].map(messageToJSON),
    stop_reason: result.stop_reason,
    usage: { ...result.usage },
  };
  if (result.error) out.error = errorJSON(result.error);
  if (sessionId !== undefined) out.session_id = sessionId;
  if (usage) Object.assign(out, usageJSON(usage));
  if (result.crashes.length > 0) {
    out.crashes = result.crashes.map((c) => ({
      tool_use_id: c.call.id,
      tool: c.call.name,
      extension: c.extension,
      message: c.message,
      traceback: c.traceback,
    }));
  }
  if (denials.length > 0) out.permission_denials = [...denials];
  return out;
}

/** The result object for a failure before any turn ran (e.g. configuration). */
export function failureJSON(error: ProviderError): ResultJSON {
  return resultJSON(undefined, { stop_reason: "error", messages: [], usage: { input_tokens: 0, output_tokens: 0 }, error, crashes: [] });
}

/** JSON text for one line; U+2028/U+2029 escaped so line-oriented readers never split it. */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value).replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029") + "\n";
}

/** `stream-json`: every receiver call becomes one event line on `out`. */
export class StreamJsonWriter implements TurnReceiver {
  constructor(private readonly out: Writer) {}

  private emit(event: Record<string, unknown>): void {
    this.out.write(jsonLine(event));
  }

  onMessageStart(role: Role): void {
    this.emit({ type: "message_start", role });
  }

  onBlockStart(type: ContentBlockType, index: number, meta?: BlockMeta): void {
    this.emit({ type: "block_start", index, block_type: type, ...(meta ? { tool_use_id: meta.tool_id, tool_name: meta.tool_name } : {}) });
  }

  onContentDelta(index: number, delta: string): void {
    this.emit({ type: "delta", index, delta });
  }

  onBlockComplete(index: number, block: ContentBlock): void {
    this.emit({ type: "block_complete", index, block: blockToJSON(block) });
  }

  onMessageComplete(message: Message): void {
    this.emit({ type: "message_complete", message: messageToJSON(message) });
  }

  onServerTool(use: ServerToolUse): void {
    this.emit({ type: "server_tool", id: use.id, name: use.name, input: use.input, ...(use.error !== undefined && { error: use.error }) });
  }

  onRetry(notice: RetryNotice): void {
    this.emit({ type: "retry", attempt: notice.attempt, max_retries: notice.max_retries, delay_ms: notice.delay_ms, error: errorJSON(notice.error) });
  }

  onError(error: ProviderError): void {
    this.emit({ type: "error", error: errorJSON(error) });
  }

  onCompaction(outcome: CompactionOutcome): void {
    const event: Record<string, unknown> = { type: "compaction" };
    if (outcome.applied) {
      const { summary, replaces, pruned, reason, tokens_before, tokens_after } = outcome.applied;
      Object.assign(event, { reason, replaces, pruned: pruned ?? [], tokens_before, tokens_after, ...(summary !== undefined ? { summary } : {}) });
    }
    if (outcome.problem) event.problem = outcome.problem;
    if (outcome.usage) event.usage = outcome.usage;
    this.emit(event);
  }

  onToolStart(call: ToolCall): void {
    this.emit({ type: "tool_start", tool_use_id: call.id, name: call.name, input: blockToJSON({ type: "tool_use", ...call }).input });
  }

  onToolProgress(call: ToolCall, update: ToolProgress): void {
    this.emit({ type: "tool_progress", tool_use_id: call.id, name: call.name, update });
  }

  onToolEnd(call: ToolCall, outcome: ToolOutcome, result: ToolResultBlock): void {
    if (outcome.status === "crash") {
      this.emit({ type: "tool_crash", tool_use_id: call.id, name: call.name, extension: outcome.extension, message: outcome.message, traceback: outcome.traceback });
    }
    this.emit({ type: "tool_end", tool_use_id: call.id, name: call.name, status: outcome.status, result });
  }
}
