/**
 * Which servers of a project's `.mcp.json` the user approved (or refused), remembered per project in
 * `$XDG_DATA_HOME/awl/mcp-approvals.json` (docs/mcp.md). An answer covers a server's entry as written: when the
 * file changes that entry (another command, other arguments), it is asked again. Written atomically.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { withFileLockSync } from "../../util/file-lock.js";
import { dirname, join } from "node:path";
import { realpathSync } from "node:fs";
import { awlDataDir } from "../../config/paths.js";
import type { McpServerConfig } from "./config.js";

export const APPROVALS_VERSION = 1;

interface ApprovalsFile {
  version: number;
  /** Project folder (real path) → server name → the entry's fingerprint and the answer. */
  projects: Record<string, Record<string, { fingerprint: string; approved: boolean }>>;
}

export function approvalsPath(env: NodeJS.ProcessEnv): string {
  return join(awlDataDir(env), "mcp-approvals.json");
}

function projectKey(cwd: string): string {
  try {
    return realpathSync(cwd);
  } catch {
    return cwd;
  }
}

function read(path: string): ApprovalsFile {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as ApprovalsFile;
    if (parsed && typeof parsed.projects === "object" && parsed.projects !== null) return parsed;
  } catch {
    // none yet, or unreadable: nothing approved
  }
  return { version: APPROVALS_VERSION, projects: {} };
}

/** `approved`, `refused` or `unknown` (never answered, or the entry changed since) for one server. */
export function approvalOf(server: McpServerConfig, cwd: string, env: NodeJS.ProcessEnv): "approved" | "refused" | "unknown" {
  const answer = read(approvalsPath(env)).projects[projectKey(cwd)]?.[server.name];
  if (!answer || answer.fingerprint !== server.fingerprint) return "unknown";
  return answer.approved ? "approved" : "refused";
}

/** Remembers the answer for these servers of the project. */
export function rememberApproval(servers: readonly McpServerConfig[], approved: boolean, cwd: string, env: NodeJS.ProcessEnv): void {
  const path = approvalsPath(env);
  // Read and replaced under the file's lock: another awl answering for another project at once loses nothing.
  withFileLockSync(path, () => {
    const file = read(path);
    const key = projectKey(cwd);
    const project = (file.projects[key] ??= {});
    for (const server of servers) project[server.name] = { fingerprint: server.fingerprint, approved };
    mkdirSync(dirname(path), { recursive: true });
    const temp = `${path}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify({ ...file, version: APPROVALS_VERSION }, null, 2)}\n`);
    renameSync(temp, path);
  });
}
