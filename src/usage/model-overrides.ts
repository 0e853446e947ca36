/**
 * The config file's `models` key: per-model corrections of the catalogue (docs/cost.md), e.g.
 * `{"models": {"my-qwen": {"context_window": 32768, "prices": {"input": "0.2", "output": "0.6"}}}}`.
 * A wrong type is an error naming the file, the model and the field; nothing is guessed.
 */
import { isPriceText } from "./cost.js";
import type { ModelOverride, PriceTable } from "./catalogue.js";

export type OverridesResult = { ok: true; value: Record<string, ModelOverride> } | { ok: false; error: { message: string; hint: string } };

const PRICE_FIELDS: ReadonlyArray<keyof PriceTable> = ["input", "output", "cache_read", "cache_write"];
const FIELDS = ["context_window", "max_output_tokens", "prices"];

/** Checks `value` (the `models` key of the file at `path`; undefined when absent). */
export function parseModelOverrides(value: unknown, path: string): OverridesResult {
  if (value === undefined) return { ok: true, value: {} };
  const where = (rest: string): string => `the config file ${path} key "models"${rest}`;
  const fail = (message: string): OverridesResult => ({ ok: false, error: { message, hint: "fix the file or remove the key (docs/cost.md)" } });
  if (!isObject(value)) return fail(`${where("")} must be an object like {"my-model": {"context_window": 32768}}, got ${JSON.stringify(value)}`);
  const out: Record<string, ModelOverride> = {};
  for (const [model, entry] of Object.entries(value)) {
    const at = (field: string): string => where(` entry "${model}${field ? `.${field}` : ""}"`);
    if (!isObject(entry)) return fail(`${at("")} must be an object with any of ${FIELDS.join(", ")}, got ${JSON.stringify(entry)}`);
    const override: ModelOverride = {};
    for (const [field, raw] of Object.entries(entry)) {
      if (field === "context_window" || field === "max_output_tokens") {
        const min = field === "context_window" ? 1024 : 1;
        if (!Number.isSafeInteger(raw) || (raw as number) < min) return fail(`${at(field)} must be a whole number of tokens ≥ ${min}, got ${JSON.stringify(raw)}`);
        override[field] = raw as number;
      } else if (field === "prices") {
        if (!isObject(raw)) return fail(`${at(field)} must be an object like {"input": "0.5", "output": "1.5"} (USD per million tokens), got ${JSON.stringify(raw)}`);
        const prices: PriceTable = {};
        for (const [name, price] of Object.entries(raw)) {
          if (!PRICE_FIELDS.includes(name as keyof PriceTable)) return fail(`${at(`prices.${name}`)} is not a price awl knows (use ${PRICE_FIELDS.join(", ")})`);
          const text = typeof price === "number" && Number.isFinite(price) ? String(price) : price;
          if (typeof text !== "string" || !isPriceText(text))
            return fail(`${at(`prices.${name}`)} must be USD per million tokens as a decimal with at most 6 decimals, like "0.15", got ${JSON.stringify(price)}`);
          prices[name as keyof PriceTable] = text;
        }
        override.prices = prices;
      } else return fail(`${at(field)} is not a field awl knows (use ${FIELDS.join(", ")})`);
    }
    out[model] = override;
  }
  return { ok: true, value: out };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
