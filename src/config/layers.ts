/**
 * The config files as one: the user's (`$XDG_CONFIG_HOME/awl/config.json`) under the project's
 * (`.awl/config.json` in the working directory), each value knowing the file, key and line it came from
 * (docs/config.md). Flags rank above both; the settings resolver and each module apply theirs.
 */
import { configFilePath, projectConfigPath, readConfigFile, type ConfigLayer, type ConfigScope } from "./config-file.js";
import type { ConfigResult } from "./errors.js";
import { isTrustedFolder, trustedFoldersIn } from "../permissions/trust.js";

/** Where one value was set. */
export interface ConfigSource {
  scope: ConfigScope;
  file: string;
  /** Dotted, as docs/config.md names keys: `providers.openai.model`. */
  key: string;
  /** 1-based line of the key in the file. */
  line: number;
}

/** A value and where it was set. */
export interface SourcedValue<T> {
  value: T;
  source: ConfigSource;
}

/**
 * Keys a project file sets only when the folder is trusted: they decide where requests (and so the user's
 * API key) go, or hold a key, and a cloned repository is input, not the user's choice.
 */
const TRUSTED_ONLY: readonly RegExp[] = [
  /^\/api_key$/,
  /^\/base_url$/,
  /^\/providers\/[^/]+\/(base_url|api_key_env)$/,
  // Which of the user's cloud credentials sign (an AWS profile, whose credential_process is a program too).
  /^\/providers\/[^/]+\/profile$/,
  // Programs to start, and the switch that starts a project's .mcp.json servers unasked.
  /^\/mcpServers$/,
  /^\/approve_mcp_json$/,
  // Commands awl runs on the agent's events (docs/hooks.md).
  /^\/hooks$/,
  // Where web searches go, with which key (docs/config.md).
  /^\/search$/,
];

export interface LoadConfigOptions {
  env: NodeJS.ProcessEnv;
  /** The working directory, whose `.awl/config.json` is the project file. */
  cwd: string;
  /**
   * Whether the project folder is trusted: then its file may also set the keys that route requests and keys.
   * Undefined: the one trust store decides, the user file's `trusted_folders` (docs/permissions.md, "Trust").
   */
  trustProject?: boolean;
}

/** The merged configuration: project over user; objects merged key by key, any other value replaced. */
export class LoadedConfig {
  /** Every value, merged. Read a section with `get` to know where it came from. */
  readonly values: Record<string, unknown>;
  readonly warnings: readonly string[];

  constructor(
    /** The files that exist, lowest first (user, then project). */
    readonly layers: readonly ConfigLayer[],
    /** Where each file is or would be (messages tell users where to put a setting). */
    readonly paths: Readonly<Record<ConfigScope, string>>,
    /** Whether the project folder was trusted when the files were read (its trusted-only keys count then). */
    readonly trusted = false,
  ) {
    this.values = {};
    for (const layer of layers) mergeInto(this.values, layer.values);
    this.warnings = layers.flatMap((l) => l.warnings);
  }

  /** The merged value at `key` (dotted, or the path as a list when a name holds a dot) and the file that set it. */
  get<T = unknown>(key: string | readonly string[]): SourcedValue<T> | undefined {
    const path = toPath(key);
    const value = valueAt(this.values, path);
    if (value === undefined) return undefined;
    const from = [...this.layers].reverse().find((l) => valueAt(l.values, path) !== undefined)!;
    return { value: value as T, source: sourceIn(from, path) };
  }

  /** Each file's own value at `key`, lowest first: for sections a module combines itself (e.g. rule lists). */
  all<T = unknown>(key: string | readonly string[]): Array<SourcedValue<T>> {
    const path = toPath(key);
    return this.layers.flatMap((layer) => {
      const value = valueAt(layer.values, path);
      return value === undefined ? [] : [{ value: value as T, source: sourceIn(layer, path) }];
    });
  }

  /** Every merged scalar or list, with its source, in the files' order: what `awl config` shows. */
  entries(): Array<SourcedValue<unknown>> {
    const out: Array<SourcedValue<unknown>> = [];
    const walk = (value: unknown, path: string[]): void => {
      if (isPlainObject(value) && (path.length === 0 || Object.keys(value).length > 0)) {
        for (const [k, v] of Object.entries(value)) if (!(path.length === 0 && k === "$schema")) walk(v, [...path, k]);
      } else out.push({ value, source: this.get(path)!.source });
    };
    walk(this.values, []);
    return out;
  }

