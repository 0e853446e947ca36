/** The figures awl knows of a model (docs/cost.md): what the catalogue and the config file's `models` describe. */

/** Prices in USD per million tokens, as exact decimal strings (a field left out is not known). */
export interface PriceTable {
  input?: string;
  output?: string;
  /** Cached input read (OpenAI "cached input", Anthropic cache hit, DeepSeek cache hit). */
  cache_read?: string;
  /** Cache write (Anthropic's 5-minute cache write). */
  cache_write?: string;
}

/** A catalogue entry as cost and the context window read it. */
export interface CatalogueEntry {
  context_window: number;
  max_output_tokens?: number;
  prices?: PriceTable;
  /** Prices for a request whose whole input is above `above_input_tokens` (Anthropic and Gemini long-context tiers). */
  long_context?: PriceTable & { above_input_tokens: number };
  /** A family run on local servers (local-families.ts): the server's own report of its window wins. */
  local?: true;
}
