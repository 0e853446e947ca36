export { SubAgentToolSet, TASK_TOOL, DEFAULT_MAX_DEPTH, DEFAULT_SUB_AGENT_TOKENS } from "./task-tool.js";
export type { SubAgentOptions } from "./task-tool.js";
export { loadAgentDefinitions, readDefinition, resolveTools, agentFolders, GENERAL_PURPOSE, MAX_DEFINITION_BYTES } from "./definitions.js";
export type { AgentDefinition, AgentCatalog, AgentProblem, AgentFolders } from "./definitions.js";
export { ChildToolSet } from "./child-tools.js";
export { runSubAgent } from "./sub-agent.js";
export type { SubAgentRun, SubAgentDetails, SideSession } from "./sub-agent.js";
