/**
 * Rules that name a tool awl does not have (docs/permissions.md, "Bad input"): a typo in a rule must be seen,
 * not silently match nothing. Checked once the tools are known; a rule whose name holds `*`, and one naming a
 * tool of a configured MCP server (`<server>_...`: servers start later), and a `network` rule (the sandbox's
 * network, engine.ts), is left alone. Such a rule is kept as
 * written (a deny or ask rule for a tool that shows up later still holds): the message only says so.
 */
import { NETWORK_RULE, type PermissionEngine } from "./engine.js";
import { describeSource } from "./rules.js";

/** One line per rule (from a file or a flag) whose tool is none of `tools` nor below one of `mcpServers`. */
export function unknownToolRules(engine: PermissionEngine, tools: readonly string[], mcpServers: readonly string[] = []): string[] {
  const known = new Set(tools);
  const sorted = [...known].sort();
  return engine
    .list()
    .filter((rule) => rule.source.kind !== "session" && !rule.tool.includes("*") && rule.tool !== NETWORK_RULE && !known.has(rule.tool))
    .filter((rule) => !mcpServers.some((server) => rule.tool.startsWith(`${server}_`)))
    .map(
      (rule) =>
        `${describeSource(rule.source)}: the ${rule.action} rule "${rule.text}" names the tool "${rule.tool}", which no extension offers` +
        ` (tools: ${sorted.length > 0 ? sorted.join(", ") : "none"}); it matches nothing until such a tool exists`,
    );
}
