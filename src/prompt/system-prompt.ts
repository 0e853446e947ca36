/**
 * The system prompt (SPEC §9): a short default saying who the assistant is, where it runs and how to use the tools
 * it has, then the instruction files, then any appended text. Pure and deterministic: the same inputs give the
 * same bytes (the date has no clock finer than the day), so prompt caches hit from turn to turn and run to run.
 */
import type { InstructionFile } from "./instructions.js";

export interface SystemPromptInputs {
  cwd: string;
  /** The git repository's root, when the working directory is inside one. */
  gitRoot?: string | undefined;
  /** e.g. "linux x64". */
  platform: string;
  /** e.g. "bash". */
  shell: string;
  /** The local date, `YYYY-MM-DD`. */
  date: string;
  /** Names of the tools offered: only their advice is given. */
  tools: readonly string[];
  instructions: readonly InstructionFile[];
  /** Replaces the default text (`--system-prompt`; `""` sends none of it); the instruction files still follow. */
  replace?: string | undefined;
  /** Added at the end (`--append-system-prompt`). */
  append?: string | undefined;
}

/** Advice per tool, in this order, for the tools that are offered. */
const TOOL_ADVICE: readonly [tools: readonly string[], text: string][] = [
  [["ls", "find", "grep"], "Explore with ls, find and grep before you change anything."],
  [["read"], "Read a file before you edit it, and read only the part you need of a big one."],
  [["edit", "write"], "Change files with edit, or write for a whole new file, not through bash."],
  [["bash"], "bash runs builds, tests, git and other programs; it has no stdin, so give commands non-interactive flags."],
  [["exit_plan"], "Plan mode is on: explore with the read tools only, change nothing, and end with exit_plan and your plan for the user to approve."],
];

/** `YYYY-MM-DD` of a date, in local time. */
export function localDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

export function buildSystemPrompt(inputs: SystemPromptInputs): string {
  const parts: string[] = [];
  const own = inputs.replace !== undefined ? inputs.replace.trim() : defaultPrompt(inputs);
  if (own !== "") parts.push(own);
  if (inputs.instructions.length > 0) {
    const files = inputs.instructions.map((file) => {
      const cut = file.truncated ? "\n[awl: this file is cut here; it is longer than awl sends]" : "";
      return `## ${file.path}\n\n${file.text}${cut}`;
    });
    parts.push(`# Instructions (from these files; a later one wins over an earlier one)\n\n${files.join("\n\n")}`);
  }
  if (inputs.append?.trim()) parts.push(inputs.append.trim());
  return parts.join("\n\n");
}

function defaultPrompt(inputs: SystemPromptInputs): string {
  const offered = new Set(inputs.tools);
  const advice = TOOL_ADVICE.filter(([tools]) => tools.some((t) => offered.has(t))).map(([, text]) => `- ${text}`);
  if (inputs.tools.length > 1) advice.push("- Calls that do not depend on each other can go in one reply: they run in parallel.");
  const lines = [
    "You are awl, a coding agent in the user's terminal. You help with their software project by reading, changing and running things with your tools.",
    "",
    `Working directory: ${inputs.cwd}`,
    `Git repository: ${inputs.gitRoot ? `yes, root ${inputs.gitRoot}` : "no"}`,
    `Platform: ${inputs.platform}; shell: ${inputs.shell}`,
    `Date: ${inputs.date}`,
  ];
  if (advice.length > 0) lines.push("", ...advice);
  lines.push("", "Be concise. Say what you changed and what is left. Ask before destructive actions, or when a request is unclear.");
  return lines.join("\n");
}
