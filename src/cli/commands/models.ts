/**
 * `awl models [--provider P] [--json]`: the models awl knows for a provider (its window, output limit, prices and
 * capabilities from the catalogue), merged with the models its server offers; `awl models --refresh` updates the
 * cached catalogue from models.dev (docs/cli.md, docs/cost.md).
 */
import { loadConfig, resolveSettings, settingsSources } from "../../config/index.js";
import { isLoginProvider } from "../../login/types.js";
import { PROVIDER_NAMES } from "../../providers/create.js";
import { hasServerList, listLoginModels, listServerModels } from "../../providers/list-models.js";
import { cachedCataloguePath, DEFAULT_MODELS_URL, forgetModelCatalogue, modelCatalogue, MODELS_URL_ENV, takeCatalogueWarning } from "../../usage/catalogue-store.js";
import { refreshCatalogue } from "../../usage/catalogue-refresh.js";
import { catalogueProviderFor, catalogueProviders, modelRows, type ModelRow } from "../../usage/model-list.js";
import { tokensText } from "../../usage/meter.js";
import { formatUserMessage } from "../../ui/error-text.js";
import { EXIT } from "../exit-codes.js";
import { parseCliArgs } from "../options.js";
import { settingsFlags } from "../../runtime/flags.js";

/** awl's own providers (the replay provider has no models). */
const AWL_PROVIDERS = PROVIDER_NAMES.filter((name) => name !== "replay");

const HELP = `usage: awl models [--provider P] [--json] [flags]
       awl models --refresh

Lists the models awl knows for a provider: context window, output limit, prices (USD per million tokens) and
what each can do (tools, images, reasoning), from the model catalogue, merged with the models the provider's
server offers. P is one of awl's providers (${AWL_PROVIDERS.join(", ")}: the server is asked where it has a list, with the key,
sign-in and base URL awl would use; --base-url picks another server) or any provider of the catalogue (deepseek,
mistral, and after a refresh every models.dev provider: the catalogue only). Without --provider: the configured
provider. --json prints one JSON object.

--refresh fetches models.dev's catalogue (https://models.dev/api.json, or $${MODELS_URL_ENV}) and caches the part
awl reads in $XDG_CACHE_HOME/awl/models.json; the cost display, compaction and /model use it from then on.
Reference: docs/cost.md.
`;

export async function run(argv: readonly string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(HELP);
    return EXIT.ok;
  }
  if (argv.includes("--refresh")) {
    if (argv.length > 1) return usage("--refresh takes no other flags");
    return refresh();
  }
  const json = argv.includes("--json");
  const rest = argv.filter((a) => a !== "--json");
  const providerAt = rest.findIndex((a) => a === "--provider" || a.startsWith("--provider="));
  const named = providerAt === -1 ? undefined : rest[providerAt]!.includes("=") ? rest[providerAt]!.split("=")[1] : rest[providerAt + 1];
  if (providerAt !== -1 && !named) return usage("--provider needs a name");
  const listing = named && !AWL_PROVIDERS.includes(named) ? catalogueListing(named, rest, providerAt) : await serverListing(rest);
  if (typeof listing === "number") return listing;
  const warning = takeCatalogueWarning();
  if (warning) process.stderr.write(`awl: ${warning}\n`);
  if (json) process.stdout.write(JSON.stringify(listing) + "\n");
  else process.stdout.write(listingText(listing));
  return EXIT.ok;
}

interface Listing {
  /** awl's provider, or the catalogue provider asked for. */
  provider: string;
  /** The catalogue provider whose models are listed (none: the catalogue does not describe this endpoint). */
  catalogue_provider: string | null;
  /** The catalogue file in use: the cached copy, else the bundled one. */
  catalogue_file: string;
  base_url?: string;
  /** Whether the server's list is merged in, and if not why. */
  server: { listed: true; count: number } | { listed: false; reason: string };
  models: ModelRow[];
}

function catalogueListing(name: string, rest: readonly string[], at: number): Listing | number {
  const others = rest.filter((_, i) => i !== at && !(i === at + 1 && !rest[at]!.includes("=")));
  if (others.length > 0) return usage(`${others[0]} does not apply to the catalogue provider "${name}"`);
  const known = catalogueProviders();
  if (!known.includes(name))
    return usage(`"${name}" is neither one of awl's providers (${AWL_PROVIDERS.join(", ")}) nor a provider of the catalogue (${known.join(", ")})`);
  return { provider: name, catalogue_provider: name, catalogue_file: catalogueFile(), server: { listed: false, reason: "a catalogue provider: no server asked" }, models: modelRows(name, undefined) };
}

