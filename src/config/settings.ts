/**
 * Resolves awl's settings from, in rising precedence: environment, config file, flags (docs/cli.md).
 * Pure: the caller passes the environment, the file's values and the flag strings; nothing is read here.
 */
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
  maxSteps?: string;
  maxTokens?: string;
  thinkingBudget?: string;
  replay?: string;
}

export interface SettingsSources {
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
}

export const PROVIDERS = ["openai", "anthropic", "replay"] as const;
export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_STALL_TIMEOUT_MS = 90_000;
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

function resolve({ env, file = {}, filePath = "the config file", flags }: SettingsSources): AwlSettings {
  const fileKey = (key: string): string => `"${key}" in ${filePath}`;
  const pick = <T>(flag: [T | undefined, string], fromFile: [T | undefined, string], fromEnv?: [T | undefined, string]): Sourced<T> | undefined => {
    for (const [value, source] of [flag, fromFile, fromEnv ?? [undefined, ""]] as const) {
      if (value !== undefined && value !== "") return { value, source };
    }
    return undefined;
  };

  const providerChoice = pick(
    [flags.provider, "--provider"],
    [file.provider, fileKey("provider")],
    [env.AWL_PROVIDER, "AWL_PROVIDER"],
  ) ?? { value: "openai", source: "the default" };
  const provider = providerChoice.value.trim().toLowerCase();
  if (!(PROVIDERS as readonly string[]).includes(provider)) {
    throw configError(
      `unknown provider "${providerChoice.value}" (from ${providerChoice.source})`,
      `choose one of ${PROVIDERS.join(", ")} (openai covers any OpenAI-compatible server: set AWL_BASE_URL)`,
    );
  }

  const maxRetries = count(flags.maxRetries, "--max-retries", file.max_retries) ?? DEFAULT_MAX_RETRIES;
  const stallTimeoutMs = count(flags.stallTimeout, "--stall-timeout", file.stall_timeout_ms, 1) ?? DEFAULT_STALL_TIMEOUT_MS;
  const maxSteps = count(flags.maxSteps, "--max-steps", file.max_steps, 1) ?? DEFAULT_MAX_STEPS;
  const maxTokens = count(flags.maxTokens, "--max-tokens", file.max_tokens, 1);
  const thinkingBudget = count(flags.thinkingBudget, "--thinking-budget", file.thinking_budget, 1);

  const settings: ProviderSettings = { provider, model: "", baseUrl: "", maxRetries, stallTimeoutMs };
  if (maxTokens !== undefined) settings.maxTokens = maxTokens;
  if (thinkingBudget !== undefined) settings.thinkingBudget = thinkingBudget;
  if (file.compat) settings.compat = file.compat;

  if (provider === "replay") {
    if (!flags.replay) throw configError("--provider replay needs a script to play", "pass --replay FILE (format: docs/replay-format.md)");
    settings.replayFile = flags.replay;
    settings.model = pick([flags.model, "--model"], [file.model, fileKey("model")], [env.AWL_MODEL, "AWL_MODEL"])?.value ?? "replay";
    return { provider: settings, maxSteps };
  }

  const vendor = VENDORS[provider]!;
  const baseUrl = pick([flags.baseUrl, "--base-url"], [file.base_url, fileKey("base_url")], [env.AWL_BASE_URL, "AWL_BASE_URL"]);
  settings.baseUrl = baseUrl ? checkUrl(baseUrl) : vendor.baseUrl;

  const model = pick([flags.model, "--model"], [file.model, fileKey("model")], [env.AWL_MODEL, "AWL_MODEL"]);
  const apiKey = pick([undefined, ""], [file.api_key, fileKey("api_key")], [env.AWL_API_KEY, "AWL_API_KEY"])?.value ?? nonEmpty(env[vendor.keyVariable]);
  // Local OpenAI-compatible servers (Ollama, llama.cpp, vLLM) usually need no key; the vendors' own endpoints do.
  const keyMissing = apiKey === undefined && settings.baseUrl === vendor.baseUrl;
  const setKey = `set AWL_API_KEY or ${vendor.keyVariable} (e.g. export ${vendor.keyVariable}=...)`;
  const setModel = `set AWL_MODEL or pass --model NAME (e.g. --model ${vendor.exampleModel})`;
  const offline = "or try awl offline with --provider replay --replay FILE";
  if (keyMissing && !model) throw configError(`no API key and no model for provider "${provider}"`, `${setKey} and ${setModel}; ${offline}`);
  if (keyMissing) throw configError(`no API key for provider "${provider}"`, `${setKey}, ${offline}`);
  if (!model) throw configError(`no model chosen for provider "${provider}"`, setModel);
  settings.model = model.value;
  if (apiKey !== undefined) settings.apiKey = apiKey;
  return { provider: settings, maxSteps };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
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
