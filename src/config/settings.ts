/**
 * Resolves awl's settings from, in rising precedence: environment, config file, flags (docs/cli.md).
 * Pure: the caller passes the environment, the file's values and the flag strings; nothing is read here.
 */
import { MIN_THINKING_BUDGET, THINKING_ANSWER_TOKENS } from "../providers/anthropic/limits.js";
import type { ProviderSettings } from "../providers/types.js";
import type { ConfigFileValues } from "./config-file.js";
import type { ConfigError, ConfigResult } from "./errors.js";

/** Flag values as typed on the command line (numbers are still text: checked here so the message names the flag). */
export interface SettingsFlags {
  provider?: string;
  model?: string;
  baseUrl?: string;
  maxRetries?: string;
  stallTimeout?: string;
  firstByteTimeout?: string;
  maxSteps?: string;
  maxTokens?: string;
  thinkingBudget?: string;
  replay?: string;
}

export interface SettingsSources {
  /** A choice made during the session (`/model [PROVIDER] NAME`): above the flags, with no URL or key of its own. */
  choice?: { provider?: string; model?: string };
  env: NodeJS.ProcessEnv;
  file?: ConfigFileValues;
  /** Shown in messages about the file's values. */
  filePath?: string;
  flags: SettingsFlags;
}

export interface AwlSettings {
  provider: ProviderSettings;
  /** Model calls per turn. */
  maxSteps: number;
  /** Where this provider's API key comes from, for messages (e.g. `AWL_API_KEY or OPENAI_API_KEY`); absent for replay. */
  keySource?: string;
  /** Where the model name came from, for `awl config` (e.g. `AWL_MODEL`, `--model`). */
  modelSource: string;
  /** One-line remarks for stderr about how a setting was adjusted. */
  notes: string[];
}

export const PROVIDERS = ["openai", "anthropic", "replay"] as const;
export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_STALL_TIMEOUT_MS = 90_000;
export const DEFAULT_FIRST_BYTE_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_STEPS = 50;

interface Vendor {
  keyVariable: string;
  baseUrl: string;
  exampleModel: string;
}
const VENDORS: Record<string, Vendor> = {
  openai: { keyVariable: "OPENAI_API_KEY", baseUrl: "https://api.openai.com/v1", exampleModel: "gpt-4o-mini" },
  anthropic: { keyVariable: "ANTHROPIC_API_KEY", baseUrl: "https://api.anthropic.com", exampleModel: "claude-sonnet-4-5" },
};

/** A value and where it came from, so messages can name the variable, key or flag. */
interface Sourced<T> {
  value: T;
  source: string;
}

export function resolveSettings(sources: SettingsSources): ConfigResult<AwlSettings> {
  try {
    return { ok: true, value: resolve(sources) };
  } catch (e) {
    if (e instanceof ConfigFailure) return { ok: false, error: e.error };
    throw e;
  }
}

