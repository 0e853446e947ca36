/** The system prompt for a working directory as awl runs there: its environment, instruction files and tools. */
import { basename } from "node:path";
import { findInstructionFiles, gitRoot, type InstructionFile } from "./instructions.js";
import { buildSystemPrompt, localDate } from "./system-prompt.js";

export interface SystemPromptOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Names of the tools offered to the model. */
  tools: readonly string[];
  /** Replaces the default text; the instruction files still follow. */
  replace?: string | undefined;
  /** Added at the end. */
  append?: string | undefined;
  /** Default: now. Only its day goes into the prompt. */
  now?: Date;
}

/** The prompt, and the instruction files it holds (for `awl config`). */
export function systemPromptFor(options: SystemPromptOptions): { text: string; instructions: InstructionFile[] } {
  const instructions = findInstructionFiles(options.cwd, options.env);
  const text = buildSystemPrompt({
    cwd: options.cwd,
    gitRoot: gitRoot(options.cwd),
    platform: `${process.platform} ${process.arch}`,
    shell: options.env.SHELL ? basename(options.env.SHELL) : "sh",
    date: localDate(options.now ?? new Date()),
    tools: options.tools,
    instructions,
    replace: options.replace,
    append: options.append,
  });
  return { text, instructions };
}
