/**
 * What awl knows of a model: its context window, output limit and prices, from (first that knows) the config
 * file's `models` override, the catalogue's vendor entries, the server's own report (`server-limits`), the
 * catalogue's local families, else a stated default. docs/cost.md describes the order and the data.
 */
import type { CatalogueEntry, PriceTable } from "./catalogue-types.js";
import { modelCatalogue, VENDOR_PROVIDERS, type LoadedCatalogue } from "./catalogue-store.js";
import { LOCAL_FAMILIES } from "./local-families.js";
import type { CatalogueModel, ModelCatalogue } from "./models-dev.js";

export { CATALOGUE_DATE } from "./catalogue-store.js";
export type { CatalogueEntry, PriceTable };


/** The window assumed when nothing tells awl the model's. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

/** Where a model's figures came from. */
export type ModelInfoSource = "config" | "catalogue" | "server" | "default";

export interface ModelInfo {
  model: string;
  context_window: number;
  max_output_tokens?: number;
  prices?: PriceTable;
  long_context?: PriceTable & { above_input_tokens: number };
  /** Where `context_window` came from. */
  source: ModelInfoSource;
  /** The catalogue key that matched, if any. */
  catalogue_key?: string;
  /** A one-line note for the user when the figures are a default (or partly unknown). */
  note?: string;
}

/** A per-model override from the config file (every field optional; prices per million tokens as exact decimals). */
export interface ModelOverride {
  context_window?: number;
  max_output_tokens?: number;
  prices?: PriceTable;
}

/** Suffixes a priced entry accepts after its key: dates, `-latest`, previews, Ollama tags, Vertex versions. */
const PRICED_SUFFIX = /^(-\d{4}-?\d{2}-?\d{2}(-v\d+(:\d+)?)?|-\d{4}|-latest|-preview[\w-]*|-exp[\w-]*|-v\d+(:\d+)?|[:@].*)$/;

/**
 * Lower case, `.` → `-`, without a `vendor/` prefix (OpenRouter `anthropic/claude-sonnet-4.5`, vLLM `Qwen/...`) or a
 * Bedrock `[region.]vendor.` one (`us.anthropic.claude-sonnet-4-5-20250929-v1:0`).
 */
export function normaliseModelName(name: string): string {
  const base = name.trim().toLowerCase();
  const slash = base.lastIndexOf("/");
  // Bedrock's ids name the vendor and an inference profile's region: us.anthropic.claude-haiku-4-5-20251001-v1:0.
  return (slash === -1 ? base : base.slice(slash + 1)).replace(/^(?:(?:us|eu|apac|jp|au|global)\.)?(?:anthropic|openai|mistral|deepseek)\./, "").replace(/\./g, "-");
}

/** The catalogue's model as cost reads it; undefined when it has no context window (models.dev leaves some out). */
export function entryOf(model: CatalogueModel): CatalogueEntry | undefined {
  if (model.context_window === undefined) return undefined;
  const entry: CatalogueEntry = { context_window: model.context_window };
  if (model.max_output_tokens !== undefined) entry.max_output_tokens = model.max_output_tokens;
  if (model.prices) entry.prices = model.prices;
  if (model.long_context) entry.long_context = model.long_context;
  return entry;
}

type Indexed = [normalised: string, key: string, entry: CatalogueEntry];
let index: { from: LoadedCatalogue; entries: Indexed[] } | undefined;

/** Vendor models (the cached copy's before the bundled ones) and local families, longest normalised key first. */
function indexed(): Indexed[] {
  const catalogue = modelCatalogue(VENDOR_PROVIDERS);
  if (index?.from === catalogue) return index.entries;
  const seen = new Set<string>();
  const entries: Indexed[] = [];
  const add = (key: string, entry: CatalogueEntry | undefined): void => {
    const normal = normaliseModelName(key);
    if (!entry || seen.has(normal)) return;
    seen.add(normal);
    entries.push([normal, key, entry]);
  };
  for (const source of [catalogue.cached, catalogue.bundled] as Array<ModelCatalogue | undefined>)
    for (const vendor of VENDOR_PROVIDERS) for (const [key, model] of Object.entries(source?.[vendor]?.models ?? {})) add(key, entryOf(model));
  for (const [key, family] of Object.entries(LOCAL_FAMILIES)) add(key, { ...family, local: true });
  entries.sort((a, b) => b[0].length - a[0].length);
  index = { from: catalogue, entries };
  return entries;
}

/** The catalogue entry for a model name, and its key; the longest matching key wins. */
export function catalogueEntry(model: string): { key: string; entry: CatalogueEntry } | undefined {
  const name = normaliseModelName(model);
  for (const [normal, key, entry] of indexed()) {
    if (!name.startsWith(normal)) continue;
    const rest = name.slice(normal.length);
    if (rest === "" || (entry.local ? /^[-:@_]/.test(rest) : PRICED_SUFFIX.test(rest))) return { key, entry };
  }
  return undefined;
}

/** The override for a model: an exact key first, else one whose normalised name matches. */
export function overrideFor(model: string, overrides: Readonly<Record<string, ModelOverride>>): ModelOverride | undefined {
  if (Object.hasOwn(overrides, model)) return overrides[model];
  const name = normaliseModelName(model);
  for (const [key, value] of Object.entries(overrides)) if (normaliseModelName(key) === name) return value;
  return undefined;
}

/**
 * The model's figures without asking any server: override, then catalogue. `server` is what the server said when
 * it was asked (undefined: not asked, or it did not tell). A local family's window yields to the server's.
 */
export function resolveModelInfo(
  model: string,
  overrides: Readonly<Record<string, ModelOverride>> = {},
  server?: { context_window: number; max_output_tokens?: number; prices?: PriceTable },
): ModelInfo {
  const override = overrideFor(model, overrides);
  const found = catalogueEntry(model);
  const entry = found?.entry;
  const info: ModelInfo = { model, context_window: DEFAULT_CONTEXT_WINDOW, source: "default" };
  if (found) info.catalogue_key = found.key;
  if (override?.context_window !== undefined) {
    info.context_window = override.context_window;
    info.source = "config";
  } else if (entry && !entry.local) {
    info.context_window = entry.context_window;
    info.source = "catalogue";
  } else if (server) {
    info.context_window = server.context_window;
    info.source = "server";
  } else if (entry) {
    info.context_window = entry.context_window;
    info.source = "catalogue";
  }
  const maxOutput = override?.max_output_tokens ?? entry?.max_output_tokens ?? server?.max_output_tokens;
  if (maxOutput !== undefined) info.max_output_tokens = maxOutput;
  const prices = { ...(entry?.local ? {} : entry?.prices), ...(entry ? {} : server?.prices), ...override?.prices };
  if (Object.keys(prices).length > 0) info.prices = prices;
  // A configured price replaces the catalogue's, so the catalogue's long-context tier no longer applies to it.
  if (entry?.long_context && !override?.prices) info.long_context = entry.long_context;
  if (info.source === "default")
    info.note = `awl does not know the context window of "${model}"; assuming ${DEFAULT_CONTEXT_WINDOW} tokens (set models."${model}".context_window in the config file)`;
  return info;
}
