export { buildSystemPrompt, localDate, type SystemPromptInputs } from "./system-prompt.js";
export { findInstructionFiles, gitRoot, MAX_INSTRUCTION_BYTES, type InstructionFile } from "./instructions.js";
export { systemPromptFor, type SystemPromptOptions } from "./for-cwd.js";
