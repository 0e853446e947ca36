/**
 * Resolves awl's settings from, in rising precedence: environment, config file, flags (docs/cli.md).
 * Pure: the caller passes the environment, the file's values and the flag strings; nothing is read here.
 */
import { defaultMaxTokens, MIN_THINKING_BUDGET, THINKING_ANSWER_TOKENS } from "../providers/anthropic/limits.js";
import type { AwsSettings, ProviderSettings, ThinkingSetting } from "../providers/types.js";
import type { ConfigFileValues } from "./config-file.js";
import type { ConfigError, ConfigResult } from "./errors.js";
import { loginSettings } from "./login-settings.js";
import { isLoginProvider } from "../login/types.js";

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
  /** `--thinking`: off, adaptive or a budget. */
  thinking?: string;
  /** `--thinking-budget`: a budget (the older spelling of `--thinking N`). */
  thinkingBudget?: string;
  /** `--no-interleaved-thinking`. */
  noInterleavedThinking?: boolean;
  replay?: string;
}

export interface SettingsSources {
  /** A choice made during the session (`/model [PROVIDER] NAME`): above the flags, with no URL or key of its own. */
  choice?: { provider?: string; model?: string };
  env: NodeJS.ProcessEnv;
  /** The config files' values, merged (src/config/layers.ts). */
  file?: ConfigFileValues;
  /** The user's config file, named in messages that say where to set something. */
  filePath?: string;
  /** How messages name a key of the files, with the file and line it came from (default: `"key" in filePath`). */
  describeKey?: (key: string) => string;
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
  /** Where the base URL came from, for `awl config` (a flag, a variable, a file's key, or the provider's default). */
  baseUrlSource?: string;
}

export const PROVIDERS = ["openai", "openai-responses", "gemini", "anthropic", "bedrock", "google-vertex", "google-vertex-anthropic", "copilot", "chatgpt", "replay"] as const;
export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_STALL_TIMEOUT_MS = 90_000;
export const DEFAULT_FIRST_BYTE_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_STEPS = 50;

interface Vendor {
  /** The vendor's own key variable; none for Vertex AI (application-default credentials, or AWL_API_KEY as a token). */
  keyVariable?: string;
  baseUrl: string;
  exampleModel: string;
}
const VENDORS: Record<string, Vendor> = {
  openai: { keyVariable: "OPENAI_API_KEY", baseUrl: "https://api.openai.com/v1", exampleModel: "gpt-4o-mini" },
  "openai-responses": { keyVariable: "OPENAI_API_KEY", baseUrl: "https://api.openai.com/v1", exampleModel: "gpt-5-mini" },
  gemini: { keyVariable: "GEMINI_API_KEY", baseUrl: "https://generativelanguage.googleapis.com", exampleModel: "gemini-2.5-flash" },
  anthropic: { keyVariable: "ANTHROPIC_API_KEY", baseUrl: "https://api.anthropic.com", exampleModel: "claude-sonnet-4-5" },
  // The base URL is the region's (bedrockVendor); the key is a Bedrock API key, else the AWS access keys sign.
  bedrock: { keyVariable: "AWS_BEARER_TOKEN_BEDROCK", baseUrl: "https://bedrock-runtime.us-east-1.amazonaws.com", exampleModel: "us.anthropic.claude-sonnet-4-5-20250929-v1:0" },
  // The host is the region's (vertexVendor); requests carry a token of Google's application-default credentials.
  "google-vertex": { baseUrl: "https://aiplatform.googleapis.com", exampleModel: "gemini-2.5-flash" },
  "google-vertex-anthropic": { baseUrl: "https://aiplatform.googleapis.com", exampleModel: "claude-sonnet-4-5@20250929" },
};

const isVertex = (provider: string): boolean => provider === "google-vertex" || provider === "google-vertex-anthropic";

/** Vertex AI's host is its region's: `aiplatform.googleapis.com` for `global`, else `{region}-aiplatform.googleapis.com`. */
function vertexVendor(provider: string, region: string): Vendor {
  return { ...VENDORS[provider]!, baseUrl: `https://${region === "global" ? "" : `${region}-`}aiplatform.googleapis.com` };
}

/** Bedrock's endpoint is its region's (the profile's when none is set, us-east-1 when the profile has none). */
function bedrockVendor(region: string | undefined): Vendor {
  return { ...VENDORS.bedrock!, baseUrl: `https://bedrock-runtime.${region ?? "us-east-1"}.amazonaws.com` };
}

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