async function serverListing(rest: readonly string[]): Promise<Listing | number> {
  const parsed = parseCliArgs(rest);
  if (!parsed.ok) return usage(parsed.error.message);
  if (parsed.value.prompt) return usage(`unexpected argument "${parsed.value.prompt}"`);
  const read = await loadConfig({ env: process.env, cwd: process.cwd() });
  if (!read.ok) {
    process.stderr.write(formatUserMessage(read.error));
    return EXIT.usage;
  }
  const flags = settingsFlags(parsed.value.flags);
  const resolved = resolveSettings(settingsSources(read.value, process.env, { ...flags, ...(flags.model === undefined && { model: "-" }) }));
  if (!resolved.ok) {
    // No key yet: the catalogue's models for the provider awl would use, without the server's list.
    const provider = flags.provider ?? process.env.AWL_PROVIDER ?? (read.value.values as { provider?: string }).provider ?? "openai";
    const id = catalogueProviderFor({ provider, baseUrl: flags.baseUrl ?? "https://api.openai.com/v1" }) ?? null;
    const reason = `not asked: ${resolved.error.message}`;
    return { provider, catalogue_provider: id, catalogue_file: catalogueFile(), server: { listed: false, reason }, models: modelRows(id ?? undefined, undefined) };
  }
  const settings = resolved.value.provider;
  if (settings.provider === "replay") return usage("the replay provider has no models (docs/replay-format.md)");
  const id = catalogueProviderFor(settings) ?? null;
  const listed = isLoginProvider(settings.provider) ? await listLoginModels(settings, settings.provider) : undefined;
  const offered = listed ? ("offered" in listed ? listed.offered : undefined) : await listServerModels(settings);
  const why =
    listed && "reason" in listed
      ? listed.reason
      : hasServerList(settings.provider)
        ? `${settings.baseUrl} did not list its models`
        : `not asked: awl has no way to ask ${settings.provider}'s server for its models`;
  return {
    provider: settings.provider,
    catalogue_provider: id,
    catalogue_file: catalogueFile(),
    ...(settings.baseUrl && { base_url: settings.baseUrl }),
    server: offered ? { listed: true, count: offered.length } : { listed: false, reason: why },
    models: modelRows(id ?? undefined, offered),
  };
}

async function refresh(): Promise<number> {
  const url = process.env[MODELS_URL_ENV] || DEFAULT_MODELS_URL;
  const file = cachedCataloguePath();
  const result = await refreshCatalogue(url, file);
  if (!result.ok) {
    const kept = modelCatalogue().cached ? `the previous catalogue is kept (${file})` : "nothing was written; the bundled catalogue stays in use";
    process.stderr.write(formatUserMessage({ message: `the model catalogue was not refreshed: ${result.error}`, hint: kept }));
    return EXIT.error;
  }
  forgetModelCatalogue();
  const { providers, models, ignored } = result.value;
  process.stdout.write(`updated ${file} from ${url}: ${providers} providers, ${models} models${ignored ? ` (${ignored} fields of an unexpected type left out)` : ""}\n`);
  return EXIT.ok;
}

function catalogueFile(): string {
  const catalogue = modelCatalogue();
  return catalogue.cached ? catalogue.cacheFile : "the bundled catalogue (catalogue/models.json)";
}

function listingText(listing: Listing): string {
  const head = [
    `provider: ${listing.provider}${listing.base_url ? ` (${listing.base_url})` : ""}`,
    `catalogue: ${listing.catalogue_provider ? `"${listing.catalogue_provider}" from ${listing.catalogue_file}` : `none describes this endpoint (${listing.catalogue_file}); figures found by model name`}`,
    `server: ${listing.server.listed ? `offers ${listing.server.count} models` : listing.server.reason}`,
  ];
  if (listing.models.length === 0) return [...head, "no models known"].join("\n") + "\n";
  const listed = listing.server.listed;
  const price = (row: ModelRow, field: "input" | "output" | "cache_read" | "cache_write"): string => row.prices?.[field] ?? "-";
  const yes = (value: boolean | undefined): string => (value === undefined ? "?" : value ? "yes" : "-");
  const rows = listing.models.map((row) => [
    row.id,
    row.context_window !== undefined ? tokensText(row.context_window) : "?",
    row.max_output_tokens !== undefined ? tokensText(row.max_output_tokens) : "?",
    price(row, "input"),
    price(row, "output"),
    price(row, "cache_read"),
    price(row, "cache_write"),
    yes(row.tools),
    yes(row.images),
    yes(row.reasoning),
    ...(listed ? [row.offered ? "yes" : "-"] : []),
  ]);
  const header = ["MODEL", "CONTEXT", "OUTPUT", "IN $/M", "OUT $/M", "CACHE R", "CACHE W", "TOOLS", "IMAGES", "REASONING", ...(listed ? ["SERVER"] : [])];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join("  ");
  const notes = ["prices in USD per million tokens; - none or not known, ? not known; long-context prices: --json"];
  if (listing.models.some((r) => !r.in_catalogue && r.context_window === undefined)) notes.push("a model with no figures works: its cost shows as unknown (set models.NAME in the config file, docs/cost.md)");
  return [...head, "", line(header), ...rows.map(line), "", ...notes].join("\n") + "\n";
}

function usage(message: string): number {
  process.stderr.write(formatUserMessage({ message, hint: "usage: awl models [--provider P] [--json] | awl models --refresh (awl models --help)" }));
  return EXIT.usage;
}
