import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll } from "vitest";
import { runtimeDir } from "../../../src/extensions/lua/assets.js";
import { LuaPool, type LuaPoolOptions, type ToolContextData } from "../../../src/extensions/lua/pool.js";
import type { SlotSettings } from "../../../src/extensions/lua/slot.js";
import type { ToolOutcome, ToolProgress } from "../../../src/tools/types.js";
import { tempDir as fileTempDir } from "../../support/temp-dir.js";

const pools: LuaPool[] = [];

afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
});

/** A temporary directory, removed after the file's tests (once its pools are closed). */
export function tempDir(): string {
  return fileTempDir("awl-lua-test-", { untilFileEnds: true });
}

/** Writes `files` (relative path → Lua source) into a fresh directory; returns the directory. */
export function writeTree(files: Record<string, string>): string {
  const dir = tempDir();
  for (const [rel, text] of Object.entries(files)) {
    const path = join(dir, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  return dir;
}

/** A pool over single-file extensions given as name → source (all in one directory). */
export function poolOf(sources: Record<string, string>, options: Partial<LuaPoolOptions> = {}): { pool: LuaPool; dir: string; logs: string[] } {
  const dir = writeTree(Object.fromEntries(Object.entries(sources).map(([name, src]) => [`${name}.lua`, src])));
  const logs: string[] = [];
  const pool = new LuaPool({
    extensions: Object.keys(sources).map((name) => ({ name, file: join(dir, `${name}.lua`), root: dir })),
    maxSlots: 2,
    onLog: (extension, text) => logs.push(`${extension}: ${text}`),
    ...options,
  });
  pools.push(pool);
  return { pool, dir, logs };
}

export function context(cwd = process.cwd()): ToolContextData {
  return { cwd, workspace: cwd, home: join(cwd, ".awl-home"), spill_dir: join(cwd, ".awl-spill"), result_limit: 50_000 };
}

/** Calls a tool with a 10 s timeout (or `timeoutMs`). */
export function call(
  pool: LuaPool,
  extension: string,
  tool: string,
  input: unknown = {},
  opts: { timeoutMs?: number; signal?: AbortSignal; onProgress?: (u: ToolProgress) => void; cwd?: string } = {},
): Promise<ToolOutcome> {
  return pool.call(extension, tool, typeof input === "string" ? input : JSON.stringify(input), context(opts.cwd), {
    signal: opts.signal ?? new AbortController().signal,
    timeoutMs: opts.timeoutMs ?? 10_000,
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
  });
}

/** The content of a `result` outcome (fails the test otherwise). */
export function contentOf(outcome: ToolOutcome): string {
  if (outcome.status !== "result") throw new Error(`expected a result, got ${JSON.stringify(outcome)}`);
  return outcome.content;
}

/** What a single WorkerSlot needs to load the single-file extensions `names` of `dir` (HOME and cwd: `dir`). */
export function slotSettings(dir: string, names: string[], runtime = runtimeDir()): SlotSettings {
  return {
    runtimeDir: runtime,
    extensions: names.map((name) => ({ name, file: join(dir, `${name}.lua`), root: dir })),
    env: { HOME: dir },
    memoryLimitBytes: 64 * 1024 * 1024,
    loadTimeoutMs: 10_000,
    secrets: [],
    luaPath: [],
    home: dir,
    cwd: dir,
  };
}