function resolve({ env, file = {}, filePath = "the config file", flags, choice = {} }: SettingsSources): AwlSettings {
  const fileKey = (key: string): string => `"${key}" in ${filePath}`;

  // Each level's generic base URL and key (AWL_BASE_URL/AWL_API_KEY, the file's base_url/api_key, --base-url)
  // belong to the provider that level chooses, or the one below it chooses: switching provider (--provider,
  // /model) never sends one vendor's key or URL to another.
  const envHome = providerName({ value: env.AWL_PROVIDER ?? "", source: "AWL_PROVIDER" }) ?? "openai";
  const fileHome = providerName({ value: file.provider ?? "", source: fileKey("provider") }) ?? envHome;
  const flagsHome = providerName({ value: flags.provider ?? "", source: "--provider" }) ?? fileHome;
  const provider = providerName({ value: choice.provider ?? "", source: "/model" }) ?? flagsHome;
  for (const name of Object.keys(file.providers ?? {})) {
    if (!Object.hasOwn(VENDORS, name)) {
      throw configError(`unknown provider "${name}" under "providers" in ${filePath}`, `use ${Object.keys(VENDORS).join(" or ")}`);
    }
  }

  // The generic models (AWL_MODEL, the file's "model") belong to the provider named at their level or below;
  // with no provider named there, to whichever provider is chosen (one provider in use: the old behaviour).
  const envModelHome = env.AWL_PROVIDER?.trim() ? envHome : undefined;
  const fileModelHome = file.provider?.trim() ? fileHome : envModelHome;
  const modelFor = (home: string | undefined, value: string | undefined): string | undefined =>
    home === undefined || home === provider ? value : undefined;
  const own = file.providers?.[provider] ?? {};
  const ownKey = (key: string): string => `"providers.${provider}.${key}" in ${filePath}`;
  const model = first(
    [choice.model, "/model"],
    [flags.model, "--model"],
    [own.model, ownKey("model")],
    [modelFor(fileModelHome, file.model), fileKey("model")],
    [modelFor(envModelHome, env.AWL_MODEL), "AWL_MODEL"],
  );

  const maxRetries = count(flags.maxRetries, "--max-retries", file.max_retries) ?? DEFAULT_MAX_RETRIES;
  const stallTimeoutMs = count(flags.stallTimeout, "--stall-timeout", file.stall_timeout_ms, 1) ?? DEFAULT_STALL_TIMEOUT_MS;
  const firstByteTimeoutMs = count(flags.firstByteTimeout, "--first-byte-timeout", file.first_byte_timeout_ms, 1) ?? DEFAULT_FIRST_BYTE_TIMEOUT_MS;
  const maxSteps = count(flags.maxSteps, "--max-steps", file.max_steps, 1) ?? DEFAULT_MAX_STEPS;
  const maxTokens = count(flags.maxTokens, "--max-tokens", file.max_tokens, 1);
  const thinkingBudget = count(flags.thinkingBudget, "--thinking-budget", file.thinking_budget, 1);
  const notes: string[] = [];
  if (thinkingBudget !== undefined) {
    const source = flags.thinkingBudget !== undefined ? "--thinking-budget" : fileKey("thinking_budget");
    if (thinkingBudget < MIN_THINKING_BUDGET) {
      throw configError(
        `the thinking budget ${thinkingBudget} (from ${source}) is below Anthropic's minimum of ${MIN_THINKING_BUDGET} tokens`,
        `use ${MIN_THINKING_BUDGET} or more, or leave it unset to turn thinking off`,
      );
    }
    // Anthropic needs max_tokens above the budget; the request builder raises it, and the user should know.
    if (provider === "anthropic" && maxTokens !== undefined && maxTokens <= thinkingBudget) {
      notes.push(`max tokens ${maxTokens} is not above the thinking budget ${thinkingBudget}: sending ${thinkingBudget + THINKING_ANSWER_TOKENS} (the budget plus ${THINKING_ANSWER_TOKENS} for the answer)`);
    }
  }

  const settings: ProviderSettings = { provider, model: "", baseUrl: "", maxRetries, stallTimeoutMs, firstByteTimeoutMs };
  if (maxTokens !== undefined) settings.maxTokens = maxTokens;
  if (thinkingBudget !== undefined) settings.thinkingBudget = thinkingBudget;
  if (file.compat) settings.compat = file.compat;

  if (provider === "replay") {
    if (!flags.replay) throw configError("--provider replay needs a script to play", "pass --replay FILE (format: docs/replay-format.md)");
    settings.replayFile = flags.replay;
    settings.model = model?.value ?? "replay";
    return { provider: settings, maxSteps, modelSource: model?.source ?? "the replay provider's default", notes };
  }

  const vendor = VENDORS[provider]!;
  const forThis = <T>(home: string, value: T | undefined): T | undefined => (home === provider ? value : undefined);
  const baseUrl = first(
    [forThis(flagsHome, flags.baseUrl), "--base-url"],
    [own.base_url, ownKey("base_url")],
    [forThis(fileHome, file.base_url), fileKey("base_url")],
    [forThis(envHome, env.AWL_BASE_URL), "AWL_BASE_URL"],
  );
  settings.baseUrl = baseUrl ? checkUrl(baseUrl) : vendor.baseUrl;

  // The variables that may hold this provider's key, most specific first.
  const keyVariables = own.api_key_env ? [own.api_key_env] : [...(envHome === provider ? ["AWL_API_KEY"] : []), vendor.keyVariable];
  const fromFile: [string | undefined, string] = [own.api_key_env ? undefined : forThis(fileHome, file.api_key), fileKey("api_key")];
  const apiKey = first(fromFile, ...keyVariables.map((name): [string | undefined, string] => [env[name], name]));
  const keySource = apiKey?.source ?? (own.api_key_env ? `${own.api_key_env} (${ownKey("api_key_env")})` : keyVariables.join(" or "));
  // Local OpenAI-compatible servers (Ollama, llama.cpp, vLLM) usually need no key; the vendors' own endpoints do.
  const keyMissing = apiKey === undefined && settings.baseUrl === vendor.baseUrl;
  const keyExample = keyVariables.at(-1)!;
  const notHome = env.AWL_API_KEY && envHome !== provider ? ` (AWL_API_KEY is for ${envHome}, the provider AWL_PROVIDER names)` : "";
  const setKey = `set ${keyVariables.join(" or ")} (e.g. export ${keyExample}=...)${notHome}`;
  const setModel = missingModelHint(provider, vendor, { envModelHome, fileModelHome, env, file, filePath });
  const offline = "or try awl offline with --provider replay --replay FILE";
  if (keyMissing && !model) throw configError(`no API key and no model for provider "${provider}"`, `${setKey} and ${setModel}; ${offline}`);
  if (keyMissing) throw configError(`no API key for provider "${provider}"`, `${setKey}, ${offline}`);
  if (!model) throw configError(`no model chosen for provider "${provider}"`, setModel);
  settings.model = model.value;
  if (apiKey !== undefined) settings.apiKey = apiKey.value;
  return { provider: settings, maxSteps, keySource, modelSource: model.source, notes };
}

