/**
 * Which MCP servers to run: `mcpServers` in awl's config file (user) and in the project's `.mcp.json` (the
 * ecosystem's format, docs/mcp.md), the project's entry winning over a user one of the same name.
 *
 *     { "mcpServers": { "NAME": { "command": "...", "args": [...], "env": {...}, "cwd": "..." }
 *                     | { "type": "http" | "sse", "url": "...", "headers": {...} } } }
 *
 * plus awl's own optional keys per server: `timeout` (per-call, ms) and `disabled`. `${VAR}` and
 * `${VAR:-default}` in any string value are taken from the environment. A bad entry is a server that failed
 * with a message naming the file, the server and the key; the others are unaffected.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { KNOWN_KEY_VARIABLES } from "../../util/secrets.js";

/** Where a server is configured: the user's config, the project's `.mcp.json`, or an ACP client's `session/new`. */
export type McpConfigSource = "user" | "project" | "client";

export type McpTransportConfig =
  | { type: "stdio"; command: string; args: string[]; env: Record<string, string>; cwd: string }
  | { type: "http" | "sse"; url: string; headers: Record<string, string> };

/** One configured server: runnable (`transport`) or refused (`error`). */
export interface McpServerConfig {
  name: string;
  source: McpConfigSource;
  /** The file that configures it. */
  file: string;
  transport?: McpTransportConfig;
  /** Why the entry cannot be used; names the file, the server and the key. */
  error?: string;
  /** Per-call timeout, ms. */
  timeoutMs?: number;
  disabled: boolean;
  /** Why it does not start although it is configured: a project's `.mcp.json` server not approved (approvals.ts). */
  unapproved?: string;
  /** Hash of the entry as written (before `${VAR}` expansion): what an approval of a `.mcp.json` server covers. */
  fingerprint: string;
  /** The entry as written, `${VAR}`s unexpanded: what the approval question shows. */
  written?: Record<string, unknown>;
}

export const MCP_JSON = ".mcp.json";

const ENTRY_KEYS = new Set(["type", "command", "args", "env", "cwd", "url", "headers", "timeout", "disabled"]);

interface ParseOptions {
  source: McpConfigSource;
  /** Names where the entries come from in messages. */
  file: string;
  /** Where one entry is (e.g. `FILE:LINE` of its own key), when that is known; default `file`. */
  fileOf?: (name: string) => string | undefined;
  baseDir: string;
  env: NodeJS.ProcessEnv;
  /** `${VAR}` expansion in values (files written by hand); off for values a program passes as they are. */
  expand?: boolean;
  /** Variables a `${VAR}` may not name (awl's own credentials, in a project's `.mcp.json`): an error naming it. */
  withheld?: readonly string[];
}

/** The servers of one `mcpServers` object; `file` names where they come from in messages. */
export function parseMcpServers(value: unknown, options: ParseOptions): McpServerConfig[] {
  const { source, file } = options;
  if (value === undefined) return [];
  if (!isObject(value)) {
    return [{ name: "mcpServers", source, file, error: `${file}: "mcpServers" must be an object of named servers`, disabled: false, fingerprint: "" }];
  }
  return Object.entries(value).map(([name, entry]) => parseEntry(name, entry, { ...options, file: options.fileOf?.(name) ?? file }));
}

