/** One-line notices shared by every output mode (retries, tool crashes, turn endings). */
import { crashReport, type TurnResult } from "../../agent/agent.js";
import type { AwlSettings } from "../../config/settings.js";
import type { RetryNotice } from "../../providers/types.js";
import type { CompactionOutcome } from "../../agent/context-layer.js";
import { describeProviderError, formatUserMessage } from "../error-text.js";

/** The line a compaction leaves (applied, or why a summary was not used). */
export function compactionText(outcome: CompactionOutcome): string {
  const lines: string[] = [];
  const applied = outcome.applied;
  if (applied) {
    const what = [
      applied.pruned?.length ? `pruned ${applied.pruned.length} old tool ${applied.pruned.length === 1 ? "output" : "outputs"}` : "",
      applied.summary !== undefined ? `summarised ${applied.replaces} earlier ${applied.replaces === 1 ? "message" : "messages"}` : "",
    ].filter(Boolean);
    const why = applied.reason === "overflow" ? " after the model refused it as too long" : applied.reason === "manual" ? "" : " (near the context window's limit)";
    lines.push(`awl: compacted the conversation${why}: ${what.join(", ")}; about ${applied.tokens_before} → ${applied.tokens_after} tokens\n`);
  }
  if (outcome.problem) lines.push(`awl: ${outcome.problem}${applied ? "" : "; the conversation is unchanged"}\n`);
  return lines.join("");
}

export function retryText(notice: RetryNotice): string {
  const status = notice.error.status !== undefined ? ` (HTTP ${notice.error.status})` : "";
  return `awl: ${notice.error.kind.replace("_", " ")}${status}; retry ${notice.attempt}/${notice.max_retries} in ${(notice.delay_ms / 1000).toFixed(1)} s\n`;
}

/** What stderr says when a turn ends other than normally; "" when it ended normally. */
export function turnEndText(result: TurnResult, settings: AwlSettings): string {
  switch (result.stop_reason) {
    case "error":
      return result.error ? formatUserMessage(describeProviderError(result.error, settings)) : "awl: the turn failed\n";
    case "tool_crash":
      return result.crashes.map((c) => `awl: ${crashReport(c)}\n`).join("");
    case "max_steps":
      return formatUserMessage({ message: `stopped after ${settings.maxSteps} model calls in one turn`, hint: "raise --max-steps if the task needs more" });
    case "cancelled":
      return "awl: cancelled\n";
    case "max_tokens":
      return formatUserMessage({ message: "the answer hit the output token limit", hint: "raise --max-tokens" });
    default:
      return "";
  }
}