/**
 * What to set when no model is known for `provider`: --model, AWL_MODEL when it would count for this provider,
 * and the file's per-provider key; a generic model that belongs to another provider is named, so the user
 * sees why it was not used.
 */
function missingModelHint(
  provider: string,
  vendor: Vendor,
  homes: { envModelHome?: string; fileModelHome?: string; env: NodeJS.ProcessEnv; file: ConfigFileValues; filePath: string },
): string {
  const { envModelHome, fileModelHome, env, file, filePath } = homes;
  const flag = `pass --model NAME (e.g. --model ${vendor.exampleModel})`;
  const inFile = `"providers.${provider}.model" in ${filePath}`;
  const elsewhere: string[] = [];
  if (file.model && fileModelHome !== undefined && fileModelHome !== provider) elsewhere.push(`"model" in ${filePath} is for ${fileModelHome}`);
  if (env.AWL_MODEL && envModelHome !== undefined && envModelHome !== provider) elsewhere.push(`AWL_MODEL is for ${envModelHome}, the provider AWL_PROVIDER names`);
  const why = elsewhere.length > 0 ? ` (${elsewhere.join("; ")})` : "";
  if (envModelHome === undefined || envModelHome === provider) return `set AWL_MODEL or ${flag}, or set ${inFile}${why}`;
  return `${flag} or set ${inFile}${why}`;
}

/** The first value that is set and not empty, with its source. */
function first<T>(...candidates: Array<[T | undefined, string]>): Sourced<T> | undefined {
  for (const [value, source] of candidates) {
    if (value !== undefined && value !== "") return { value, source };
  }
  return undefined;
}

/** A provider name, checked; undefined when not given. */
function providerName({ value, source }: Sourced<string>): string | undefined {
  const name = value.trim().toLowerCase();
  if (name === "") return undefined;
  if (!(PROVIDERS as readonly string[]).includes(name)) {
    throw configError(
      `unknown provider "${value}" (from ${source})`,
      `choose one of ${PROVIDERS.join(", ")} (openai covers any OpenAI-compatible server: set AWL_BASE_URL)`,
    );
  }
  return name;
}

/** A whole number from a flag (text) or the file (already checked there); the flag wins. */
function count(flagText: string | undefined, flag: string, fromFile: number | undefined, min = 0): number | undefined {
  if (flagText === undefined) return fromFile;
  const text = flagText.trim();
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) < min) {
    throw configError(`${flag} expects a whole number ≥ ${min}, got "${flagText}"`, `pass e.g. ${flag} ${Math.max(min, 3)}`);
  }
  return Number(text);
}

function checkUrl({ value, source }: Sourced<string>): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw configError(`the base URL "${value}" (from ${source}) is not a URL`, "use a full URL such as http://localhost:11434/v1");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw configError(`the base URL "${value}" (from ${source}) must start with http:// or https://`, "use a full URL such as http://localhost:11434/v1");
  }
  return value.replace(/\/+$/, "");
}

/** Thrown inside `resolve` only, to stop at the first problem; `resolveSettings` turns it back into a value. */
class ConfigFailure {
  constructor(readonly error: ConfigError) {}
}
function configError(message: string, hint: string): ConfigFailure {
  return new ConfigFailure({ message, hint });
}
