/**
 * The events a turn of an `AgentSession` yields: one discriminated union on `type`, carrying every receiver
 * call of the turn (SPEC §3 order within each model message), the tools' lives, and the end of the turn.
 * `eventReceiver` turns receiver calls into events; `replayEvent` turns events back into receiver calls, so a
 * consumer written as a `TurnReceiver` (e.g. the stream-json writer) reads a session's events unchanged.
 */
import type { TurnReceiver, TurnResult } from "../agent/agent.js";
import type { ContentBlock, ContentBlockType, ToolResultBlock } from "../model/blocks.js";
import type { Message, Role } from "../model/message.js";
import type { ProviderError } from "../providers/errors.js";
import type { BlockMeta, RetryNotice, ServerToolUse } from "../providers/types.js";
import type { ToolCall, ToolOutcome, ToolProgress } from "../tools/types.js";
import type { MeterSnapshot } from "../usage/meter.js";

/** One thing that happened in a turn. Readers should ignore types they do not know (more may come). */
export type TurnEvent =
  /** A model call started streaming a message (again, after a `retry`). */
  | { type: "message_start"; role: Role }
  /** A block started; `meta` names the tool for tool_use blocks. */
  | { type: "block_start"; index: number; block_type: ContentBlockType; meta?: BlockMeta }
  /** A fragment of the answer's text. */
  | { type: "text_delta"; index: number; text: string }
  /** A fragment of the model's thinking. */
  | { type: "thinking_delta"; index: number; thinking: string }
  /** A fragment of a tool call's input JSON. */
  | { type: "tool_input_delta"; index: number; json: string }
  | { type: "block_complete"; index: number; block: ContentBlock }
  /** The provider ran one of its own tools (its web search) here, between the blocks before and after. */
  | { type: "server_tool"; use: ServerToolUse }
  | { type: "message_complete"; message: Message }
  /** The call is retried: what streamed since the last `message_start` is void. */
  | { type: "retry"; notice: RetryNotice }
  /** A model call failed (the turn then ends with stop reason `error` or `cancelled`). */
  | { type: "error"; error: ProviderError }
  | { type: "tool_start"; call: ToolCall }
  | { type: "tool_progress"; call: ToolCall; update: ToolProgress }
  | { type: "tool_end"; call: ToolCall; outcome: ToolOutcome; result: ToolResultBlock }
  /** A message was added to the conversation (assistant messages, tool-result messages), in order. */
  | { type: "message_appended"; message: Message }
  /** The turn is over: always the last event of a turn. */
  | { type: "turn_end"; prompt: Message; result: TurnResult; session_id?: string; meter?: MeterSnapshot };

/** A receiver that hands every call to `emit` as an event; deltas are typed by the block they belong to. */
export function eventReceiver(emit: (event: TurnEvent) => void): TurnReceiver {
  // Block types of the message streaming now, by index (a retry starts a new message).
  let types: ContentBlockType[] = [];
  return {
    onMessageStart(role) {
      types = [];
      emit({ type: "message_start", role });
    },
    onBlockStart(type, index, meta) {
      types[index] = type;
      emit(meta ? { type: "block_start", index, block_type: type, meta } : { type: "block_start", index, block_type: type });
    },
    onContentDelta(index, delta) {
      const type = types[index];
      if (type === "thinking") emit({ type: "thinking_delta", index, thinking: delta });
      else if (type === "tool_use") emit({ type: "tool_input_delta", index, json: delta });
      else emit({ type: "text_delta", index, text: delta });
    },
    onBlockComplete: (index, block) => emit({ type: "block_complete", index, block }),
    onServerTool: (use) => emit({ type: "server_tool", use }),
    onMessageComplete: (message) => emit({ type: "message_complete", message }),
    onRetry: (notice) => emit({ type: "retry", notice }),
    onError: (error) => emit({ type: "error", error }),
    onToolStart: (call) => emit({ type: "tool_start", call }),
    onToolProgress: (call, update) => emit({ type: "tool_progress", call, update }),
    onToolEnd: (call, outcome, result) => emit({ type: "tool_end", call, outcome, result }),
    onMessageAppended: (message) => emit({ type: "message_appended", message }),
  };
}

/** Calls the receiver method `event` came from (nothing for `turn_end`, which no receiver method carries). */
export function replayEvent(event: TurnEvent, receiver: TurnReceiver): void {
  switch (event.type) {
    case "message_start":
      return receiver.onMessageStart?.(event.role);
    case "block_start":
      return receiver.onBlockStart?.(event.block_type, event.index, event.meta);
    case "text_delta":
      return receiver.onContentDelta?.(event.index, event.text);
    case "thinking_delta":
      return receiver.onContentDelta?.(event.index, event.thinking);
    case "tool_input_delta":
      return receiver.onContentDelta?.(event.index, event.json);
    case "block_complete":
      return receiver.onBlockComplete?.(event.index, event.block);
    case "server_tool":
      return receiver.onServerTool?.(event.use);
    case "message_complete":
      return receiver.onMessageComplete?.(event.message);
    case "retry":
      return receiver.onRetry?.(event.notice);
    case "error":
      return receiver.onError?.(event.error);
    case "tool_start":
      return receiver.onToolStart?.(event.call);
    case "tool_progress":
      return receiver.onToolProgress?.(event.call, event.update);
    case "tool_end":
      return receiver.onToolEnd?.(event.call, event.outcome, event.result);
    case "message_appended":
      return receiver.onMessageAppended?.(event.message);
    case "turn_end":
      return;
  }
}
