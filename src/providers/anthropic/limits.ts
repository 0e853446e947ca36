/** Anthropic's limits on extended thinking, shared by the request builder and the settings that check them. */

/** The smallest `budget_tokens` the Messages API accepts. */
export const MIN_THINKING_BUDGET = 1024;

/** Answer room added above the thinking budget when max_tokens would not exceed it (the API requires max_tokens > budget). */
export const THINKING_ANSWER_TOKENS = 4096;
