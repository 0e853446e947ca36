/**
 * What `awl models` and `/model` list (docs/cli.md): a catalogue provider's models (the cached copy's over the
 * bundled ones) merged with the models the server offers, each with its window, output limit, prices and
 * capabilities where the catalogue knows them. A server model the provider's entry lacks is looked up by name as
 * for cost (catalogue.ts), so a dated or tagged name still shows its family's figures.
 */
import type { ProviderSettings } from "../providers/types.js";
import { catalogueEntry } from "./catalogue.js";
import type { PriceTable } from "./catalogue-types.js";
import { modelCatalogue, type LoadedCatalogue } from "./catalogue-store.js";
import type { CatalogueModel } from "./models-dev.js";
import { tokensText } from "./meter.js";

/** A catalogue model, or one only the server lists, with where it was found. */
export interface ModelRow extends CatalogueModel {
  /** Listed by the catalogue's entry for the provider. */
  in_catalogue: boolean;
  /** Listed by the server (absent: the server was not asked or did not tell). */
  offered?: boolean;
}

/**
 * The catalogue providers that describe each of awl's providers, best first: a later one stands in while the
 * catalogue lacks the first (the bundled one has no Vertex, Copilot or Bedrock entry; `awl models --refresh` adds
 * them); none held: none describes the endpoint, and figures are found by model name.
 */
const CATALOGUE_PROVIDERS: Readonly<Record<string, readonly string[]>> = {
  anthropic: ["anthropic"],
  gemini: ["google"],
  bedrock: ["amazon-bedrock"],
  "google-vertex": ["google-vertex", "google"],
  "google-vertex-anthropic": ["google-vertex-anthropic", "anthropic"],
  copilot: ["github-copilot"],
  // The ChatGPT plan serves OpenAI's models.
  chatgpt: ["openai"],
};

/** The catalogue provider that prices an endpoint: awl's provider, or the catalogue provider whose `api` has its host. */
export function catalogueProviderFor(settings: Pick<ProviderSettings, "provider" | "baseUrl">, catalogue: LoadedCatalogue = modelCatalogue()): string | undefined {
  const named = Object.hasOwn(CATALOGUE_PROVIDERS, settings.provider) ? CATALOGUE_PROVIDERS[settings.provider]! : undefined;
  if (named) {
    const held = catalogueProviders(catalogue);
    return named.find((id) => held.includes(id));
  }
  if (settings.provider !== "openai" && settings.provider !== "openai-responses") return undefined;
  const host = hostOf(settings.baseUrl);
  if (host === "api.openai.com") return "openai";
  for (const source of [catalogue.cached, catalogue.bundled])
    for (const provider of Object.values(source ?? {})) if (provider.api && hostOf(provider.api) === host) return provider.id;
  return undefined;
}

/** Every model of catalogue provider `id` (the cached copy's entries win); empty when the catalogue has no such provider. */
export function catalogueModels(id: string, catalogue: LoadedCatalogue = modelCatalogue()): CatalogueModel[] {
  const merged = { ...catalogue.bundled[id]?.models, ...catalogue.cached?.[id]?.models };
  return Object.values(merged);
}

/** Every provider id the catalogue holds, sorted. */
export function catalogueProviders(catalogue: LoadedCatalogue = modelCatalogue()): string[] {
  return [...new Set([...Object.keys(catalogue.bundled), ...Object.keys(catalogue.cached ?? {})])].sort();
}

/** The rows for catalogue provider `id` (may be undefined: none) and the server's model ids (undefined: not known). */
export function modelRows(id: string | undefined, offered: readonly string[] | undefined, catalogue: LoadedCatalogue = modelCatalogue()): ModelRow[] {
  const rows = new Map<string, ModelRow>();
  for (const model of id ? catalogueModels(id, catalogue) : []) rows.set(model.id, { ...model, in_catalogue: true, ...(offered && { offered: offered.includes(model.id) }) });
  for (const name of offered ?? []) {
    if (rows.has(name)) continue;
    const found = catalogueEntry(name)?.entry;
    const row: ModelRow = { id: name, in_catalogue: false, offered: true };
    if (found) {
      row.context_window = found.context_window;
      if (found.max_output_tokens !== undefined) row.max_output_tokens = found.max_output_tokens;
      if (found.prices) row.prices = found.prices;
      if (found.long_context) row.long_context = found.long_context;
    }
    rows.set(name, row);
  }
  return [...rows.values()].sort((a, b) => a.id.localeCompare(b.id));
}

/** One line of figures: `128k context · 16k out · $2.5/$10 per M · tools, images`. */
export function modelFiguresText(row: ModelRow): string {
  const parts: string[] = [];
  if (row.context_window !== undefined) parts.push(`${tokensText(row.context_window)} context`);
  if (row.max_output_tokens !== undefined) parts.push(`${tokensText(row.max_output_tokens)} out`);
  if (row.prices?.input !== undefined || row.prices?.output !== undefined) parts.push(`$${row.prices.input ?? "?"}/$${row.prices.output ?? "?"} per M`);
  const can = [row.tools && "tools", row.images && "images", row.reasoning && "reasoning"].filter(Boolean);
  if (can.length > 0) parts.push(can.join(", "));
  return parts.join(" · ");
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return undefined;
  }
}
