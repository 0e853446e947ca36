/**
 * A plugin package read without running anything of it (docs/plugins.md, "Format"). Three layouts:
 *
 * - an **Agent Plugins 1.0** folder: `plugin.json` (checked against awl's JSON Schema of the spec's rules,
 *   schema/plugins/plugin-manifest.schema.json: unknown fields are reported and ignored, any other fault is fatal), `skills/`, `mcp.json`, and awl's client folder `dev.awl/`
 *   (the spec's reverse-domain rule for client extension folders) with `extensions/`, `commands/`, `agents/`
 *   and `hooks.json`;
 * - a **Claude Code plugin**: `.claude-plugin/plugin.json` with `commands/`, `agents/`, `skills/`,
 *   `hooks/hooks.json` and `.mcp.json` at the root;
 * - a **plain folder of Lua extensions** (no manifest): its `.lua` files and `x/init.lua` folders;
 * - a **rock** awl made into a package (`awl-rock.json`, fetch-rock.ts): Lua modules for `require`.
 *
 * Only file names, sizes and the manifest's text are read here. A fault is a {@link PluginFormatError} naming
 * the file, the line and the field.
 */
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { exists, isDir } from "./folder-list.js";
import { validate as validateManifestRaw } from "./manifest-validator.generated.js";
import { partsOf, PLUGIN_SCHEMA_1_0, ROCK_FILE, type PluginLayout, type PluginParts } from "./package-format.js";
import { isObject, PluginFormatError, readJsonObject } from "./plugin-json.js";

/** One error of the generated schema validator (ajv's shape, without messages). */
interface SchemaError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
}

/** The Agent Plugins 1.0.0 manifest schema, precompiled (scripts/generate-plugin-validators.mjs). */
const validateManifest = validateManifestRaw as ((value: unknown) => boolean) & { errors?: SchemaError[] | null };

/** What a package says about itself, and where its parts are. */
export interface PluginPackage {
  root: string;
  layout: PluginLayout;
  name: string;
  version?: string;
  description?: string;
  /** The manifest file (none for a plain Lua folder). */
  manifestFile?: string;
  parts: PluginParts;
  /** Things reported and ignored: unknown manifest fields, Claude Code features awl does not run. */
  notices: string[];
}