  /** `"key" in FILE:LINE` for a value that is set, else `"key" in USER-FILE` (where to set it). */
  describe(key: string | readonly string[]): string {
    const found = this.get(key);
    return found ? `"${found.source.key}" in ${where(found.source)}` : `"${toPath(key).join(".")}" in ${this.paths.user}`;
  }
}

/** `FILE:LINE`. */
export function where(source: ConfigSource): string {
  return `${source.file}:${source.line}`;
}

/** Reads the user's and the project's config files; a missing file is no error, a bad one names file and line. */
export async function loadConfig({ env, cwd, trustProject }: LoadConfigOptions): Promise<ConfigResult<LoadedConfig>> {
  const paths = { user: configFilePath(env), project: projectConfigPath(cwd) };
  // A project folder whose .awl/config.json is the user's file (e.g. XDG_CONFIG_HOME=~/.awl run in ~) is read once.
  const scopes = paths.project === paths.user ? (["user"] as const) : (["user", "project"] as const);
  const reads = await Promise.all(scopes.map((scope) => readConfigFile(paths[scope], scope, env)));
  const layers: ConfigLayer[] = [];
  for (const read of reads) {
    if (!read.ok) return read;
    if (read.value) layers.push(read.value);
  }
  const user = layers.find((l) => l.scope === "user");
  const trusted = trustProject ?? (user !== undefined && isTrustedFolder(cwd, trustedFoldersIn(user.values)));
  for (const layer of layers) if (layer.scope === "project" && !trusted) dropTrustedOnly(layer);
  return { ok: true, value: new LoadedConfig(layers, paths, trusted) };
}

/**
 * The config without these dotted keys of the project file (a trusted folder's settings changed since it was
 * trusted: src/trust/pin.ts), each said as a warning with its line.
 */
export function withoutProjectKeys(config: LoadedConfig, keys: readonly string[]): LoadedConfig {
  for (const layer of config.layers) {
    if (layer.scope !== "project") continue;
    for (const key of keys) {
      const path = key.split(".");
      let parent: unknown = layer.values;
      for (const part of path.slice(0, -1)) parent = isPlainObject(parent) ? parent[part] : undefined;
      if (!isPlainObject(parent) || !(path.at(-1)! in parent)) continue;
      const at = layer.positionOf(`/${path.join("/")}`);
      layer.warnings.push(`${layer.path}${at ? `:${at.line}` : ""}: "${key}" changed since the folder was trusted (ignored until you trust the change)`);
      delete parent[path.at(-1)!];
    }
  }
  return new LoadedConfig(config.layers, config.paths, config.trusted);
}

/** Removes the keys of TRUSTED_ONLY from an untrusted project file (the layer's own copy), saying so. */
function dropTrustedOnly(layer: ConfigLayer): void {
  const found: Array<{ pointer: string; parent: Record<string, unknown>; key: string }> = [];
  const visit = (value: unknown, pointer: string): void => {
    if (!isPlainObject(value)) return;
    for (const [key, child] of Object.entries(value)) {
      const at = `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
      if (TRUSTED_ONLY.some((re) => re.test(at))) found.push({ pointer: at, parent: value, key });
      else visit(child, at);
    }
  };
  visit(layer.values, "");
  for (const { pointer, parent, key } of found) {
    const at = layer.positionOf(pointer);
    layer.warnings.push(
      `${layer.path}${at ? `:${at.line}` : ""}: "${pointer.slice(1).replace(/\//g, ".")}" is not read from a project file of a folder that is not trusted (ignored; set it in your user config file, or trust the folder)`,
    );
    delete parent[key];
  }
}

function sourceIn(layer: ConfigLayer, path: readonly string[]): ConfigSource {
  const pointer = path.map((k) => `/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
  return { scope: layer.scope, file: layer.path, key: path.join("."), line: layer.positionOf(pointer)?.line ?? 1 };
}

function mergeInto(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(source)) {
    const here = target[key];
    if (isPlainObject(here) && isPlainObject(value)) mergeInto(here, value);
    else target[key] = isPlainObject(value) ? mergeCopy(value) : value;
  }
}

function mergeCopy(value: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  mergeInto(copy, value);
  return copy;
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let value = root;
  for (const key of path) {
    if (!isPlainObject(value) || !Object.hasOwn(value, key)) return undefined;
    value = value[key];
  }
  return value;
}

function toPath(key: string | readonly string[]): readonly string[] {
  return typeof key === "string" ? key.split(".") : key;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
