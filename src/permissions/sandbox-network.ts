/**
 * The `network` rules as the exec sandbox's network (docs/permissions.md, "Sandbox"): per program, what it may
 * reach (engine.ts, `sandboxReach`), and per connection its proxy relays, whether that host and the address it
 * resolves to are allowed. The mode does not count (bypass mode opens no host to a sandboxed program), and nobody
 * is asked: a host that would be asked about is refused, naming the rule to add.
 */
import type { PermissionEngine, SandboxReach } from "./engine.js";
import { hostRuleText } from "./host-rules.js";
import type { HostRefusal } from "./sandbox-proxy.js";

/** The sandbox's network decisions. */
export interface SandboxNetwork {
  /** What the program `command` (its command line) may reach. */
  reach(command: string): SandboxReach;
  /** Why a program of that reach may not connect to a host (and address). */
  refusal(reach: SandboxReach): HostRefusal;
}

export function sandboxNetwork(engine: PermissionEngine): SandboxNetwork {
  return {
    reach: (command) => engine.sandboxReach(command),
    refusal: (reach) => (host, port, address) => {
      const url = new URL(`http://${hostRuleText(host)}:${port}/`);
      if (address !== undefined) {
        const refused = engine.addressRefusal(url, address, [], false);
        return refused && `a program in the sandbox may not reach ${hostRuleText(host)}: ${refused}`;
      }
      const decision = engine.decideHost(url, false);
      const shown = hostRuleText(host);
      if (decision.action === "allow" || (reach === "any" && decision.action === "ask" && !decision.rule)) return undefined;
      const rule = decision.allowRules[0] ?? `network(${shown})`;
      const add = decision.action === "deny" ? "" : `; to allow it, add "${rule}" to "permissions.allow" in your config, or run with --allow '${rule}'`;
      return `a program in the sandbox may not reach ${shown}: ${decision.reason}${add}`;
    },
  };
}