function resolve({ env, file = {}, filePath = "the config file", describeKey, flags, choice = {} }: SettingsSources): AwlSettings {
  const fileKey = describeKey ?? ((key: string): string => `"${key}" in ${filePath}`);

  // Each level's generic base URL and key (AWL_BASE_URL/AWL_API_KEY, the file's base_url/api_key, --base-url)
  // belong to the provider that level chooses, or the one below it chooses: switching provider (--provider,
  // /model) never sends one vendor's key or URL to another.
  const envHome = providerName({ value: env.AWL_PROVIDER ?? "", source: "AWL_PROVIDER" }) ?? "openai";
  const fileHome = providerName({ value: file.provider ?? "", source: fileKey("provider") }) ?? envHome;
  const flagsHome = providerName({ value: flags.provider ?? "", source: "--provider" }) ?? fileHome;
  const provider = providerName({ value: choice.provider ?? "", source: "/model" }) ?? flagsHome;
  for (const name of Object.keys(file.providers ?? {})) {
    if (!Object.hasOwn(VENDORS, name) && !isLoginProvider(name)) {
      throw configError(`unknown provider "${name}" under ${fileKey("providers")}`, `use ${[...Object.keys(VENDORS), "copilot", "chatgpt"].join(" or ")}`);
    }
  }

  // The generic models (AWL_MODEL, the file's "model") belong to the provider named at their level or below;
  // with no provider named there, to whichever provider is chosen (one provider in use: the old behaviour).
  const envModelHome = env.AWL_PROVIDER?.trim() ? envHome : undefined;
  const fileModelHome = file.provider?.trim() ? fileHome : envModelHome;
  const modelFor = (home: string | undefined, value: string | undefined): string | undefined =>
    home === undefined || home === provider ? value : undefined;
  const own = file.providers?.[provider] ?? {};
  const ownKey = (key: string): string => fileKey(`providers.${provider}.${key}`);
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
  const thinking = thinkingChoice(flags, file, fileKey);
  const interleaved = flags.noInterleavedThinking ? false : file.interleaved_thinking;

  const settings: ProviderSettings = { provider, model: "", baseUrl: "", maxRetries, stallTimeoutMs, firstByteTimeoutMs };
  if (maxTokens !== undefined) settings.maxTokens = maxTokens;
  if (thinking !== undefined) settings.thinking = thinking.value;
  if (interleaved !== undefined) settings.interleavedThinking = interleaved;
  if (file.compat) settings.compat = file.compat;
  if (file.search?.backend === "provider") settings.webSearch = true;

  if (provider === "replay") {
    if (!flags.replay) throw configError("--provider replay needs a script to play", "pass --replay FILE (format: docs/replay-format.md)");
    settings.replayFile = flags.replay;
    settings.model = model?.value ?? "replay";
    return { provider: settings, maxSteps, modelSource: model?.source ?? "the replay provider's default" };
  }

  const awsRegion = provider === "bedrock" ? first([own.region, ownKey("region")], [env.AWS_REGION, "AWS_REGION"], [env.AWS_DEFAULT_REGION, "AWS_DEFAULT_REGION"]) : undefined;
  const vertexRegion = isVertex(provider) ? first([own.region, ownKey("region")], [env.GOOGLE_CLOUD_LOCATION, "GOOGLE_CLOUD_LOCATION"], [env.CLOUD_ML_REGION, "CLOUD_ML_REGION"]) : undefined;
  const vendor = provider === "bedrock" ? bedrockVendor(awsRegion?.value) : isVertex(provider) ? vertexVendor(provider, vertexRegion?.value ?? "global") : VENDORS[provider]!;
  const forThis = <T>(home: string, value: T | undefined): T | undefined => (home === provider ? value : undefined);
  const baseUrl = first(
    [forThis(flagsHome, flags.baseUrl), "--base-url"],
    [own.base_url, ownKey("base_url")],
    [forThis(fileHome, file.base_url), fileKey("base_url")],
    [forThis(envHome, env.AWL_BASE_URL), "AWL_BASE_URL"],
  );
  if (own.headers) settings.headers = own.headers;
  if (isLoginProvider(provider)) {
    const login = loginSettings(provider, settings, { env, ...(baseUrl && { baseUrl }), ...(model && { model }) });
    if ("hint" in login) throw new ConfigFailure(login);
    return { provider: login.settings, maxSteps, keySource: login.keySource, modelSource: login.modelSource, baseUrlSource: login.baseUrlSource };
  }
  settings.baseUrl = baseUrl ? checkUrl(baseUrl) : vendor.baseUrl;

  // The variables that may hold this provider's key, most specific first.
  const keyVariables = own.api_key_env ? [own.api_key_env] : [...(envHome === provider ? ["AWL_API_KEY"] : []), ...(vendor.keyVariable ? [vendor.keyVariable] : [])];
  const fromFile: [string | undefined, string] = [own.api_key_env ? undefined : forThis(fileHome, file.api_key), fileKey("api_key")];
  const apiKey = first(fromFile, ...keyVariables.map((name): [string | undefined, string] => [env[name], name]));
  const keySource = apiKey?.source ?? (own.api_key_env ? `${own.api_key_env} (${ownKey("api_key_env")})` : keyVariables.join(" or "));
  // Local OpenAI-compatible servers (Ollama, llama.cpp, vLLM) usually need no key; the vendors' own endpoints do.
  // Bedrock without a key signs with the AWS credential chain, which only a request can ask (aws-credential-chain.ts).
  const keyMissing = apiKey === undefined && settings.baseUrl === vendor.baseUrl && provider !== "bedrock" && !isVertex(provider);
  const keyExample = keyVariables.at(-1)!;
  const notHome = env.AWL_API_KEY && envHome !== provider ? ` (AWL_API_KEY is for ${envHome}, the provider AWL_PROVIDER names)` : "";
  const setKey = `set ${keyVariables.join(" or ")} (e.g. export ${keyExample}=...)${notHome}`;
  const setModel = missingModelHint(provider, vendor, { envModelHome, fileModelHome, env, file, filePath, fileKey });
  const offline = "or try awl offline with --provider replay --replay FILE";
  if (keyMissing && !model) throw configError(`no API key and no model for provider "${provider}"`, `${setKey} and ${setModel}; ${offline}`);
  if (keyMissing) throw configError(`no API key for provider "${provider}"`, `${setKey}, ${offline}`);
  if (!model) throw configError(`no model chosen for provider "${provider}"`, setModel);
  if (provider === "anthropic" && typeof thinking?.value === "number") {
    const maxSource = flags.maxTokens !== undefined ? "--max-tokens" : file.max_tokens !== undefined ? fileKey("max_tokens") : undefined;
    checkBudgetBelowMaxTokens({ value: thinking.value, source: thinking.source }, maxTokens, maxSource, model.value);
  }
  settings.model = model.value;
  if (apiKey !== undefined) settings.apiKey = apiKey.value;
  if (isVertex(provider)) {
    const project = first([own.project, ownKey("project")], [env.GOOGLE_CLOUD_PROJECT, "GOOGLE_CLOUD_PROJECT"], [env.GCLOUD_PROJECT, "GCLOUD_PROJECT"], [env.ANTHROPIC_VERTEX_PROJECT_ID, "ANTHROPIC_VERTEX_PROJECT_ID"]);
    settings.vertex = { region: vertexRegion?.value ?? "global", regionalEndpoint: !baseUrl, ...(project ? { project: { name: project.value, source: project.source } } : {}) };
  }
  if (provider === "bedrock") settings.aws = awsSettings(env, awsRegion?.value, first([own.profile, ownKey("profile")], [env.AWS_PROFILE, "AWS_PROFILE"]), !baseUrl);
  return { provider: settings, maxSteps, keySource, modelSource: model.source, baseUrlSource: baseUrl?.source ?? `${provider}'s default` };
}

