/**
 * The permission engine as `awl.http`'s gate (docs/permissions.md, "Network"): every request of every Lua
 * extension is a `network` action decided per host, whatever kinds its tool declares. Allowed: a `network` rule
 * allows the host, or the user approved that host for this call (the `fetch` tool's URL), or bypass mode. Asked
 * (no rule decides): refused, naming the rule that would allow it, since a request cannot stop a running tool to
 * ask. Loopback and private addresses need a rule of their own (engine.ts, `addressRefusal`).
 */
import type { NetworkGate, NetworkRequest } from "../extensions/lua/types.js";
import type { PermissionEngine } from "./engine.js";
import { hostRuleText } from "./host-rules.js";

export function networkGate(engine: PermissionEngine): NetworkGate {
  return {
    host(request: NetworkRequest): string | undefined {
      const decision = engine.decideHost(request.url);
      const who = request.tool ? `the tool "${request.tool}"` : `the extension "${request.extension}"`;
      if (decision.action === "allow") return undefined;
      const host = hostRuleText(request.url.hostname);
      if (decision.action === "ask" && request.granted.includes(host)) return undefined;
      if (decision.action === "deny") return `permission denied: ${who} may not reach ${host}: ${decision.reason}`;
      const rule = decision.allowRules[0] ?? `network(${host})`;
      return (
        `permission denied: ${who} may not reach ${host}: ${decision.reason}. ` +
        `To allow it, add "${rule}" to "permissions.allow" in .awl/config.json or ~/.config/awl/config.json, or run with --allow '${rule}'`
      );
    },
    address(request: NetworkRequest, address: string): string | undefined {
      const refused = engine.addressRefusal(request.url, address, request.granted);
      return refused && `permission denied: ${refused}`;
    },
  };
}
