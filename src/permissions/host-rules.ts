/**
 * Host rules (docs/permissions.md, "Network"): `network(api.github.com)`, `network(*.example.com)`,
 * `network(localhost:8080)`, `network(127.0.0.1)`, `network([::1])`. A pattern is a host pattern when it reads as a
 * host (a name with a dot, `localhost`, an IP address; optionally `*.` in front and `:port` behind); any other
 * `network(…)` pattern is a command pattern of the sandbox (`network(npm install:*)`, engine.ts).
 *
 * Names compare without case and without a trailing dot; `*.example.com` is every name below example.com (not
 * example.com itself); a pattern without a port matches every port.
 */
import { isIP } from "node:net";

const LABEL = "[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?";
const NAME = new RegExp(`^(?:\\*\\.)?(?:${LABEL}\\.)+${LABEL}\\.?$|^(?:\\*\\.)?localhost$`, "i");

/** A host pattern split into its parts, or undefined when the text is no host pattern. */
export interface HostPattern {
  /** Lower case, no trailing dot, no brackets around an IPv6 address. */
  host: string;
  /** `*.` in front: every name below `host`. */
  below: boolean;
  port?: number;
}

/** The pattern's parts when `text` reads as a host (see above). */
export function parseHostPattern(text: string): HostPattern | undefined {
  let host = text.trim();
  let port: number | undefined;
  const bracketed = /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/i.exec(host);
  if (bracketed) {
    if (isIP(bracketed[1]!) !== 6) return undefined;
    host = bracketed[1]!;
    if (bracketed[2] !== undefined) port = Number(bracketed[2]);
  } else {
    const withPort = /^(.*):(\d{1,5})$/.exec(host);
    if (withPort && !withPort[1]!.includes(":")) {
      host = withPort[1]!;
      port = Number(withPort[2]);
    }
    if (isIP(host) === 0 && !NAME.test(host)) return undefined;
  }
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  const below = host.startsWith("*.");
  return { host: normalHost(below ? host.slice(2) : host), below, ...(port !== undefined && { port }) };
}

/** A host name as rules compare it: lower case, no trailing dot, no brackets. */
export function normalHost(host: string): string {
  return host.replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "").toLowerCase();
}

/** Whether `pattern` covers `host` (a name or address as a URL gives it) on `port`. */
export function hostMatches(pattern: HostPattern, host: string, port: number): boolean {
  if (pattern.port !== undefined && pattern.port !== port) return false;
  const name = normalHost(host);
  return pattern.below ? name.endsWith(`.${pattern.host}`) : name === pattern.host;
}

/** The host as a rule names it exactly: `api.github.com`, `[::1]`. */
export function hostRuleText(host: string): string {
  const name = normalHost(host);
  return isIP(name) === 6 ? `[${name}]` : name;
}
