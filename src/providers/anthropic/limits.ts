/**
 * Anthropic's limits on output and thinking, shared by the request builder and the settings that check them
 * (kept apart from the request builder so the settings can check them without loading it).
 */

/** The smallest `budget_tokens` the Messages API accepts. */
export const MIN_THINKING_BUDGET = 1024;

/** Answer room suggested above a thinking budget when max tokens must be raised (the API requires max_tokens > budget). */
export const THINKING_ANSWER_TOKENS = 4096;

/**
 * Output room when none is configured, by model family: the Claude 3 models' own limits, and 32000 for
 * later Claude models (what Claude Code uses; their limits are 32k–128k). An unknown model name (a proxy
 * routing to something else) gets 8192, which every current model accepts.
 */
export function defaultMaxTokens(model: string): number {
  const name = model.toLowerCase();
  if (/claude-3-(opus|sonnet|haiku)|claude-2|claude-instant/.test(name)) return 4096;
  if (name.includes("claude-3-5")) return 8192;
  if (name.includes("claude")) return 32000;
  return 8192;
}
