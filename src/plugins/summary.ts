/**
 * What a plugin brings, read without running any of it (docs/plugins.md, "Review"): its Lua extensions and the
 * tools their source registers (name and kinds as written: a tool computed by code shows as its extension
 * only), hooks and their events, MCP servers with their commands, prompt commands, sub-agents, skills, and its
 * size. The same summary of two versions gives the difference an update shows.
 */
import { readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { discoverExtensions } from "../extensions/discover.js";
import { exists, isDir, listNames, markdownFiles } from "./folder-list.js";
import type { PluginPackage } from "./manifest.js";
import { hookEntries } from "./plugin-hooks.js";
import { readPluginMcp, type PluginPlaces } from "./plugin-mcp.js";
import { formatSize, type PackageContent } from "./package-files.js";

/** One line of the review per item, by section. */
export interface PluginSummary {
  name: string;
  version?: string;
  layout: string;
  tools: string[];
  extensions: string[];
  hooks: string[];
  mcpServers: string[];
  commands: string[];
  agents: string[];
  skills: string[];
  /** Lua modules for `require` (a rock); absent in lock files written before rocks. */
  modules?: string[];
  size: string;
  notices: string[];
}

const SECTIONS = [
  ["extensions", "Lua extensions (run as you, in awl's Lua workers)"],
  ["tools", "tools (as their source registers them)"],
  ["hooks", "hooks (commands run as you)"],
  ["mcpServers", "MCP servers (programs run as you)"],
  ["commands", "prompt commands"],
  ["agents", "sub-agents"],
  ["skills", "skills"],
  ["modules", "Lua modules (for require, run as you when an extension requires them)"],
] as const;

/** The summary of `pkg` (its files already checked: `content`) as it will be once installed at `places`. */
export function summarize(pkg: PluginPackage, content: PackageContent, places: PluginPlaces, env: NodeJS.ProcessEnv): PluginSummary {
  const { parts } = pkg;
  const extensions = parts.extensionsDir ? discoverExtensions([{ dir: parts.extensionsDir, source: "user", prefix: pkg.name }]).extensions : [];
  const tools = extensions.flatMap((ext) => toolsInSource(readText(ext.file)).map((t) => `${t.name} [${t.kinds.join(", ")}] (extension ${ext.name})`));
  const hooks = parts.hooksFile ? (hookEntries(parts.hooksFile) ?? [`${parts.hooksFile}: cannot be read`]) : [];
  const mcp = parts.mcpFile ? readPluginMcp(parts.mcpFile, places, env) : [];
  return {
    name: pkg.name,
    ...(pkg.version !== undefined && { version: pkg.version }),
    layout: pkg.layout,
    extensions: extensions.map((e) => e.name),
    tools,
    hooks: hooks.map((h) => (typeof h === "string" ? h : `${h.event}${h.matcher ? ` (${h.matcher})` : ""}: ${h.command}`)),
    mcpServers: mcp.map((s) =>
      s.error ? `${s.name}: refused: ${s.error}` : s.transport?.type === "stdio" ? `${s.name}: ${[s.transport.command, ...s.transport.args].join(" ")}` : `${s.name}: ${s.transport?.url}`,
    ),
    commands: parts.commandsDir ? markdownNames(parts.commandsDir).map((n) => `/${n}`) : [],
    agents: parts.agentsDir ? markdownNames(parts.agentsDir) : [],
    skills: parts.skillsDir ? skillNames(parts.skillsDir) : [],
    modules: parts.luaDir ? luaModules(parts.luaDir) : [],
    size: `${content.files} files, ${formatSize(content.bytes)}`,
    notices: pkg.notices,
  };
}

/** The review as text lines. */
export function summaryLines(summary: PluginSummary): string[] {
  const lines = [`${summary.name}${summary.version ? ` ${summary.version}` : ""} (${layoutWords(summary.layout)}), ${summary.size}`];
  for (const [key, title] of SECTIONS) {
    const items = summary[key] ?? [];
    if (items.length === 0) continue;
    lines.push(`  ${title}:`);
    for (const item of items) lines.push(`    ${item}`);
  }
  if (SECTIONS.every(([key]) => (summary[key] ?? []).length === 0)) lines.push("  (nothing awl loads: no extensions, hooks, MCP servers, commands, agents or skills)");
  for (const notice of summary.notices) lines.push(`  note: ${notice}`);
  return lines;
}

/** What an update changes, as `+`/`-` lines by section; empty when only the files' bytes differ. */
export function summaryDiff(before: PluginSummary, after: PluginSummary): string[] {
  const lines: string[] = [];
  if (before.version !== after.version) lines.push(`  version: ${before.version ?? "(none)"} → ${after.version ?? "(none)"}`);
  for (const [key, title] of SECTIONS) {
    const [was, is] = [before[key] ?? [], after[key] ?? []];
    const removed = was.filter((x) => !is.includes(x));
    const added = is.filter((x) => !was.includes(x));
    if (removed.length + added.length === 0) continue;
    lines.push(`  ${title}:`);
    for (const item of removed) lines.push(`    - ${item}`);
    for (const item of added) lines.push(`    + ${item}`);
  }
  if (before.size !== after.size) lines.push(`  size: ${before.size} → ${after.size}`);
  return lines;
}

function layoutWords(layout: string): string {
  return layout === "agent-plugins" ? "Agent Plugins 1.0" : layout === "claude-code" ? "Claude Code plugin" : layout === "lua-rock" ? "LuaRocks rock" : "folder of Lua extensions";
}

/** `register_tool` calls whose name is a string literal, with their `kinds` (default exec), in source order. */
export function toolsInSource(source: string): Array<{ name: string; kinds: string[] }> {
  const out: Array<{ name: string; kinds: string[] }> = [];
  const chunks = source.split(/\bregister_tool\b/).slice(1);
  for (const chunk of chunks) {
    const name = /^\s*\(\s*["']([^"']+)["']/.exec(chunk)?.[1] ?? /^\s*\(?\s*\{[^]*?\bname\s*=\s*["']([^"']+)["']/.exec(chunk)?.[1];
    if (name === undefined) continue;
    const kinds = /\bkinds\s*=\s*\{([^}]*)\}/.exec(chunk)?.[1];
    out.push({ name, kinds: kinds ? [...kinds.matchAll(/["']([a-z]+)["']/g)].map((m) => m[1]!) : ["exec"] });
  }
  return out;
}

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

/** Command or agent names of the `.md` files below `dir`: `sub:name`, lower case. */
function markdownNames(dir: string): string[] {
  return markdownFiles(dir).map((file) => relative(dir, file).slice(0, -".md".length).split(sep).join(":").toLowerCase());
}

/** The modules below a `lua/` folder: `a/b.lua` → `a.b`, `a/init.lua` → `a`. */
function luaModules(dir: string, prefix = ""): string[] {
  return listNames(dir).flatMap((name) => {
    const path = join(dir, name);
    if (isDir(path)) return luaModules(path, `${prefix}${name}.`);
    if (!name.endsWith(".lua")) return [];
    return [name === "init.lua" ? prefix.slice(0, -1) : `${prefix}${name.slice(0, -".lua".length)}`];
  });
}

function skillNames(dir: string): string[] {
  return listNames(dir).filter((name) => exists(join(dir, name, "SKILL.md")));
}
