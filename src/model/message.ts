import type { ContentBlock } from "./blocks.js";

export type Role = "system" | "user" | "assistant";

/** Normalised stop reasons (SPEC §3 rule 5); `unknown` keeps an unrecognised raw value honest instead of guessing. */
export type StopReason =
  | "end_turn"
  | "tool_use"
  | "max_tokens"
  | "content_filter"
  | "unknown"
  // Set by the agent, never by a provider:
  | "max_steps"
  | "cancelled"
  | "tool_crash"
  | "error";

/** Token usage in the snake_case names every JSON form of awl uses. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
  /** Of `output_tokens`, those spent reasoning (OpenAI Responses, Gemini), where the provider reports them. */
  reasoning_tokens?: number;
}

export interface Message {
  role: Role;
  content: ContentBlock[];
  /** Assistant messages only. */
  stop_reason?: StopReason;
  /** The provider's own value, kept beside the normalised one. */
  stop_reason_raw?: string;
  usage?: Usage;
}

/** Adds `b` into `a` (for turn totals). */
export function addUsage(a: Usage, b: Usage | undefined): Usage {
  if (!b) return a;
  const sum: Usage = {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
  };
  const read = (a.cache_read_input_tokens ?? 0) + (b.cache_read_input_tokens ?? 0);
  const created = (a.cache_creation_input_tokens ?? 0) + (b.cache_creation_input_tokens ?? 0);
  if (a.cache_read_input_tokens !== undefined || b.cache_read_input_tokens !== undefined) sum.cache_read_input_tokens = read;
  if (a.cache_creation_input_tokens !== undefined || b.cache_creation_input_tokens !== undefined)
    sum.cache_creation_input_tokens = created;
  if (a.reasoning_tokens !== undefined || b.reasoning_tokens !== undefined) sum.reasoning_tokens = (a.reasoning_tokens ?? 0) + (b.reasoning_tokens ?? 0);
  return sum;
}

export function emptyUsage(): Usage {
  return { input_tokens: 0, output_tokens: 0 };
}
