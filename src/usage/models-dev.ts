/**
 * The models.dev catalogue format (https://models.dev/api.json), read into awl's terms: provider id → models, each
 * with `limit.context`/`limit.output` (tokens), `cost.input/output/cache_read/cache_write` (USD per million tokens,
 * numbers), `cost.context_over_200k` or `cost.tiers` (a long-context tier), `tool_call`, `attachment`,
 * `modalities.input` (`"image"`), `reasoning` and `name`. awl's bundled catalogue (catalogue/models.json) and the
 * cached copy `awl models --refresh` writes are both in this format; docs/cost.md describes what awl reads.
 *
 * The structure must hold (an object of providers, each with a `models` object of objects): a file that does not is
 * rejected as a whole, naming where. A field awl reads whose value has the wrong type is left out (the figure is
 * unknown) and counted, since models.dev adds and reshapes fields over time; unknown fields are ignored.
 */
import type { PriceTable } from "./catalogue-types.js";

/** One model as awl uses it. */
export interface CatalogueModel {
  id: string;
  name?: string;
  context_window?: number;
  max_output_tokens?: number;
  prices?: PriceTable;
  /** Prices for a call whose whole input is above `above_input_tokens`. */
  long_context?: PriceTable & { above_input_tokens: number };
  tools?: boolean;
  images?: boolean;
  reasoning?: boolean;
}

export interface CatalogueProvider {
  id: string;
  name?: string;
  /** The OpenAI-compatible endpoint models.dev gives for the provider, if any. */
  api?: string;
  models: Record<string, CatalogueModel>;
}

/** Provider id → provider. */
export type ModelCatalogue = Record<string, CatalogueProvider>;

export type ParsedCatalogue = { ok: true; value: ModelCatalogue; ignored: number } | { ok: false; error: string };

const PRICE_FIELDS = ["input", "output", "cache_read", "cache_write"] as const;

/** Reads a parsed models.dev document; `ignored` counts fields awl reads that had the wrong type. */
export function parseModelsDev(document: unknown): ParsedCatalogue {
  if (!isObject(document)) return { ok: false, error: `the top level is ${kind(document)}, not an object of providers` };
  const out: ModelCatalogue = {};
  let ignored = 0;
  const field = <T>(value: unknown, check: (v: unknown) => v is T): T | undefined => {
    if (value === undefined) return undefined;
    if (check(value)) return value;
    ignored++;
    return undefined;
  };
  for (const [providerId, provider] of Object.entries(document)) {
    if (!isObject(provider)) return { ok: false, error: `provider "${providerId}" is ${kind(provider)}, not an object` };
    if (!isObject(provider.models)) return { ok: false, error: `provider "${providerId}" has no "models" object` };
    const models: Record<string, CatalogueModel> = {};
    for (const [id, raw] of Object.entries(provider.models)) {
      if (!isObject(raw)) return { ok: false, error: `model "${providerId}.models.${id}" is ${kind(raw)}, not an object` };
      const model: CatalogueModel = { id };
      const name = field(raw.name, isString);
      if (name) model.name = name;
      const limit = field(raw.limit, isObject);
      const context = field(limit?.context, isCount);
      if (context) model.context_window = context;
      const output = field(limit?.output, isCount);
      if (output) model.max_output_tokens = output;
      const cost = field(raw.cost, isObject);
      if (cost) {
        const prices = priceTable(cost, () => ignored++);
        if (prices) model.prices = prices;
        const tier = longContextTier(cost, () => ignored++);
        if (tier) model.long_context = tier;
      }
      const tools = field(raw.tool_call, isBoolean);
      if (tools !== undefined) model.tools = tools;
      const inputs = field(field(raw.modalities, isObject)?.input, isStringArray);
      const attachment = field(raw.attachment, isBoolean);
      if (inputs) model.images = inputs.includes("image");
      else if (attachment !== undefined) model.images = attachment;
      const reasoning = field(raw.reasoning, isBoolean);
      if (reasoning !== undefined) model.reasoning = reasoning;
      models[id] = model;
    }
    const entry: CatalogueProvider = { id: providerId, models };
    const providerName = field(provider.name, isString);
    if (providerName) entry.name = providerName;
    const api = field(provider.api, isString);
    if (api) entry.api = api;
    out[providerId] = entry;
  }
  return { ok: true, value: out, ignored };
}

/**
 * The part of a models.dev document awl reads, still in that format: what `awl models --refresh` caches, so that
 * loading it costs a fraction of the full file. `document` must have passed {@link parseModelsDev}.
 */
export function trimModelsDev(document: Record<string, unknown>): Record<string, unknown> {
  const keepProvider = ["id", "name", "api", "env", "doc"];
  const keepModel = ["id", "name", "attachment", "reasoning", "tool_call", "modalities", "cost", "limit"];
  const pick = (value: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> =>
    Object.fromEntries(keys.filter((k) => value[k] !== undefined).map((k) => [k, value[k]]));
  const out: Record<string, unknown> = {};
  for (const [providerId, provider] of Object.entries(document)) {
    const p = provider as Record<string, unknown>;
    const models = Object.fromEntries(Object.entries(p.models as Record<string, Record<string, unknown>>).map(([id, m]) => [id, pick(m, keepModel)]));
    out[providerId] = { ...pick(p, keepProvider), models };
  }
  return out;
}

/** A models.dev price (a number, USD per million tokens) as awl's exact decimal text; at most 6 decimals (rounded). */
export function priceText(value: unknown): string | undefined {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) return undefined;
  const fixed = value.toFixed(6);
  return fixed.replace(/0+$/, "").replace(/\.$/, "");
}

function priceTable(cost: Record<string, unknown>, bad: () => void): PriceTable | undefined {
  const prices: PriceTable = {};
  for (const name of PRICE_FIELDS) {
    if (cost[name] === undefined) continue;
    const text = priceText(cost[name]);
    if (text === undefined) bad();
    else prices[name] = text;
  }
  return Object.keys(prices).length > 0 ? prices : undefined;
}

/** `cost.tiers` (its lowest context tier) or else `cost.context_over_200k`. */
function longContextTier(cost: Record<string, unknown>, bad: () => void): (PriceTable & { above_input_tokens: number }) | undefined {
  if (cost.tiers !== undefined) {
    if (!Array.isArray(cost.tiers)) {
      bad();
      return undefined;
    }
    const tiers = cost.tiers.filter(
      (t): t is Record<string, unknown> & { tier: { size: number } } => isObject(t) && isObject(t.tier) && t.tier.type === "context" && isCount(t.tier.size),
    );
    const lowest = tiers.sort((a, b) => a.tier.size - b.tier.size)[0];
    const prices = lowest && priceTable(lowest, bad);
    if (lowest && prices) return { above_input_tokens: lowest.tier.size, ...prices };
  }
  if (cost.context_over_200k === undefined) return undefined;
  if (!isObject(cost.context_over_200k)) {
    bad();
    return undefined;
  }
  const prices = priceTable(cost.context_over_200k, bad);
  return prices ? { above_input_tokens: 200_000, ...prices } : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
function isString(value: unknown): value is string {
  return typeof value === "string";
}
function isBoolean(value: unknown): value is boolean {
  return typeof value === "boolean";
}
function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}
function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every(isString);
}
function kind(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "an array" : typeof value === "object" ? "an object" : `a ${typeof value}`;
}
