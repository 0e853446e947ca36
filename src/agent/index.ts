export { Agent, DEFAULT_MAX_STEPS, crashReport } from "./agent.js";
export type { AgentOptions, SystemPrompt, ToolCrash, TurnReceiver, TurnResult } from "./agent.js";
export { answerUnansweredToolUses, UNANSWERED_RESULT } from "./invariant.js";
export { resultFor } from "./tool-batch.js";
export type { ContextLayer, CompactionEvent, CompactionOutcome, CompactionReason, RequestShape } from "./context-layer.js";
