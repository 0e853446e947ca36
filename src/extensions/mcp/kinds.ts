/**
 * MCP tool annotations → awl's permission kinds (`read`, `write`, `exec`, `network`; SPEC §9). The hints are the
 * server's word, defaulting as the MCP spec says (readOnlyHint false, destructiveHint true, openWorldHint true):
 * - no annotations at all: `exec` (what any tool declaring nothing is);
 * - read-only: `read`; otherwise non-destructive: `write`; destructive: `exec`;
 * - plus `network` unless openWorldHint is false (the tool reaches an open world of external entities).
 * The result is in TOOL_KINDS order, as ToolDefinition.kinds wants.
 */
import type { ToolKind } from "../../tools/types.js";

export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  openWorldHint?: boolean;
  idempotentHint?: boolean;
  title?: string;
}

export function kindsFromAnnotations(annotations: ToolAnnotations | undefined): ToolKind[] {
  if (!annotations || (annotations.readOnlyHint === undefined && annotations.destructiveHint === undefined && annotations.openWorldHint === undefined)) {
    return ["exec"];
  }
  const kinds: ToolKind[] = [annotations.readOnlyHint === true ? "read" : annotations.destructiveHint === false ? "write" : "exec"];
  if (annotations.openWorldHint !== false) kinds.push("network");
  return kinds;
}
