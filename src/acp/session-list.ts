/**
 * ACP's `session/list` (the saved sessions, newest first, of one folder or all) and the parameters of `session/fork`
 * (docs/acp.md, "Rewind and fork").
 */
import { RequestError, type ListSessionsResponse, type McpServer } from "@agentclientprotocol/sdk";
import type { SessionStore } from "../session/store.js";
import { oneLine } from "../ui/output/tool-block.js";

/** The saved sessions of `cwd` (every folder's without it), each with its first prompt as its title. */
export function listSessions(store: SessionStore, cwd: string | undefined): ListSessionsResponse {
  const listed = store.list(cwd === undefined ? {} : { cwd });
  if (!listed.ok) throw RequestError.internalError(undefined, listed.error.message);
  return { sessions: listed.value.sessions.map((s) => ({ sessionId: s.id, cwd: s.cwd, title: oneLine(s.first_prompt, 80), updatedAt: s.updated })) };
}

export interface ForkParams {
  sessionId: string;
  cwd: string;
  mcpServers?: McpServer[];
}

/** Checks `session/fork`'s parameters: the session to fork and the folder the copy works in. */
export function forkParams(params: unknown): ForkParams {
  const value = (typeof params === "object" && params !== null ? params : {}) as Record<string, unknown>;
  if (typeof value.sessionId !== "string" || value.sessionId === "") throw RequestError.invalidParams(undefined, "session/fork needs \"sessionId\": the session to fork");
  if (typeof value.cwd !== "string") throw RequestError.invalidParams(undefined, "session/fork needs \"cwd\": the folder the fork works in");
  if (value.mcpServers !== undefined && !Array.isArray(value.mcpServers)) throw RequestError.invalidParams(undefined, "\"mcpServers\" should be a list");
  return { sessionId: value.sessionId, cwd: value.cwd, ...(Array.isArray(value.mcpServers) && { mcpServers: value.mcpServers as McpServer[] }) };
}
