/**
 * Where the model catalogue comes from (docs/cost.md): the copy `awl models --refresh` cached in
 * `$XDG_CACHE_HOME/awl/models.json` when there is one, over the bundled `catalogue/models.json` (both in the
 * models.dev format, models-dev.ts). Read once per process, when a model's figures are first needed. A cached copy
 * that cannot be read (not JSON, the wrong shape, a partial write) is set aside: the bundled catalogue is used and
 * {@link takeCatalogueWarning} says so once, naming the file.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { userCacheDir } from "../config/paths.js";
import { packagePath } from "../util/package-path.js";
import { parseModelsDev, type ModelCatalogue } from "./models-dev.js";

/** When the bundled figures were checked against the vendors' pages. */
export const CATALOGUE_DATE = "2026-11-30";

/** The environment variable naming where `awl models --refresh` fetches from (tests point it at a local server). */
export const MODELS_URL_ENV = "AWL_MODELS_URL";
export const DEFAULT_MODELS_URL = "https://models.dev/api.json";

/**
 * The catalogue's providers whose models are matched by name whatever the endpoint: the vendors that publish their
 * own models (a hosting provider's copy of a model has the host's prices, and a model on your own server has none).
 */
export const VENDOR_PROVIDERS: readonly string[] = ["openai", "anthropic", "google", "deepseek", "mistral"];

export interface LoadedCatalogue {
  /** The cached copy's providers and models, when it was read; looked up before the bundled ones. */
  cached?: ModelCatalogue;
  bundled: ModelCatalogue;
  /** The cached copy's path (whether or not there is one). */
  cacheFile: string;
}

const loaded = new Map<string, LoadedCatalogue>();
let warning: string | undefined;
let warned = false;

/** The cached copy's path: `$XDG_CACHE_HOME/awl/models.json` (default `~/.cache/awl/models.json`). */
export function cachedCataloguePath(env: NodeJS.ProcessEnv = process.env): string {
  return join(userCacheDir(env), "models.json");
}

/** The bundled catalogue file. */
export function bundledCataloguePath(): string {
  return packagePath("catalogue", "models.json");
}

/**
 * The catalogue in use, read on the first call: every provider, or with `only` just those (what a model's figures
 * need at start-up: the cached copy awl wrote is then read without parsing the providers left out).
 */
export function modelCatalogue(only?: readonly string[]): LoadedCatalogue {
  const key = only ? only.join(",") : "*";
  const known = loaded.get(key);
  if (known) return known;
  const bundledFile = bundledCataloguePath();
  const bundled = parseModelsDev(JSON.parse(readFileSync(bundledFile, "utf8")) as unknown);
  if (!bundled.ok) throw new Error(`awl's bundled model catalogue ${bundledFile} is broken: ${bundled.error}`);
  const cacheFile = cachedCataloguePath();
  const catalogue: LoadedCatalogue = { bundled: bundled.value, cacheFile };
  const cached = readCachedCatalogue(cacheFile, only);
  if (cached.ok) {
    if (cached.value) catalogue.cached = cached.value;
  } else if (!warned) warning = `the cached model catalogue ${cacheFile} ${cached.error}; using the bundled catalogue (awl models --refresh fetches it again)`;
  loaded.set(key, catalogue);
  return catalogue;
}

/**
 * The one-time notice that the cached catalogue could not be used, if it could not; later calls return undefined.
 * Without a cached copy there is nothing to say, and nothing is read (a reply whose cost nobody reads never needs
 * the catalogue: meter.ts).
 */
export function takeCatalogueWarning(): string | undefined {
  if (loaded.size === 0 && existsSync(cachedCataloguePath())) modelCatalogue(VENDOR_PROVIDERS);
  const text = warning;
  if (text) warned = true;
  warning = undefined;
  return text;
}

/** Reads the catalogue again on next use (after `awl models --refresh` wrote a new copy). */
export function forgetModelCatalogue(): void {
  loaded.clear();
  warning = undefined;
  warned = false;
}

/**
 * The cached copy: none (undefined), its catalogue (with `only`, just those providers), or why it cannot be used.
 * A file in the layout {@link cachedCatalogueText} writes (one provider per line) is checked line by line and only
 * the lines of `only` are parsed; any other text is parsed whole.
 */
export function readCachedCatalogue(file: string, only?: readonly string[]): { ok: true; value: ModelCatalogue | undefined } | { ok: false; error: string } {
  if (!existsSync(file)) return { ok: true, value: undefined };
  let document: unknown;
  try {
    const text = readFileSync(file, "utf8");
    document = (only && someProviders(text, only)) ?? pick(JSON.parse(text), only);
  } catch (e) {
    return { ok: false, error: `is not valid JSON (${e instanceof Error ? e.message : String(e)})` };
  }
  const parsed = parseModelsDev(document);
  return parsed.ok ? { ok: true, value: parsed.value } : { ok: false, error: `is not a models.dev catalogue: ${parsed.error}` };
}

/** A models.dev document as the cache holds it: valid JSON, one provider per line (read back by {@link readCachedCatalogue}). */
export function cachedCatalogueText(document: Record<string, unknown>): string {
  const lines = Object.entries(document).map(([id, provider]) => `${JSON.stringify(id)}: ${JSON.stringify(provider)}`);
  return `{\n${lines.join(",\n")}\n}\n`;
}

const PROVIDER_LINE = /^("(?:[^"\\]|\\.)*"): (\{.*\})(,?)$/;

/** The providers `only` names from text in the one-provider-per-line layout; undefined when the text is not in it. */
function someProviders(text: string, only: readonly string[]): Record<string, unknown> | undefined {
  const lines = text.split("\n");
  while (lines.at(-1) === "") lines.pop();
  if (lines[0] !== "{" || lines.at(-1) !== "}") return undefined;
  const out: Record<string, unknown> = {};
  for (let i = 1; i < lines.length - 1; i++) {
    const match = PROVIDER_LINE.exec(lines[i]!);
    // Every line but the last provider's ends with a comma: a file cut short or joined wrongly is not in the layout.
    if (!match || (match[3] === ",") !== (i < lines.length - 2)) return undefined;
    const id = JSON.parse(match[1]!) as string;
    if (only.includes(id)) out[id] = JSON.parse(match[2]!);
  }
  return out;
}

function pick(document: unknown, only: readonly string[] | undefined): unknown {
  if (!only || typeof document !== "object" || document === null || Array.isArray(document)) return document;
  return Object.fromEntries(Object.entries(document).filter(([id]) => only.includes(id)));
}
