/**
 * Anthropic `stop_reason` → awl's normalised stop reason (SPEC §3 rule 5). The raw value is always kept
 * beside it by the caller; a value this table does not know maps to `unknown` and never throws.
 */
import type { StopReason } from "../../model/message.js";

const STOP_REASONS: Readonly<Record<string, StopReason>> = {
  end_turn: "end_turn",
  tool_use: "tool_use",
  max_tokens: "max_tokens",
  // The model hit a caller-supplied stop sequence: the turn ended normally.
  stop_sequence: "end_turn",
  refusal: "content_filter",
  // The context window filled up mid-answer: the same situation as running out of max_tokens.
  model_context_window_exceeded: "max_tokens",
};

export function mapStopReason(raw: string | undefined): StopReason {
  return (raw !== undefined && Object.hasOwn(STOP_REASONS, raw) ? STOP_REASONS[raw] : undefined) ?? "unknown";
}
