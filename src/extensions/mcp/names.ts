/**
 * Tool names the model sees for MCP tools: `<server>_<tool>`, fitted to the providers' `^[a-zA-Z0-9_-]{1,64}$`.
 * Characters outside that set become `_`; a name too long keeps its head and ends in a hash of the whole, so two
 * long names that share a head stay apart; names that still meet (`a.b`/`a_b`, or server `a_b` tool `c` beside
 * server `a` tool `b_c`) get `_2`, `_3`... in a fixed order, so the same servers give the same names every run.
 */
import { createHash } from "node:crypto";

const MAX = 64;

function clean(text: string): string {
  return text.replace(/[^a-zA-Z0-9_-]/g, "_");
}

/** The start of a server's tool names (before any cut for length). */
export function toolNamePrefix(server: string): string {
  return clean(server);
}

function fit(name: string, whole: string): string {
  if (name.length <= MAX) return name;
  const hash = createHash("sha256").update(whole).digest("hex").slice(0, 8);
  return `${name.slice(0, MAX - hash.length - 1)}_${hash}`;
}

/**
 * Model-facing names for every (server, tool) pair, keyed `server\u0000tool`. `taken` are names already used by
 * other tools (Lua), which MCP tools never take. Pairs are named in (server, tool) order.
 */
export function assignToolNames(pairs: readonly { server: string; tool: string }[], taken: ReadonlySet<string> = new Set()): Map<string, string> {
  const out = new Map<string, string>();
  const used = new Set(taken);
  const sorted = [...pairs].sort((a, b) => cmp(a.server, b.server) || cmp(a.tool, b.tool));
  for (const { server, tool } of sorted) {
    const whole = `${server}_${tool}`;
    const base = fit(clean(whole), whole) || "_";
    let name = base;
    for (let n = 2; used.has(name); n++) {
      const suffix = `_${n}`;
      name = `${base.slice(0, MAX - suffix.length)}${suffix}`;
    }
    used.add(name);
    out.set(`${server}\u0000${tool}`, name);
  }
  return out;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
