/**
 * One config file (a layer): read, parsed and checked against the JSON Schema shipped in the package
 * (schema/config.schema.json, docs/config.md), with the standalone validator generated from it ahead of time
 * (config-validator.generated.ts) so that no schema compiler loads on the start-up path. A wrong value is an
 * error naming file, line, key and what was expected; an unknown key is a warning naming the same (ignored,
 * so a file written for a newer awl still works).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { userConfigDir } from "./paths.js";
import { checkedBefore, rememberChecked } from "./checked-texts.js";
import { jsonErrorOffset, memberPositions, positionOf, type TextPosition } from "./json-position.js";
import type { SchemaError } from "./schema-errors.js";
import type { ConfigError, ConfigResult } from "./errors.js";

/** Which file a value came from: the user's own, or the project's `.awl/config.json`. */
export type ConfigScope = "user" | "project";

/** The keys awl's settings read from the file; each is optional (the schema declares them and many more). */
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
  /** Per-provider endpoint, key variable and model, used whenever that provider is chosen (docs/config.md). */
  providers?: Record<string, ProviderEntry>;
  /** The web search backend (docs/config.md); its `api_key` is scrubbed like a provider's. */
  search?: { api_key?: string; backend?: string };
}

/** One entry of `providers`: where that provider lives, which environment variable holds its key, its model. */
export interface ProviderEntry {
  base_url?: string;
  api_key_env?: string;
  model?: string;
  /** Extra request headers (OpenRouter's `HTTP-Referer`, `X-Title`); "" leaves one of awl's own out. */
  headers?: Record<string, string>;
  /** Bedrock, Vertex: the cloud region (`us-east-1`, `europe-west1`). */
  region?: string;
  /** Bedrock: the AWS profile of `~/.aws/credentials` and `~/.aws/config`. */
  profile?: string;
  /** Vertex AI: the Google Cloud project. */
  project?: string;
}

/** One config file as read and checked. */
export interface ConfigLayer {
  scope: ConfigScope;
  path: string;
  /** The whole object as read (unknown keys included; they are reported in `warnings`). */
  values: Record<string, unknown>;
  /** Where the key of the member at a JSON Pointer (`/providers/openai/model`) starts; `""` is the file's start. */
  positionOf(pointer: string): TextPosition | undefined;
  /** Non-fatal remarks for stderr, e.g. unknown keys. */
  warnings: string[];
}

/** The user's config file for this environment: `$XDG_CONFIG_HOME/awl/config.json`, default `~/.config/awl/config.json`. */
export function configFilePath(env: NodeJS.ProcessEnv): string {
  return join(userConfigDir(env), "config.json");
}

/** The project's config file for a working directory: `.awl/config.json` in that directory (not its parents). */
export function projectConfigPath(cwd: string): string {
  return join(cwd, ".awl", "config.json");
}

/**
 * Reads and checks one config file; a missing file is `{ ok: true, value: undefined }`. With `env`, a text that
 * passed the check with nothing to say is remembered in its cache folder, and the same text is not checked again
 * (checked-texts.ts).
 */
export async function readConfigFile(path: string, scope: ConfigScope = "user", env?: NodeJS.ProcessEnv): Promise<ConfigResult<ConfigLayer | undefined>> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { ok: true, value: undefined };
    return fail(path, `cannot be read (${code ?? String(e)})`, "check its permissions, or move it away");
  }
  return parseConfigText(path, text, scope, env);
}

/** Checks config file text; `path` is used in messages (and with `env`, see `readConfigFile`, to remember the text). */
export async function parseConfigText(path: string, text: string, scope: ConfigScope = "user", env?: NodeJS.ProcessEnv): Promise<ConfigResult<ConfigLayer>> {
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
    return fail(path, 'must hold one JSON object, like {"model": "gpt-4o-mini"}', "fix the file or remove it");
  }
  let positions: Map<string, TextPosition> | undefined;
  const layer: ConfigLayer = {
    scope,
    path,
    values: parsed as Record<string, unknown>,
    positionOf: (pointer) => (positions ??= memberPositions(text)).get(pointer),
    warnings: [],
  };
  if (env && checkedBefore(env, path, text)) return { ok: true, value: layer };
  const problems = await checkAgainstSchema(layer, await configValidator());
  if (problems) return problems;
  if (env && layer.warnings.length === 0) rememberChecked(env, path, text);
  return { ok: true, value: layer };
}

type Validator = ((data: unknown) => boolean) & { errors?: SchemaError[] | null };
let validator: Promise<Validator> | undefined;

/** The generated validator, loaded when the first file is read: a run with no config file never loads it. */
function configValidator(): Promise<Validator> {
  return (validator ??= import("./config-validator.generated.js").then((mod) => mod.validate as unknown as Validator));
}

/** Runs the generated validator; fills the layer's warnings, or returns the error for wrong values. */
async function checkAgainstSchema(layer: ConfigLayer, validate: Validator): Promise<{ ok: false; error: ConfigError } | undefined> {
  if (validate(layer.values)) return undefined;
  // The words for the problems, only when there are some.
  const { describeSchemaError } = await import("./schema-errors.js");
  const errors: string[] = [];
  const problems = describeSchemaError(validate.errors ?? [], layer.values).map((problem) => ({ ...problem, at: layer.positionOf(problem.pointer) }));
  problems.sort((a, b) => (a.at?.line ?? 0) - (b.at?.line ?? 0));
  for (const { at, ...problem } of problems) {
    const where = `${layer.path}${at ? `:${at.line}` : ""}`;
    if (problem.unknownKey) layer.warnings.push(`${where}: ${problem.text} (ignored)`);
    else errors.push(`${where}: ${problem.text}`);
  }
  if (errors.length === 0) return undefined;
  // The unknown keys are said too: the file is being fixed now, and they are part of what is wrong with it.
  const more = [...errors.slice(1), ...layer.warnings].map((e) => `\n  also ${e}`).join("");
  return { ok: false, error: { message: `the config file ${errors[0]}${more}`, hint: "fix the file or remove the key (docs/config.md lists every key)" } };
}

function fail(where: string, problem: string, hint: string): { ok: false; error: ConfigError } {
  return { ok: false, error: { message: `the config file ${where} ${problem}`, hint } };
}
