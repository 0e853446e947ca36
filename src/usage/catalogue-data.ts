/**
 * The model catalogue: context window, output limit and prices of the models users run most, as the vendors
 * published them on {@link CATALOGUE_DATE}. Data only; `catalogue.ts` reads it. Prices are USD per million tokens,
 * written as decimal strings so costs are computed exactly. A field left out is not known (a cost that needs it is
 * "unknown", never a guess). Corrections or newer models: the config file's `models` key (docs/cost.md).
 *
 * Keys are matched after normalising both sides (lower case, `.` → `-`, a `vendor/` prefix dropped): a key
 * matches a name equal to it or continuing with `-`, `:` or `@` (dated and quantised variants), longest key first.
 * `local` marks families usually served by llama.cpp, Ollama, vLLM or LM Studio: what such a server reports it
 * loaded wins over the family's trained window, and no price is given (running them costs what the user's
 * hardware costs, and a hosted copy has its host's prices).
 */

/** When the figures below were checked against the vendors' pages. */
export const CATALOGUE_DATE = "2026-11-30";

/** Prices in USD per million tokens. */
export interface PriceTable {
  input?: string;
  output?: string;
  /** Cached input read (OpenAI "cached input", Anthropic cache hit, DeepSeek cache hit). */
  cache_read?: string;
  /** Cache write (Anthropic's 5-minute cache write). */
  cache_write?: string;
}

export interface CatalogueEntry {
  context_window: number;
  max_output_tokens?: number;
  prices?: PriceTable;
  /** Prices for a request whose whole input is above `above_input_tokens` (Anthropic and Gemini long-context tiers). */
  long_context?: PriceTable & { above_input_tokens: number };
  /** A family run on local servers: the server's own report of its window wins. */
  local?: true;
}

const anthropic = (input: string, output: string, read: string, write: string): PriceTable => ({ input, output, cache_read: read, cache_write: write });
const openai = (input: string, output: string, read?: string): PriceTable => ({ input, output, ...(read ? { cache_read: read } : {}) });

