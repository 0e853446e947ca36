/**
 * The flags of a run: one table drives the `awl` command's parsing and its `--help` (src/cli/options.ts), so a flag
 * added here is parsed and documented at once, and `awl acp` passes the same values on to each session's runtime.
 * Reference: docs/cli.md.
 */
import type { SettingsFlags } from "../config/settings.js";

export const OUTPUT_FORMATS = ["text", "json", "stream-json"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
export const INPUT_FORMATS = ["text", "stream-json"] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];

export interface FlagSpec {
  type: "string" | "boolean";
  short?: string;
  multiple?: boolean;
  /** Shown after the flag in --help, e.g. "NAME". */
  value?: string;
  help: string;
  group: "Modes" | "Model" | "Limits" | "Extensions" | "Permissions" | "Sessions" | "Replay" | "Other";
}

export const FLAGS = {
  print: { type: "boolean", short: "p", group: "Modes", help: "one turn, then exit: the prompt is the arguments plus piped stdin" },
  "output-format": { type: "string", value: "FORMAT", group: "Modes", help: "text (default), json (one object at the end) or stream-json (one event per line)" },
  "input-format": { type: "string", value: "FORMAT", group: "Modes", help: "text (default) or stream-json: one JSON message per stdin line, turn after turn (needs --output-format stream-json)" },
  provider: { type: "string", value: "NAME", group: "Model", help: "openai (any OpenAI-compatible server), openai-responses, gemini, anthropic, bedrock, google-vertex, google-vertex-anthropic or replay  [AWL_PROVIDER]" },
  model: { type: "string", value: "NAME", group: "Model", help: "model name  [AWL_MODEL]" },
  "base-url": { type: "string", value: "URL", group: "Model", help: "API endpoint, e.g. http://localhost:11434/v1  [AWL_BASE_URL]" },
  "max-retries": { type: "string", value: "N", group: "Limits", help: "retries of rate limits, overloads, 5xx, cut or stalled streams (default 3, 0 = off)" },
  "stall-timeout": { type: "string", value: "MS", group: "Limits", help: "a stream silent this long is retried (default 90000)" },
  "first-byte-timeout": { type: "string", value: "MS", group: "Limits", help: "no response this long after sending is retried (default 30000)" },
  "max-steps": { type: "string", value: "N", group: "Limits", help: "model calls per turn (default 50)" },
  "max-tokens": { type: "string", value: "N", group: "Limits", help: "output token limit per model call" },
  thinking: { type: "string", value: "MODE", group: "Limits", help: "Anthropic thinking: off, adaptive (Claude 4.6+) or a budget in tokens (default: the model's own)" },
  "thinking-budget": { type: "string", value: "N", group: "Limits", help: "the same as --thinking N" },
  "no-interleaved-thinking": { type: "boolean", group: "Limits", help: "with a thinking budget and tools, do not ask Claude to think between tool calls" },
  continue: { type: "boolean", short: "c", group: "Sessions", help: "continue the latest session of this directory" },
  resume: { type: "string", short: "r", value: "[ID]", group: "Sessions", help: "continue a saved session (an id or a unique prefix); alone, pick one from a list" },
  "no-session": { type: "boolean", group: "Sessions", help: "do not save this conversation" },
  fork: { type: "boolean", group: "Sessions", help: "with -r or -c: continue a copy of the session (its branch in use) under a new id" },
  "fork-session": { type: "boolean", group: "Sessions", help: "the same as --fork" },
  "extensions-dir": { type: "string", multiple: true, value: "DIR", group: "Extensions", help: "also load extensions from DIR (repeatable; before .awl/extensions and ~/.config/awl/extensions)" },
  "system-prompt": { type: "string", value: "TEXT|@FILE", group: "Model", help: "replace awl's default system prompt (AGENTS.md files are still added)" },
  "append-system-prompt": { type: "string", value: "TEXT|@FILE", group: "Model", help: "add text at the end of the system prompt" },
  "no-std-tools": { type: "boolean", group: "Extensions", help: "offer none of awl's bundled tools (read, write, edit, bash, grep, find, ls, task): only your extensions'" },
  "tool-timeout": { type: "string", value: "MS", group: "Extensions", help: "default handler timeout for tools that declare none (default 120000)" },
  "lua-workers": { type: "string", value: "N", group: "Extensions", help: "most Lua worker threads running tool calls at once (default: the CPU count)" },
  "lua-memory-mb": { type: "string", value: "MB", group: "Extensions", help: "memory cap of each Lua state (default 256)" },
  "permission-mode": { type: "string", value: "MODE", group: "Permissions", help: "default, accept-edits (writes inside the workspace run), plan (read tools only) or bypass" },
  allow: { type: "string", multiple: true, value: "RULE", group: "Permissions", help: 'allow calls for this run, e.g. "bash(git status)", "edit(src/**)" (repeatable; docs/permissions.md)' },
  deny: { type: "string", multiple: true, value: "RULE", group: "Permissions", help: "deny calls for this run (repeatable); deny beats allow" },
  "dangerously-skip-permissions": { type: "boolean", group: "Permissions", help: "bypass mode: run every tool call without asking (deny rules still hold)" },
  "trust-project": { type: "boolean", group: "Permissions", help: "trust this folder for this run: load its .awl/extensions, its allow rules and .mcp.json" },
  sandbox: { type: "boolean", group: "Permissions", help: "run every program the tools start inside bubblewrap: only the workspace and temp folder writable, no network unless a network rule allows it" },
  "approve-mcp-json": { type: "boolean", group: "Extensions", help: "start the MCP servers of this project's .mcp.json without asking (needed without a terminal)" },
  replay: { type: "string", value: "FILE", group: "Replay", help: "the script --provider replay plays (docs/replay-format.md)" },
  record: { type: "string", value: "FILE", group: "Replay", help: "append each assistant message to a replay script" },
  demo: { type: "boolean", group: "Other", help: "with no API key configured, play the offline demo instead of failing" },
  help: { type: "boolean", short: "h", group: "Other", help: "show this help" },
  version: { type: "boolean", short: "v", group: "Other", help: "print the version" },
} satisfies Record<string, FlagSpec>;

