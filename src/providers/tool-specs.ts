/** Tools as a wire API sends them: each one's JSON built around its schema text, which must be a JSON object. */
import { providerError, type ProviderError } from "./errors.js";
import type { ToolSpec } from "./types.js";

/**
 * Each tool's wire JSON, from `build(tool, schema)` with the schema text trimmed (spliced in verbatim, so the same
 * tools give the same bytes); a `bad_request` error naming the first tool whose schema is not a JSON object.
 */
export function toolSpecsJSON(tools: readonly ToolSpec[], build: (tool: ToolSpec, schema: string) => string): string[] | ProviderError {
  const specs: string[] = [];
  for (const tool of tools) {
    const schema = tool.schema.trim();
    if (!schema.startsWith("{") || !schema.endsWith("}"))
      return providerError("bad_request", `the tool "${tool.name}" has a schema that is not a JSON object, so it cannot be offered to the model`);
    specs.push(build(tool, schema));
  }
  return specs;
}

/** The name of awl's own web search tool (the std `search` extension), which the provider's replaces (`webSearch`). */
export const SEARCH_TOOL = "search";

/** The tools but awl's `search` tool: with the provider's web search on (`ProviderSettings.webSearch`), the model searches there. */
export function withoutSearchTool(tools: readonly ToolSpec[]): readonly ToolSpec[] {
  return tools.some((tool) => tool.name === SEARCH_TOOL) ? tools.filter((tool) => tool.name !== SEARCH_TOOL) : tools;
}