/**
 * What to set when no model is known for `provider`: --model, AWL_MODEL when it would count for this provider,
 * and the file's per-provider key; a generic model that belongs to another provider is named, so the user
 * sees why it was not used.
 */
function missingModelHint(
  provider: string,
  vendor: Vendor,
  homes: { envModelHome?: string; fileModelHome?: string; env: NodeJS.ProcessEnv; file: ConfigFileValues; filePath: string; fileKey: (key: string) => string },
): string {
  const { envModelHome, fileModelHome, env, file, filePath, fileKey } = homes;
  const flag = `pass --model NAME (e.g. --model ${vendor.exampleModel})`;
  const inFile = `"providers.${provider}.model" in ${filePath}`;
  const elsewhere: string[] = [];
  if (file.model && fileModelHome !== undefined && fileModelHome !== provider) elsewhere.push(`${fileKey("model")} is for ${fileModelHome}`);
  if (env.AWL_MODEL && envModelHome !== undefined && envModelHome !== provider) elsewhere.push(`AWL_MODEL is for ${envModelHome}, the provider AWL_PROVIDER names`);
  const why = elsewhere.length > 0 ? ` (${elsewhere.join("; ")})` : "";
  if (envModelHome === undefined || envModelHome === provider) return `set AWL_MODEL or ${flag}, or set ${inFile}${why}`;
  return `${flag} or set ${inFile}${why}`;
}

