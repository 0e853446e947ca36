export { AgentSession, createAgentSession } from "./agent-session.js";
export type { AgentSessionOptions, PromptContent, TurnOptions, TurnRunner } from "./agent-session.js";
export { Turn, type TurnEnd } from "./turn.js";
export { eventReceiver, replayEvent, type TurnEvent } from "./events.js";
export type { BranchPrompt, FileChangeCounts, RestoreChanges, RewindMode, RewindOutcome, RewindPoint, RewindRequest, SessionBranching } from "./branching.js";
