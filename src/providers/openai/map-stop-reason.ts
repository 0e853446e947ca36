/** OpenAI `finish_reason` → awl's normalised stop reason (SPEC §3 rule 5); unknown values stay honest as "unknown". */
import type { StopReason } from "../../model/message.js";

/**
 * Maps a raw finish reason. `hasToolCalls` fixes servers that finish a tool-calling message with "stop"
 * (Ollama's OpenAI endpoint does): with tool calls present, "stop" means the model is waiting for results.
 */
export function mapOpenAIStopReason(raw: string | undefined, hasToolCalls: boolean): StopReason {
  switch (raw) {
    case "stop":
      return hasToolCalls ? "tool_use" : "end_turn";
    case "tool_calls":
    case "function_call":
      return "tool_use";
    case "length":
      return "max_tokens";
    case "content_filter":
      return "content_filter";
    default:
      return "unknown";
  }
}
