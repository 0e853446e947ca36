/**
 * What a folder brings that runs or widens, as a list of named items with a digest each: the content that trust
 * is pinned to (docs/permissions.md, "Trust"). Each kind of content is one entry of `CONTENT_PARTS`; a new kind
 * (skills' scripts, agent definitions, prompt commands) plugs in with one line there.
 *
 * Narrowing content (deny and ask rules, `permissions.mode` "plan", the sandbox on) is no item: changing it
 * never asks again.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync, type Dirent } from "node:fs";
import { join } from "node:path";
import type { FileDigests } from "./file-digests.js";

/** One unit of content that loads (or widens) as a whole: an extension, a hook, an allow rule, an MCP server... */
export interface ContentItem {
  /** `extension`, `hook`, `allow`, `setting`, `mcp`: see CONTENT_PARTS. */
  kind: string;
  /** The name the user knows it by: the extension's dotted name, the rule's text, the server's name. */
  name: string;
  /** sha256 of its content (files' bytes, or the JSON value). */
  digest: string;
}

/** What a part is read from. */
export interface FolderContent {
  /** The folder (real path). */
  folder: string;
  /** `.awl/config.json` parsed (undefined: none, or not JSON: the config loader reports that). */
  config: Record<string, unknown> | undefined;
  /** `.mcp.json` parsed. */
  mcpJson: Record<string, unknown> | undefined;
  files: FileDigests;
}

/** One kind of content: its words for the user, and how to list its items. */
export interface ContentPart {
  kind: string;
  /** Singular words for one item: `extension`, `allow rule`. */
  label: string;
  items(content: FolderContent): ContentItem[];
}

/** Every kind of content that trust pins, in the order changes are shown. */
export const CONTENT_PARTS: readonly ContentPart[] = [
  { kind: "extension", label: "extension", items: (c) => extensionItems(c, join(c.folder, ".awl", "extensions")) },
  { kind: "hook", label: "hook", items: (c) => hookItems(c.config?.hooks) },
  { kind: "allow", label: "allow rule", items: (c) => allowItems(c.config) },
  { kind: "setting", label: "setting", items: (c) => settingItems(c.config) },
  { kind: "mcp", label: "MCP server", items: (c) => objectItems("mcp", c.mcpJson?.mcpServers) },
];

/** Every item of the folder, by `kind:name`. */
export function contentItems(folder: string, files: FileDigests): Map<string, ContentItem> {
  const content: FolderContent = { folder, config: readJson(join(folder, ".awl", "config.json")), mcpJson: readJson(join(folder, ".mcp.json")), files };
  const out = new Map<string, ContentItem>();
  for (const part of CONTENT_PARTS) for (const item of part.items(content)) out.set(itemKey(item.kind, item.name), item);
  return out;
}

/** The key of an item in a pin record. */
export function itemKey(kind: string, name: string): string {
  return `${kind}:${name}`;
}