/** Anthropic rejects budget_tokens >= max_tokens: say so before any request, naming both values and where they came from. */
function checkBudgetBelowMaxTokens(budget: Sourced<number>, maxTokens: number | undefined, maxSource: string | undefined, model: string): void {
  const max = maxTokens ?? defaultMaxTokens(model);
  if (budget.value < max) return;
  throw configError(
    `the thinking budget ${budget.value} (from ${budget.source}) is not below max tokens ${max} (${maxSource ? `from ${maxSource}` : `awl's default for ${model}`}); Anthropic requires max_tokens above the budget`,
    `raise max tokens above the budget (e.g. --max-tokens ${budget.value + THINKING_ANSWER_TOKENS}, the budget plus room for the answer) or lower the budget`,
  );
}

/**
 * The thinking setting from the flags, else the file: `--thinking off|adaptive|N` or `--thinking-budget N`
 * (its older, budget-only spelling), `"thinking"` or `"thinking_budget"`. Both spellings at one level is an error.
 */
function thinkingChoice(flags: SettingsFlags, file: ConfigFileValues, fileKey: (key: string) => string): Sourced<ThinkingSetting> | undefined {
  const atOneLevel = (general: [string | number | undefined, string], budget: [string | number | undefined, string]) => {
    if (general[0] !== undefined && budget[0] !== undefined)
      throw configError(`both ${general[1]} and ${budget[1]} are set`, `keep ${general[1]} only: it takes a budget too`);
    if (general[0] !== undefined) return parseThinking(general[0], general[1], false);
    if (budget[0] !== undefined) return parseThinking(budget[0], budget[1], true);
    return undefined;
  };
  return (
    atOneLevel([flags.thinking, "--thinking"], [flags.thinkingBudget, "--thinking-budget"]) ??
    atOneLevel([file.thinking, fileKey("thinking")], [file.thinking_budget, fileKey("thinking_budget")])
  );
}

function parseThinking(raw: string | number, source: string, budgetOnly: boolean): Sourced<ThinkingSetting> {
  const text = String(raw).trim().toLowerCase();
  if (!budgetOnly && (text === "off" || text === "adaptive")) return { value: text, source };
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    const expected = budgetOnly ? "a whole number of tokens" : "off, adaptive or a whole number of tokens";
    throw configError(`${source} expects ${expected}, got ${JSON.stringify(raw)}`, `e.g. ${budgetOnly ? "8000" : "adaptive, off or 8000"} (a budget is at least ${MIN_THINKING_BUDGET})`);
  }
  const budget = Number(text);
  if (budget < MIN_THINKING_BUDGET) {
    throw configError(
      `the thinking budget ${budget} (from ${source}) is below Anthropic's minimum of ${MIN_THINKING_BUDGET} tokens`,
      `use ${MIN_THINKING_BUDGET} or more, or adaptive, or off`,
    );
  }
  return { value: budget, source };
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

/**
 * Bedrock's AWS settings: a chosen profile goes to the SDK's chain (as the AWS CLI, it wins over the access key
 * variables); else the access keys of the variables when both are set; else the chain's default profile and the rest.
 */
function awsSettings(env: NodeJS.ProcessEnv, region: string | undefined, profile: Sourced<string> | undefined, regionalEndpoint: boolean): AwsSettings {
  const aws: AwsSettings = { regionalEndpoint };
  if (region) aws.region = region;
  const keys = awsAccessKeys(env);
  if (profile) aws.profile = { name: profile.value, source: profile.source };
  else if (keys) aws.credentials = keys;
  return aws;
}

/** The AWS access keys of the standard variables, when both are set (and the session token with them). */
function awsAccessKeys(env: NodeJS.ProcessEnv): { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | undefined {
  if (!env.AWS_ACCESS_KEY_ID || !env.AWS_SECRET_ACCESS_KEY) return undefined;
  return { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}) };
}
