/**
 * The optional config file, `$XDG_CONFIG_HOME/awl/config.json` (default `~/.config/awl/config.json`),
 * documented in docs/cli.md. Unknown keys are kept in `raw` (other parts of awl read their own keys)
 * and reported as warnings, so a typo is seen rather than silently ignored.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { userConfigDir } from "./paths.js";
import { jsonErrorOffset, positionOf } from "./json-position.js";
import type { ConfigError, ConfigResult } from "./errors.js";

/** The keys awl's settings read from the file; each is optional. */
export interface ConfigFileValues {
  provider?: string;
  model?: string;
  base_url?: string;
  api_key?: string;
  max_retries?: number;
  stall_timeout_ms?: number;
  first_byte_timeout_ms?: number;
  max_steps?: number;
  max_tokens?: number;
  /** "off", "adaptive" or a budget in tokens. */
  thinking?: string | number;
  thinking_budget?: number;
  interleaved_thinking?: boolean;
  compat?: Record<string, unknown>;
  /** Per-provider endpoint, key variable and model, used whenever that provider is chosen (docs/cli.md). */
  providers?: Record<string, ProviderEntry>;
}

/** One entry of `providers`: where that provider lives, which environment variable holds its key, its model. */
export interface ProviderEntry {
  base_url?: string;
  api_key_env?: string;
  model?: string;
  /** Extra request headers (OpenRouter's `HTTP-Referer`, `X-Title`); "" leaves one of awl's own out. */
  headers?: Record<string, string>;
}
const PROVIDER_ENTRY_KEYS = ["base_url", "api_key_env", "model", "headers"];

export interface ConfigFile {
  path: string;
  values: ConfigFileValues;
  /** The whole object as read, for keys other modules own. */
  raw: Record<string, unknown>;
  /** Non-fatal remarks, e.g. unknown keys. */
  warnings: string[];
}

type KeyKind = "string" | "count" | "boolean" | "thinking" | "object" | "providers";
const KEYS: Record<keyof ConfigFileValues, KeyKind> = {
  provider: "string",
  model: "string",
  base_url: "string",
  api_key: "string",
  max_retries: "count",
  stall_timeout_ms: "count",
  first_byte_timeout_ms: "count",
  max_steps: "count",
  max_tokens: "count",
  thinking: "thinking",
  thinking_budget: "count",
  interleaved_thinking: "boolean",
  compat: "object",
  providers: "providers",
};

/** Keys owned by other modules (extensions, sessions); they register here so they are not reported as unknown. */
export const OTHER_CONFIG_KEYS = new Set<string>([
  // The Lua runtime's limits, read by src/cli/commands/lua-limits.ts (listed here: it loads after the file is read).
  "lua_workers",
  "lua_memory_mb",
  "tool_timeout_ms",
  // Permission rules, modes and folder trust, read by src/permissions/config.ts.
  "permissions",
  "trusted_folders",
  // MCP servers, read by src/cli/mcp-tools.ts (docs/mcp.md).
  "mcpServers",
  "mcp_startup_timeout_ms",
  "approve_mcp_json",
  // Per-model corrections of the catalogue, read by src/usage/model-overrides.ts (docs/cost.md).
  "models",
  // Extensions switched off and on (`awl extensions disable NAME`), read by src/extensions/enablement.ts.
  "extensions",
  // The system prompt's text or @file, read by src/cli/system-prompt-option.ts (docs/cli.md).
  "system_prompt",
  "append_system_prompt",
  // Compaction's threshold and switch, read by src/compaction/settings.ts (docs/compaction.md).
  "compaction",
]);

/** Where the config file lives for this environment. */
export function configFilePath(env: NodeJS.ProcessEnv): string {
  return join(userConfigDir(env), "config.json");
}

/** Reads and checks the config file; a missing file is `{ ok: true, value: undefined }`. */
export function readConfigFile(path: string): ConfigResult<ConfigFile | undefined> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { ok: true, value: undefined };
    return fail(path, `cannot be read (${code ?? String(e)})`, "check its permissions, or move it away");
  }
  return parseConfigText(path, text);
}

/** Checks config file text; `path` is only used in messages. */
export function parseConfigText(path: string, text: string): ConfigResult<ConfigFile> {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    const offset = jsonErrorOffset(text);
    const { line, column } = positionOf(text, offset < 0 ? text.length : offset);
    const detail = (e as Error).message.split("\n")[0];
    return fail(`${path}:${line}:${column}`, `is not valid JSON (${detail})`, "fix the file or remove it");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return fail(path, "must hold one JSON object, like {\"model\": \"gpt-4o-mini\"}", "fix the file or remove it");
  }
  const raw = parsed as Record<string, unknown>;
  const values: Record<string, unknown> = {};
  const warnings: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    const kind = KEYS[key as keyof ConfigFileValues];
    if (kind === undefined) {
      if (!OTHER_CONFIG_KEYS.has(key)) warnings.push(`${path}: unknown key "${key}" (ignored)`);
      continue;
    }
    const problem = checkValue(kind, value);
    if (problem) return fail(path, `key "${key}" ${problem}`, "fix the file or remove the key");
    values[key] = value;
  }
  return { ok: true, value: { path, values: values as ConfigFileValues, raw, warnings } };
}

function checkValue(kind: KeyKind, value: unknown): string | undefined {
  switch (kind) {
    case "string":
      return typeof value === "string" && value.trim() !== "" ? undefined : `must be a non-empty string, got ${JSON.stringify(value)}`;
    case "count":
      return Number.isSafeInteger(value) && (value as number) >= 0 ? undefined : `must be a whole number ≥ 0, got ${JSON.stringify(value)}`;
    case "boolean":
      return typeof value === "boolean" ? undefined : `must be true or false, got ${JSON.stringify(value)}`;
    case "thinking":
      return value === "off" || value === "adaptive" || checkValue("count", value) === undefined
        ? undefined
        : `must be "off", "adaptive" or a whole number of tokens, got ${JSON.stringify(value)}`;
    case "object":
      return isObject(value) ? undefined : "must be an object";
    case "providers":
      if (!isObject(value)) return 'must be an object like {"anthropic": {"api_key_env": "ANTHROPIC_API_KEY"}}';
      for (const [name, entry] of Object.entries(value)) {
        const keys = PROVIDER_ENTRY_KEYS.map((k) => `"${k}"`).join(", ");
        if (!isObject(entry)) return `entry "${name}" must be an object with any of ${keys}`;
        for (const [key, field] of Object.entries(entry)) {
          if (!PROVIDER_ENTRY_KEYS.includes(key)) return `entry "${name}" has an unknown key "${key}" (use ${keys})`;
          const problem = key === "headers" ? checkHeaders(field) : checkValue("string", field);
          if (problem) return `entry "${name}.${key}" ${problem}`;
        }
      }
      return undefined;
  }
}

/** A header map: names HTTP accepts, string values (an empty one removes awl's own header of that name). */
function checkHeaders(value: unknown): string | undefined {
  const example = 'must be an object of strings like {"HTTP-Referer": "https://example.com", "X-Title": "my app"}';
  if (!isObject(value)) return example;
  for (const [name, field] of Object.entries(value)) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) return `has a header name ${JSON.stringify(name)} that HTTP does not allow`;
    if (typeof field !== "string" || /[\r\n]/.test(field)) return `has a header "${name}" whose value is not a one-line string (${JSON.stringify(field)}); ${example}`;
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function fail(where: string, problem: string, hint: string): { ok: false; error: ConfigError } {
  return { ok: false, error: { message: `the config file ${where} ${problem}`, hint } };
}