type FlagName = keyof typeof FLAGS;
/** Parsed flag values: strings for valued flags, booleans for switches. */
export type FlagValues = {
  [K in FlagName]?: (typeof FLAGS)[K]["type"] extends "boolean" ? boolean : (typeof FLAGS)[K] extends { multiple: true } ? string[] : string;
};

/** A run's command line: `awl`'s own, or `awl acp`'s, which each session's runtime reads as its own. */
export interface CliOptions {
  flags: FlagValues;
  /** Positional words, joined with spaces: the prompt. */
  prompt: string;
  outputFormat: OutputFormat;
  /** `stream-json`: prompts are read from stdin line by line (src/cli/stream-json-mode.ts). */
  inputFormat: InputFormat;
}

/** The settings-relevant flags, as src/config expects them. */
export function settingsFlags(flags: FlagValues): SettingsFlags {
  const out: SettingsFlags = {};
  const copy = (key: Exclude<keyof SettingsFlags, "noInterleavedThinking">, value: string | undefined): void => {
    if (value !== undefined) out[key] = value;
  };
  copy("provider", flags.provider);
  copy("model", flags.model);
  copy("baseUrl", flags["base-url"]);
  copy("maxRetries", flags["max-retries"]);
  copy("stallTimeout", flags["stall-timeout"]);
  copy("firstByteTimeout", flags["first-byte-timeout"]);
  copy("maxSteps", flags["max-steps"]);
  copy("maxTokens", flags["max-tokens"]);
  copy("thinking", flags.thinking);
  copy("thinkingBudget", flags["thinking-budget"]);
  if (flags["no-interleaved-thinking"]) out.noInterleavedThinking = true;
  copy("replay", flags.replay);
  return out;
}
