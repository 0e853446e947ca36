/**
 * Why a server could not be started, in words a user acts on: a missing command, no answer to `initialize`,
 * an HTTP server asking for credentials (401/403) or answering with a web page instead of MCP.
 */
import type { McpTransportConfig } from "./config.js";

export function describeConnectError(error: unknown, config: McpTransportConfig, startupTimeoutMs: number): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown }).code;
  if (config.type === "stdio") {
    if (/did not answer initialize/.test(message)) return `"${config.command}" started but did not answer initialize within ${startupTimeoutMs / 1000} s (is it an MCP server on stdio?)`;
    if (/-32000|Connection closed/i.test(message)) return `"${config.command}" exited before answering initialize`;
    return message;
  }
  const at = config.url;
  if (code === 401 || /\b401\b/.test(message)) return `${at} answered HTTP 401 Unauthorized: it needs credentials (set "headers", e.g. "Authorization": "Bearer \${TOKEN}")`;
  if (code === 403) return `${at} answered HTTP 403 Forbidden: the credentials in "headers" are not accepted`;
  if (/text\/html|<html|<!doctype/i.test(message)) return `${at} answered with a web page (HTML), not MCP: check that the URL is the server's MCP endpoint`;
  if (typeof code === "number" && code >= 400) return `${at} answered HTTP ${code}: ${plain(message)}`;
  if (/did not answer initialize/.test(message)) return `${at} did not answer initialize within ${startupTimeoutMs / 1000} s`;
  if (/fetch failed|ECONNREFUSED/i.test(message) || /ECONNREFUSED/.test(String((error as { cause?: unknown }).cause))) return `${at} cannot be reached (connection refused): is the server running?`;
  return `${at}: ${plain(message)}`;
}

/** A message without markup, cut short (servers put whole pages in error bodies). */
function plain(text: string): string {
  const flat = text.replace(/<[^>]*>/g, " ").replace(/\s+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}
