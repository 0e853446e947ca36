/**
 * The cost of model calls in exact decimals: prices are decimal strings per million tokens, costs whole numbers of
 * pico-dollars (10⁻¹² USD) as bigints, so sums never drift (0.1 + 0.2 is 0.3 here). A call whose price awl does not
 * know, or whose usage does not add up, has no cost: "unknown", with the reason, never a guess.
 *
 * How usage maps to prices differs by wire API:
 * - Anthropic: `input_tokens` excludes the cache; cache reads and writes are priced on their own.
 * - OpenAI-compatible (OpenAI, DeepSeek, Gemini, OpenRouter...): `input_tokens` includes the cached tokens
 *   (`cache_read_input_tokens` is the part of it read from the cache, priced at the cache rate).
 * A long-context tier (Claude Sonnet 4/4.5, Gemini 2.5 Pro above 200K input tokens) prices the whole call when its
 * input passes the tier's threshold.
 */
import type { Usage } from "../model/message.js";
import type { ModelInfo, PriceTable } from "./catalogue.js";

/** Which usage convention a provider reports in (see the file comment). */
export type UsageConvention = "anthropic" | "openai";

export type CallCost = { ok: true; pico: bigint } | { ok: false; reason: string };

const PICO_PER_USD = 10n ** 12n;
/** A price per million tokens with this many decimals is a whole number of pico-dollars per token. */
const PRICE_DECIMALS = 6;
const PRICE_TEXT = /^\d+(\.\d{1,6})?$/;

/** True when `text` is a price awl can compute exactly with (a plain decimal, at most 6 decimals). */
export function isPriceText(text: string): boolean {
  return PRICE_TEXT.test(text);
}

/** Pico-dollars per token for a price in USD per million tokens ("2.5" → 2 500 000). */
export function picoPerToken(price: string): bigint {
  if (!isPriceText(price)) throw new Error(`not a price: ${JSON.stringify(price)}`);
  const [whole, fraction = ""] = price.split(".");
  return BigInt(whole!) * 10n ** BigInt(PRICE_DECIMALS) + BigInt(fraction.padEnd(PRICE_DECIMALS, "0"));
}

/** Input tokens of a call as the window counts them (the cache included). */
export function totalInputTokens(usage: Usage, convention: UsageConvention): number {
  if (convention === "openai") return usage.input_tokens;
  return usage.input_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);
}

/** Why a usage report cannot be right, or undefined when it adds up. */
export function usageProblem(usage: Usage, convention: UsageConvention): string | undefined {
  const fields: Array<[string, number | undefined]> = [
    ["input_tokens", usage.input_tokens],
    ["output_tokens", usage.output_tokens],
    ["cache_read_input_tokens", usage.cache_read_input_tokens],
    ["cache_creation_input_tokens", usage.cache_creation_input_tokens],
  ];
  for (const [name, value] of fields)
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) return `${name} is ${value}, not a whole number ≥ 0`;
  if (convention === "openai" && (usage.cache_read_input_tokens ?? 0) > usage.input_tokens)
    return `${usage.cache_read_input_tokens} cached tokens out of ${usage.input_tokens} input tokens`;
  return undefined;
}

/**
 * The cost of one model call, or why it is unknown. `longContext` says whether the long-context prices apply
 * (a sum of calls knows it from how it was bucketed); by default the call's own input decides.
 */
export function callCost(
  usage: Usage,
  info: Pick<ModelInfo, "model" | "prices" | "long_context">,
  convention: UsageConvention,
  longContext?: boolean,
): CallCost {
  const problem = usageProblem(usage, convention);
  if (problem) return { ok: false, reason: `the usage reported does not add up (${problem})` };
  const read = usage.cache_read_input_tokens ?? 0;
  const write = usage.cache_creation_input_tokens ?? 0;
  const input = convention === "openai" ? usage.input_tokens - read : usage.input_tokens;
  const tier = info.long_context;
  const long = longContext ?? (tier !== undefined && totalInputTokens(usage, convention) > tier.above_input_tokens);
  const table: PriceTable | undefined = tier && long ? tier : info.prices;
  const parts: Array<[number, keyof PriceTable]> = [
    [input, "input"],
    [usage.output_tokens, "output"],
    [read, "cache_read"],
    [write, "cache_write"],
  ];
  let pico = 0n;
  for (const [tokens, field] of parts) {
    if (tokens === 0) continue;
    const price = table?.[field];
    if (price === undefined) return { ok: false, reason: `the ${field.replace("_", " ")} price of "${info.model}" is not known` };
    pico += BigInt(tokens) * picoPerToken(price);
  }
  return { ok: true, pico };
}

/** Pico-dollars as an exact decimal string of USD, without trailing zeros ("0.0123", "0"). */
export function usdText(pico: bigint): string {
  const whole = pico / PICO_PER_USD;
  const fraction = (pico % PICO_PER_USD).toString().padStart(12, "0").replace(/0+$/, "");
  return fraction === "" ? whole.toString() : `${whole}.${fraction}`;
}

/** The inverse of {@link usdText}: an exact decimal of USD (at most 12 decimals) as pico-dollars. */
export function usdToPico(text: string): bigint {
  const [whole, fraction = ""] = text.split(".");
  return BigInt(whole!) * PICO_PER_USD + BigInt(fraction.padEnd(12, "0").slice(0, 12));
}

/** For people: `$0.0123` under a dollar (4 decimals, `<$0.0001` for less), `$12.34` above. */
export function formatUsd(pico: bigint): string {
  if (pico === 0n) return "$0.00";
  const usd = Number(usdText(pico));
  if (usd < 0.0001) return "<$0.0001";
  return usd < 1 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** Tokens of calls of one model, bucketed by whether the long-context prices applied (a session listing's figures). */
export interface ModelTokenSum {
  provider: string;
  model: string;
  long_context: boolean;
  usage: Usage;
}

/** The exact cost of bucketed calls as a decimal string, or why it is unknown. */
export function bucketsCost(
  buckets: readonly ModelTokenSum[],
  infoFor: (model: string) => Pick<ModelInfo, "model" | "prices" | "long_context">,
): { cost_usd: string } | { unknown_reason: string } {
  let pico = 0n;
  for (const bucket of buckets) {
    if (bucket.usage.input_tokens + bucket.usage.output_tokens + (bucket.usage.cache_read_input_tokens ?? 0) + (bucket.usage.cache_creation_input_tokens ?? 0) === 0) continue;
    const cost = callCost(bucket.usage, infoFor(bucket.model), bucket.provider === "anthropic" ? "anthropic" : "openai", bucket.long_context);
    if (!cost.ok) return { unknown_reason: cost.reason };
    pico += cost.pico;
  }
  return { cost_usd: usdText(pico) };
}