export const CATALOGUE: Readonly<Record<string, CatalogueEntry>> = {
  // OpenAI (platform.openai.com/docs/pricing; cached input is part of prompt_tokens)
  "gpt-5": { context_window: 400_000, max_output_tokens: 128_000, prices: openai("1.25", "10", "0.125") },
  "gpt-5.1": { context_window: 400_000, max_output_tokens: 128_000, prices: openai("1.25", "10", "0.125") },
  "gpt-5-mini": { context_window: 400_000, max_output_tokens: 128_000, prices: openai("0.25", "2", "0.025") },
  "gpt-5-nano": { context_window: 400_000, max_output_tokens: 128_000, prices: openai("0.05", "0.4", "0.005") },
  "gpt-4.1": { context_window: 1_047_576, max_output_tokens: 32_768, prices: openai("2", "8", "0.5") },
  "gpt-4.1-mini": { context_window: 1_047_576, max_output_tokens: 32_768, prices: openai("0.4", "1.6", "0.1") },
  "gpt-4.1-nano": { context_window: 1_047_576, max_output_tokens: 32_768, prices: openai("0.1", "0.4", "0.025") },
  "gpt-4o": { context_window: 128_000, max_output_tokens: 16_384, prices: openai("2.5", "10", "1.25") },
  "gpt-4o-mini": { context_window: 128_000, max_output_tokens: 16_384, prices: openai("0.15", "0.6", "0.075") },
  o3: { context_window: 200_000, max_output_tokens: 100_000, prices: openai("2", "8", "0.5") },
  "o3-mini": { context_window: 200_000, max_output_tokens: 100_000, prices: openai("1.1", "4.4", "0.55") },
  "o4-mini": { context_window: 200_000, max_output_tokens: 100_000, prices: openai("1.1", "4.4", "0.275") },
  "gpt-oss-120b": { context_window: 131_072, max_output_tokens: 131_072, local: true },
  "gpt-oss-20b": { context_window: 131_072, max_output_tokens: 131_072, local: true },

  // Anthropic (docs.claude.com pricing; cache write = the 5-minute write; input_tokens exclude cache reads/writes)
  "claude-opus-4-5": { context_window: 200_000, max_output_tokens: 64_000, prices: anthropic("5", "25", "0.5", "6.25") },
  "claude-opus-4-1": { context_window: 200_000, max_output_tokens: 32_000, prices: anthropic("15", "75", "1.5", "18.75") },
  "claude-opus-4": { context_window: 200_000, max_output_tokens: 32_000, prices: anthropic("15", "75", "1.5", "18.75") },
  "claude-sonnet-4-5": {
    context_window: 200_000,
    max_output_tokens: 64_000,
    prices: anthropic("3", "15", "0.3", "3.75"),
    long_context: { above_input_tokens: 200_000, ...anthropic("6", "22.5", "0.6", "7.5") },
  },
  "claude-sonnet-4": {
    context_window: 200_000,
    max_output_tokens: 64_000,
    prices: anthropic("3", "15", "0.3", "3.75"),
    long_context: { above_input_tokens: 200_000, ...anthropic("6", "22.5", "0.6", "7.5") },
  },
  "claude-haiku-4-5": { context_window: 200_000, max_output_tokens: 64_000, prices: anthropic("1", "5", "0.1", "1.25") },
  "claude-3-7-sonnet": { context_window: 200_000, max_output_tokens: 64_000, prices: anthropic("3", "15", "0.3", "3.75") },
  "claude-3-5-sonnet": { context_window: 200_000, max_output_tokens: 8_192, prices: anthropic("3", "15", "0.3", "3.75") },
  "claude-3-5-haiku": { context_window: 200_000, max_output_tokens: 8_192, prices: anthropic("0.8", "4", "0.08", "1") },
  "claude-3-haiku": { context_window: 200_000, max_output_tokens: 4_096, prices: anthropic("0.25", "1.25", "0.03", "0.3") },
  "claude-3-opus": { context_window: 200_000, max_output_tokens: 4_096, prices: anthropic("15", "75", "1.5", "18.75") },

  // DeepSeek (api-docs.deepseek.com pricing, V3.2; cache hits are part of prompt_tokens)
  "deepseek-chat": { context_window: 128_000, max_output_tokens: 8_192, prices: openai("0.28", "0.42", "0.028") },
  "deepseek-reasoner": { context_window: 128_000, max_output_tokens: 65_536, prices: openai("0.28", "0.42", "0.028") },

  // Gemini through its OpenAI-compatible endpoint (ai.google.dev pricing; the >200K tier applies to 2.5 Pro)
  "gemini-2.5-pro": {
    context_window: 1_048_576,
    max_output_tokens: 65_536,
    prices: openai("1.25", "10", "0.125"),
    long_context: { above_input_tokens: 200_000, ...openai("2.5", "15", "0.25") },
  },
  "gemini-2.5-flash": { context_window: 1_048_576, max_output_tokens: 65_536, prices: openai("0.3", "2.5", "0.03") },
  "gemini-2.5-flash-lite": { context_window: 1_048_576, max_output_tokens: 65_536, prices: openai("0.1", "0.4", "0.01") },
  "gemini-2.0-flash": { context_window: 1_048_576, max_output_tokens: 8_192, prices: openai("0.1", "0.4", "0.025") },

  // Mistral (mistral.ai/pricing; the -latest aliases)
  "mistral-large": { context_window: 128_000, max_output_tokens: 128_000, prices: openai("2", "6") },
  "mistral-medium": { context_window: 128_000, max_output_tokens: 128_000, prices: openai("0.4", "2") },
  "mistral-small": { context_window: 128_000, max_output_tokens: 128_000, prices: openai("0.1", "0.3") },
  codestral: { context_window: 256_000, max_output_tokens: 256_000, prices: openai("0.3", "0.9") },
  "devstral-medium": { context_window: 128_000, max_output_tokens: 128_000, prices: openai("0.4", "2") },
  "devstral-small": { context_window: 128_000, max_output_tokens: 128_000, prices: openai("0.1", "0.3") },

  // Local families (Ollama, llama.cpp, vLLM, LM Studio names): the trained window; the server's report wins.
  "qwen3-coder": { context_window: 262_144, local: true },
  qwen3: { context_window: 40_960, local: true },
  "qwen2.5-coder": { context_window: 32_768, local: true },
  "qwen2.5": { context_window: 32_768, local: true },
  "llama3.1": { context_window: 131_072, local: true },
  "llama3.2": { context_window: 131_072, local: true },
  "llama3.3": { context_window: 131_072, local: true },
  "llama-3.1": { context_window: 131_072, local: true },
  "llama-3.3": { context_window: 131_072, local: true },
  gemma3: { context_window: 131_072, local: true },
  "gemma-3": { context_window: 131_072, local: true },
  devstral: { context_window: 131_072, local: true },
  "mistral-nemo": { context_window: 131_072, local: true },
  "deepseek-r1": { context_window: 131_072, local: true },
  phi4: { context_window: 16_384, local: true },
};
