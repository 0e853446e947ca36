/** What a load of the extensions yields (a LoadSnapshot), checked and compared before it is applied or cached. */
import { schemaProblem } from "../tools/validate-input.js";
import type { DiscoveredExtension } from "./discover.js";
import type { LuaToolRegistration } from "./lua/types.js";
import type { LoadSnapshot } from "./tool-cache.js";

/**
 * The registrations, each schema checked against JSON Schema's meta-schema: a schema that is not valid JSON Schema
 * would make the provider refuse every request, so the tool is refused instead (the registry reports it). Runs when
 * the real load completes, never on the cached start-up path; the cache keeps the verdict. A schema in `passed`
 * (see checkedSchemas) is not checked again.
 */
export async function withSchemaChecks(tools: readonly LuaToolRegistration[], passed: ReadonlySet<string> = new Set()): Promise<LuaToolRegistration[]> {
  if (tools.every((t) => t.schema_error !== undefined || passed.has(t.schema))) return [...tools];
  return Promise.all(
    tools.map(async (tool) => {
      if (tool.schema_error !== undefined || passed.has(tool.schema)) return tool;
      const problem = await schemaProblem(tool.schema);
      return problem === undefined ? tool : { ...tool, schema_error: `is not a valid JSON Schema (${problem}); fix it in the extension` };
    }),
  );
}

/**
 * The schemas the cached registrations hold as passed: the cache is written after the check, so a tool cached
 * without a `schema_error` had its schema checked. A load that finds them again (the usual one, after a start
 * from the cache) need not check them, nor load the check at all.
 */
export function checkedSchemas(cached: LoadSnapshot | undefined): ReadonlySet<string> {
  return new Set(cached?.tools.filter((t) => t.schema_error === undefined).map((t) => t.schema));
}

export function failedLoad(extensions: readonly DiscoveredExtension[], error: unknown): LoadSnapshot {
  const message = `the Lua runtime failed to start: ${(error as Error).message ?? String(error)}`;
  return { tools: [], errors: extensions.map((e) => ({ extension: e.name, file: e.file, message })), unavailable: {} };
}

export function sameSnapshot(a: LoadSnapshot, b: LoadSnapshot | undefined): boolean {
  return b !== undefined && JSON.stringify(a) === JSON.stringify(b);
}
