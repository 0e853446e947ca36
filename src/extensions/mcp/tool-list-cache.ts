/**
 * The tool lists (and instructions) MCP servers gave last time, keyed by each server's name and configuration,
 * in `$XDG_CACHE_HOME/awl/mcp-tools.json`: a head start like the Lua registration cache (tool-cache.ts). With an
 * entry, a server's tools are offered before it has started (the first request never waits for it), and a call
 * to one waits for the server; once it is ready, what it lists replaces the cached view and the entry.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { userCacheDir } from "../../config/paths.js";
import type { McpServerConfig } from "./config.js";
import type { McpToolInfo } from "./connection.js";

const CACHE_FORMAT = 1;

export interface CachedServer {
  tools: McpToolInfo[];
  instructions?: string;
}

interface CacheFile {
  format: number;
  servers: Record<string, CachedServer>;
}

export function defaultMcpCachePath(env: NodeJS.ProcessEnv): string {
  return join(userCacheDir(env), "mcp-tools.json");
}

/** The key of a server's entry: its name and its configuration after `${VAR}` expansion. */
export function serverCacheKey(config: McpServerConfig): string {
  return createHash("sha256").update(JSON.stringify([config.name, config.transport])).digest("hex");
}

export class McpToolListCache {
  private file: CacheFile | undefined;

  constructor(private readonly path: string) {}

  get(config: McpServerConfig): CachedServer | undefined {
    return this.read().servers[serverCacheKey(config)];
  }

  /** Records what a ready server listed; writes the file only when that changed (atomically). */
  set(config: McpServerConfig, entry: CachedServer): void {
    const file = this.read();
    const key = serverCacheKey(config);
    if (JSON.stringify(file.servers[key]) === JSON.stringify(entry)) return;
    file.servers[key] = entry;
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      const temp = `${this.path}.${process.pid}.tmp`;
      writeFileSync(temp, JSON.stringify(file));
      renameSync(temp, this.path);
    } catch {
      // a cache that cannot be written only costs the next start its head start
    }
  }

  private read(): CacheFile {
    if (this.file) return this.file;
    try {
      const parsed = JSON.parse(readFileSync(this.path, "utf8")) as CacheFile;
      if (parsed.format === CACHE_FORMAT && typeof parsed.servers === "object" && parsed.servers !== null) return (this.file = parsed);
    } catch {
      // none yet, or unreadable: start empty
    }
    return (this.file = { format: CACHE_FORMAT, servers: {} });
  }
}
