/**
 * The Lua runtime's limits, the same for every command that runs extensions (docs/cli.md, "Configuration"):
 * worker count, memory cap per Lua state and the default handler timeout. Each comes from its flag, then
 * its config file key, then awl's default (left to the pool).
 */
import type { ConfigResult } from "../config/errors.js";
import { loadConfig, type LoadedConfig } from "../config/layers.js";

/** What LuaToolSet.open takes; an absent value means "awl's default". */
export interface LuaLimits {
  maxSlots?: number;
  memoryLimitBytes?: number;
  defaultTimeoutMs?: number;
}

interface Limit {
  flag: string;
  key: string;
  /** Smallest and largest value that makes sense. */
  min: number;
  max: number;
  unit: string;
  set(limits: LuaLimits, value: number): void;
}

const LIMITS: readonly Limit[] = [
  { flag: "lua-workers", key: "lua_workers", min: 1, max: 256, unit: "workers", set: (l, v) => (l.maxSlots = v) },
  // Below ~8 MB the runtime itself does not fit; wasm32 memory ends at 4 GB.
  { flag: "lua-memory-mb", key: "lua_memory_mb", min: 8, max: 4096, unit: "MB", set: (l, v) => (l.memoryLimitBytes = v * 1024 * 1024) },
  { flag: "tool-timeout", key: "tool_timeout_ms", min: 1, max: Number.MAX_SAFE_INTEGER, unit: "milliseconds", set: (l, v) => (l.defaultTimeoutMs = v) },
];

/**
 * The limits from `flags` (parsed `--lua-workers`, `--lua-memory-mb`, `--tool-timeout` strings) and the config
 * files of `env` and the working directory — `config` when the caller already read them. A bad flag is an error
 * naming it (the files' values were checked against the schema when they were read).
 */
export async function resolveLuaLimits(flags: Record<string, unknown>, env: NodeJS.ProcessEnv, config?: LoadedConfig): Promise<ConfigResult<LuaLimits>> {
  const limits: LuaLimits = {};
  for (const limit of LIMITS) {
    const range = `a whole number of ${limit.unit} from ${limit.min}${limit.max < Number.MAX_SAFE_INTEGER ? ` to ${limit.max}` : " up"}`;
    const flagged = flags[limit.flag];
    if (flagged !== undefined) {
      const value = Number(flagged);
      if (!inRange(value, limit)) return fail(`--${limit.flag} expects ${range}, got "${String(flagged)}"`, "see awl --help");
      limit.set(limits, value);
      continue;
    }
    if (config === undefined) {
      const read = await loadConfig({ env, cwd: process.cwd() });
      if (!read.ok) return read;
      config = read.value;
    }
    const configured = config.get<number>(limit.key);
    if (configured !== undefined) limit.set(limits, configured.value);
  }
  return { ok: true, value: limits };
}

function inRange(value: unknown, limit: Limit): value is number {
  return Number.isSafeInteger(value) && (value as number) >= limit.min && (value as number) <= limit.max;
}

function fail(message: string, hint: string): { ok: false; error: { message: string; hint: string } } {
  return { ok: false, error: { message, hint } };
}
