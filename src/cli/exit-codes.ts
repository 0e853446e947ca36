/** The `awl` command's exit codes (docs/cli.md, "Exit codes"). */
import type { StopReason } from "../model/message.js";

export const EXIT = {
  /** The model finished its answer (any model stop reason: end_turn, max_tokens, content_filter, unknown). */
  ok: 0,
  /** A provider or runtime error: auth, rate limit after retries, server, network, truncated, stalled, … */
  error: 1,
  /** Bad usage or configuration: unknown flag, bad value, missing key or model, unreadable config or script. */
  usage: 2,
  /** An extension crashed while running a tool. */
  toolCrash: 3,
  /** The turn hit --max-steps. */
  maxSteps: 4,
  /** Cancelled by Ctrl-C (128 + SIGINT). */
  cancelled: 130,
} as const;

export function exitCodeFor(stopReason: StopReason, errorKind?: string): number {
  switch (stopReason) {
    case "error":
      return errorKind === "config" ? EXIT.usage : EXIT.error;
    case "tool_crash":
      return EXIT.toolCrash;
    case "max_steps":
      return EXIT.maxSteps;
    case "cancelled":
      return EXIT.cancelled;
    default:
      return EXIT.ok;
  }
}