/** The user's words for a kind. */
export function kindLabel(kind: string): string {
  return CONTENT_PARTS.find((p) => p.kind === kind)?.label ?? kind;
}

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(readFileSync(path, "utf8").replace(/^\uFEFF/, ""));
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** sha256 of a JSON value with its keys in a stable order. */
export function jsonDigest(value: unknown): string {
  return createHash("sha256").update(stableJson(value)).digest("hex");
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (isObject(value)) return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${stableJson(value[k])}`).join(",")}}`;
  return JSON.stringify(value) ?? "null";
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function objectItems(kind: string, value: unknown): ContentItem[] {
  if (!isObject(value)) return [];
  return Object.entries(value).map(([name, entry]) => ({ kind, name, digest: jsonDigest(entry) }));
}

function allowItems(config: Record<string, unknown> | undefined): ContentItem[] {
  const list = isObject(config?.permissions) ? (config.permissions as Record<string, unknown>).allow : undefined;
  if (!Array.isArray(list)) return [];
  return list.filter((r): r is string => typeof r === "string").map((rule) => ({ kind: "allow", name: rule, digest: jsonDigest(rule) }));
}

/** Settings that widen what runs or where requests go (what an untrusted project file may not set). */
function settingItems(config: Record<string, unknown> | undefined): ContentItem[] {
  if (!config) return [];
  const out: ContentItem[] = [];
  const add = (name: string, value: unknown, widens: boolean): void => {
    if (value !== undefined && widens) out.push({ kind: "setting", name, digest: jsonDigest(value) });
  };
  const permissions = isObject(config.permissions) ? config.permissions : {};
  add("permissions.mode", permissions.mode, permissions.mode === "accept-edits" || permissions.mode === "bypass");
  add("permissions.sandbox", permissions.sandbox, permissions.sandbox === false);
  add("permissions.sandbox_auto_allow", permissions.sandbox_auto_allow, permissions.sandbox_auto_allow === true);
  add("base_url", config.base_url, true);
  add("approve_mcp_json", config.approve_mcp_json, config.approve_mcp_json === true);
  add("mcpServers", config.mcpServers, true);
  if (isObject(config.providers)) {
    for (const [provider, entry] of Object.entries(config.providers)) {
      if (!isObject(entry)) continue;
      add(`providers.${provider}.base_url`, entry.base_url, true);
      add(`providers.${provider}.api_key_env`, entry.api_key_env, true);
    }
  }
  return out;
}

/** Claude Code's `hooks` format: event → [{ matcher, hooks: [{ type, command, timeout }] }]; one item per hook. */
function hookItems(hooks: unknown): ContentItem[] {
  const out: ContentItem[] = [];
  eachHook(hooks, (name, digest) => {
    out.push({ kind: "hook", name, digest });
    return true;
  });
  return out;
}

/** Removes the hooks with these names (unpinned ones) from a `hooks` value, in place. */
export function dropHooks(hooks: unknown, names: ReadonlySet<string>): void {
  eachHook(hooks, (name) => !names.has(name));
}

/** Calls `keep` for each hook with its item name and digest; a hook it returns false for is removed. */
function eachHook(hooks: unknown, keep: (name: string, digest: string) => boolean): void {
  if (!isObject(hooks)) return;
  const seen = new Map<string, number>();
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups) {
      const matcher = isObject(group) && typeof group.matcher === "string" && group.matcher !== "" ? ` (${group.matcher})` : "";
      const list: unknown[] = isObject(group) && Array.isArray(group.hooks) ? group.hooks : [group];
      for (let i = 0; i < list.length; i++) {
        const hook = list[i];
        const what = isObject(hook) && typeof hook.command === "string" ? hook.command : JSON.stringify(hook);
        const base = `${event}${matcher}: ${what}`;
        const n = (seen.get(base) ?? 0) + 1;
        seen.set(base, n);
        if (keep(n === 1 ? base : `${base} #${n}`, jsonDigest({ matcher, hook })) || list !== (group as Record<string, unknown>).hooks) continue;
        list.splice(i--, 1);
      }
    }
  }
}

/**
 * One item per extension, named as discovery names it (src/extensions/discover.ts): its digest covers the entry
 * point and every module it may load as its own (a directory extension's files; a file extension's `_` siblings).
 */
function extensionItems(content: FolderContent, root: string): ContentItem[] {
  const out: ContentItem[] = [];
  const visit = (dir: string, parts: string[], depth: number): void => {
    if (depth > 8) return;
    const entries = listDir(dir);
    const shared = entries.filter((e) => e.name.startsWith("_")).flatMap((e) => filesOf(join(dir, e.name), entryIsDir(dir, e), depth));
    for (const entry of entries) {
      if (entry.name.startsWith("_")) continue;
      const path = join(dir, entry.name);
      if (entryIsDir(dir, entry)) {
        const names = [...parts, entry.name];
        if (listDir(path).some((e) => e.name === "init.lua")) out.push(extensionItem(content, root, names.join("."), filesOf(path, true, depth + 1)));
        else visit(path, names, depth + 1);
      } else if (entry.name.endsWith(".lua") && entry.name.length > 4) {
        out.push(extensionItem(content, root, [...parts, entry.name.slice(0, -4)].join("."), [path, ...shared]));
      }
    }
  };
  visit(root, [], 0);
  return out;
}

function extensionItem(content: FolderContent, root: string, name: string, files: readonly string[]): ContentItem {
  const hash = createHash("sha256");
  for (const file of [...files].sort()) hash.update(`${file.slice(root.length)}\0${content.files.digest(file) ?? "unreadable"}\n`);
  return { kind: "extension", name, digest: hash.digest("hex") };
}

function listDir(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).filter((e) => !e.name.startsWith(".")).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return [];
  }
}

function entryIsDir(dir: string, entry: Dirent): boolean {
  if (!entry.isSymbolicLink()) return entry.isDirectory();
  try {
    return statSync(join(dir, entry.name)).isDirectory();
  } catch {
    return false;
  }
}

/** The file itself, or every file below a folder (hidden ones left out, as discovery does). */
function filesOf(path: string, isDir: boolean, depth: number): string[] {
  if (!isDir) return [path];
  if (depth > 8) return [];
  return listDir(path).flatMap((e) => filesOf(join(path, e.name), entryIsDir(path, e), depth + 1));
}