const AGENT_PLUGIN_FIELDS = new Set(["$schema", "name", "version", "description", "author", "homepage", "repository", "license", "keywords", "extensions"]);
const AUTHOR_FIELDS = new Set(["name", "email", "url"]);
const NAME = /^(?!.*(?:--|\.\.))[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/;

/** Claude Code manifest fields awl reads; the others are listed with the reason in {@link CLAUDE_UNSUPPORTED}. */
const CLAUDE_FIELDS = new Set(["$schema", "name", "version", "description", "author", "homepage", "repository", "license", "keywords"]);
/** Claude Code plugin features that cannot work in awl, and why (also in docs/plugins.md). */
export const CLAUDE_UNSUPPORTED: Readonly<Record<string, string>> = {
  commands: "custom command paths are not read; awl reads the default commands/ folder",
  agents: "custom agent paths are not read; awl reads the default agents/ folder",
  skills: "custom skill paths are not read; awl reads the default skills/ folder",
  hooks: "hooks declared in plugin.json are not read; awl reads hooks/hooks.json",
  mcpServers: "MCP servers declared in plugin.json are not read; awl reads .mcp.json",
  outputStyles: "output styles are a Claude Code UI feature awl does not have",
  lspServers: "awl has no language-server client",
  userConfig: "awl does not prompt for plugin settings at install; set them in the environment",
  channels: "message channels are a Claude Code feature awl does not have",
  settings: "awl does not take settings from a plugin",
};

/** Reads the package at `root`: its layout, name, version and parts. Throws {@link PluginFormatError}. */
export function readPluginPackage(root: string): PluginPackage {
  if (!isDir(root)) throw new PluginFormatError(`${root}: not a folder`);
  if (exists(join(root, "plugin.json"))) return readAgentPlugin(root);
  if (exists(join(root, ".claude-plugin", "plugin.json"))) return readClaudePlugin(root);
  if (exists(join(root, ROCK_FILE))) return readRock(root);
  return readLuaFolder(root);
}

function readAgentPlugin(root: string): PluginPackage {
  const file = join(root, "plugin.json");
  const { value, at } = readJsonObject(file);
  const notices: string[] = [];
  const faults: string[] = [];
  if (!validateManifest(value)) {
    for (const error of validateManifest.errors ?? []) {
      const said = schemaError(error, value, at);
      (said.notice ? notices : faults).push(said.text);
    }
  }
  if (faults.length > 0) throw new PluginFormatError(faults[0]!);
  const name = value.name as string;
  return { root, layout: "agent-plugins", name, ...metadata(value), manifestFile: file, parts: partsOf("agent-plugins", root), notices };
}

function readClaudePlugin(root: string): PluginPackage {
  const file = join(root, ".claude-plugin", "plugin.json");
  const { value, at } = readJsonObject(file);
  const notices: string[] = [];
  for (const key of Object.keys(value)) {
    if (CLAUDE_FIELDS.has(key)) continue;
    const why = CLAUDE_UNSUPPORTED[key];
    notices.push(`${at(`/${key}`)}: "${key}": ${why ?? "unknown field; ignored"}`);
  }
  const name = checkName(value.name, (problem) => {
    throw new PluginFormatError(`${at(value.name === undefined ? "" : "/name")}: "name" ${problem}`);
  });
  for (const key of ["version", "description"]) {
    if (value[key] !== undefined && typeof value[key] !== "string") throw new PluginFormatError(`${at(`/${key}`)}: "${key}" must be a string`);
  }
  return { root, layout: "claude-code", name, ...metadata(value), manifestFile: file, parts: partsOf("claude-code", root), notices };
}

/** A package awl made of a pure-Lua rock: its modules in `lua/`, for `require` only (never loaded as extensions). */
function readRock(root: string): PluginPackage {
  const { value, at } = readJsonObject(join(root, ROCK_FILE));
  const name = String(value.name ?? "").toLowerCase();
  if (!NAME.test(name)) throw new PluginFormatError(`${at("/name")}: "name" ${JSON.stringify(value.name)} cannot be a plugin name`);
  const included = Array.isArray(value.included) ? value.included.map(String) : [];
  const notices = included.length > 0 ? [`it brings the rocks it depends on, inside it: ${included.join(", ")}`] : [];
  return { root, layout: "lua-rock", name, ...metadata(value), manifestFile: join(root, ROCK_FILE), parts: partsOf("lua-rock", root), notices };
}

/** A folder without a manifest: its Lua files are extensions; its name is the folder's (or its `package.json`'s). */
function readLuaFolder(root: string): PluginPackage {
  let name = basename(root);
  let version: string | undefined;
  let description: string | undefined;
  try {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Record<string, unknown>;
    if (typeof pkg.name === "string") name = pkg.name.replace(/^@[^/]+\//, "");
    if (typeof pkg.version === "string") version = pkg.version;
    if (typeof pkg.description === "string") description = pkg.description;
  } catch {
    // no package.json: the folder's name
  }
  name = name.toLowerCase().replace(/[^a-z0-9.-]+/g, "-").replace(/-{2,}/g, "-").replace(/^[-.]+|[-.]+$/g, "");
  if (!NAME.test(name)) throw new PluginFormatError(`${root}: a plugin needs a name: this folder's name cannot be one (write a plugin.json)`);
  return {
    root,
    layout: "lua-folder",
    name,
    ...(version !== undefined && { version }),
    ...(description !== undefined && { description }),
    parts: partsOf("lua-folder", root),
    notices: [],
  };
}

/** One error of the manifest schema (schema/plugins/plugin-manifest.schema.json), in words; an unknown field is a notice. */
function schemaError(error: SchemaError, value: Record<string, unknown>, at: (pointer: string) => string): { notice: boolean; text: string } {
  const path = error.instancePath;
  const field = `"${path.slice(1).replace(/\//g, ".")}"`;
  const params = error.params;
  switch (error.keyword) {
    case "additionalProperties": {
      const key = String(params.additionalProperty);
      const allowed = path === "" ? AGENT_PLUGIN_FIELDS : path === "/author" ? AUTHOR_FIELDS : undefined;
      const full = path === "" ? key : `${path.slice(1).replace(/\//g, ".")}.${key}`;
      return { notice: true, text: `${at(`${path}/${key}`)}: unknown field "${full}"${allowed ? ` (Agent Plugins 1.0 allows ${[...allowed].join(", ")})` : ""}; ignored` };
    }
    case "required": {
      const key = String(params.missingProperty);
      return { notice: false, text: `${at("")}: "${key}" is missing${key === "$schema" ? `; write "$schema": "${PLUGIN_SCHEMA_1_0}"` : ""}` };
    }
    case "const":
      return { notice: false, text: `${at(path)}: ${field} is ${JSON.stringify(value.$schema)}: awl reads Agent Plugins 1.0 (${PLUGIN_SCHEMA_1_0})` };
    case "type":
      return { notice: false, text: `${at(path)}: ${field} must be ${params.type === "array" ? "a list" : `a${params.type === "object" ? "n" : ""} ${params.type}`}` };
    case "minLength":
    case "maxLength":
      return { notice: false, text: `${at(path)}: ${field} must be 1 to 64 characters` };
    case "pattern":
      return { notice: false, text: `${at(path)}: ${field} ${JSON.stringify(pointerValue(value, path))} is not a plugin name: lowercase letters, digits, - and ., starting and ending with a letter or digit, no -- or ..` };
    default:
      return { notice: false, text: `${at(path)}: ${field} does not match the Agent Plugins 1.0 schema (${error.keyword})` };
  }
}

function pointerValue(value: unknown, pointer: string): unknown {
  return pointer.split("/").slice(1).reduce<unknown>((at, key) => (isObject(at) ? at[key] : Array.isArray(at) ? at[Number(key)] : undefined), value);
}

function checkName(name: unknown, fail: (problem: string) => never): string {
  if (name === undefined) fail("is missing");
  if (typeof name !== "string") fail("must be a string");
  const text = name as string;
  if (text.length === 0 || text.length > 64) fail(`must be 1 to 64 characters (it is ${text.length})`);
  if (!NAME.test(text)) fail(`${JSON.stringify(text)} is not a plugin name: lowercase letters, digits, - and ., starting and ending with a letter or digit, no -- or ..`);
  return text;
}

function metadata(value: Record<string, unknown>): { version?: string; description?: string } {
  return {
    ...(typeof value.version === "string" && { version: value.version }),
    ...(typeof value.description === "string" && { description: value.description }),
  };
}
