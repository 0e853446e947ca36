/** A Responses API outcome → awl's normalised stop reason (SPEC §3 rule 5), with the raw value kept beside it. */
import type { StopReason } from "../../model/message.js";

/**
 * `status` is the response's (`completed`, `incomplete`); `incompleteReason` is `incomplete_details.reason`
 * (`max_output_tokens`, `content_filter`). The raw value is the reason when there is one, else the status.
 */
export function mapResponsesStopReason(status: string | undefined, incompleteReason: string | undefined, hasToolCalls: boolean): StopReason {
  if (status === "completed") return hasToolCalls ? "tool_use" : "end_turn";
  if (status === "incomplete") {
    if (incompleteReason === "max_output_tokens") return "max_tokens";
    if (incompleteReason === "content_filter") return "content_filter";
  }
  return "unknown";
}