function parseEntry(name: string, entry: unknown, options: ParseOptions): McpServerConfig {
  const { source, file, baseDir, env } = options;
  const fingerprint = createHash("sha256").update(JSON.stringify(entry ?? null)).digest("hex").slice(0, 16);
  const base = { name, source, file, disabled: false, fingerprint };
  const at = `${file}: server "${name}"`;
  const fail = (problem: string): McpServerConfig => ({ ...base, error: `${at} ${problem}` });
  if (name.trim() === "") return fail("needs a name");
  if (!isObject(entry)) return fail('must be an object like {"command": "my-server", "args": []} or {"type": "http", "url": "..."}');
  const written = entry;
  const unknown = Object.keys(entry).filter((k) => !ENTRY_KEYS.has(k));
  if (unknown.length > 0) return fail(`has an unknown key "${unknown[0]}" (known: ${[...ENTRY_KEYS].join(", ")})`);
  const disabled = entry.disabled ?? false;
  if (typeof disabled !== "boolean") return fail(`key "disabled" must be true or false`);
  let timeoutMs: number | undefined;
  if (entry.timeout !== undefined) {
    if (!Number.isSafeInteger(entry.timeout) || (entry.timeout as number) <= 0) return fail(`key "timeout" must be a whole number of milliseconds above 0`);
    timeoutMs = entry.timeout as number;
  }
  const done = (transport: McpTransportConfig): McpServerConfig => ({ ...base, disabled, transport, written, ...(timeoutMs !== undefined && { timeoutMs }) });
  try {
    const expand = (text: string, key: string): string => (options.expand === false ? text : expandVariables(text, env, key, options.withheld));
    const type = entry.type ?? (entry.url !== undefined ? "http" : "stdio");
    if (type === "stdio") {
      if (typeof entry.command !== "string" || entry.command.trim() === "") return fail('needs "command": the program to run');
      const args = stringList(entry.args, "args").map((a, i) => expand(a, `args[${i}]`));
      const vars = stringMap(entry.env, "env");
      const serverEnv: Record<string, string> = {};
      for (const [key, text] of Object.entries(vars)) serverEnv[key] = expand(text, `env.${key}`);
      if (entry.cwd !== undefined && typeof entry.cwd !== "string") return fail('key "cwd" must be a string');
      const cwd = entry.cwd === undefined ? baseDir : resolveFrom(baseDir, expand(entry.cwd, "cwd"));
      return done({ type: "stdio", command: expand(entry.command, "command"), args, env: serverEnv, cwd });
    }
    if (type === "http" || type === "sse" || type === "streamable-http") {
      if (typeof entry.url !== "string") return fail('needs "url"');
      const url = expand(entry.url, "url");
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        return fail(`has a "url" that is not a URL: ${JSON.stringify(url)}`);
      }
      if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return fail(`has a "url" that is not http:// or https://: ${JSON.stringify(url)}`);
      const headers: Record<string, string> = {};
      for (const [key, text] of Object.entries(stringMap(entry.headers, "headers"))) headers[key] = expand(text, `headers.${key}`);
      return done({ type: type === "sse" ? "sse" : "http", url, headers });
    }
    return fail(`has an unknown "type" ${JSON.stringify(type)} (use "stdio", "http" or "sse")`);
  } catch (error) {
    if (error instanceof EntryError) return fail(error.message);
    throw error;
  }
}

class EntryError extends Error {}

/**
 * `${VAR}` and `${VAR:-default}` from `env`; an unset variable without a default is an error naming it, and so is
 * one of `withheld` (awl's own credentials: a project file never gets them).
 */
export function expandVariables(text: string, env: NodeJS.ProcessEnv, key: string, withheld: readonly string[] = []): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_whole, name: string, fallback: string | undefined) => {
    if (withheld.includes(name)) throw new EntryError(`uses \${${name}} in "${key}": ${name} holds awl's own key, which a project's ${MCP_JSON} never gets (set the server up in your own config)`);
    const value = env[name];
    if (value !== undefined && value !== "") return value;
    if (fallback !== undefined) return fallback;
    throw new EntryError(`uses \${${name}} in "${key}", but ${name} is not set (set it, or write \${${name}:-default})`);
  });
}

function stringList(value: unknown, key: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) throw new EntryError(`key "${key}" must be a list of strings`);
  return value;
}

function stringMap(value: unknown, key: string): Record<string, string> {
  if (value === undefined) return {};
  if (!isObject(value) || !Object.values(value).every((v) => typeof v === "string")) throw new EntryError(`key "${key}" must be an object of strings`);
  return value as Record<string, string>;
}

function resolveFrom(base: string, path: string): string {
  return isAbsolute(path) ? path : resolve(base, path);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The project's `.mcp.json`, read: absent is `undefined`; unreadable or bad JSON is one failed entry. */
export function readMcpJson(cwd: string, env: NodeJS.ProcessEnv): { file: string; servers: McpServerConfig[] } | undefined {
  const file = join(cwd, MCP_JSON);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    return { file, servers: [{ name: MCP_JSON, source: "project", file, error: `${file} cannot be read (${code})`, disabled: false, fingerprint: "" }] };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { file, servers: [{ name: MCP_JSON, source: "project", file, error: `${file} is not valid JSON (${(error as Error).message})`, disabled: false, fingerprint: "" }] };
  }
  const servers = isObject(parsed) ? parsed.mcpServers : undefined;
  return { file, servers: parseMcpServers(servers ?? {}, { source: "project", file, baseDir: cwd, env, withheld: KNOWN_KEY_VARIABLES }) };
}

/**
 * User servers, then the project's `.mcp.json` ones, then an ACP client's: a later one replaces an earlier one of
 * the same name.
 */
export function mergeServers(user: readonly McpServerConfig[], project: readonly McpServerConfig[], client: readonly McpServerConfig[] = []): McpServerConfig[] {
  const byName = new Map<string, McpServerConfig>();
  for (const server of [...user, ...project, ...client]) byName.set(server.name, server);
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
