/**
 * One ToolSet made of several (the Lua extensions, the MCP servers): what the CLI and the library hand the
 * agent. Definitions are merged in name order; a name two parts offer goes to the first part (Lua before MCP:
 * MCP names avoid Lua's, see src/extensions/mcp/names.ts). Calls and renders go to the part that offers the
 * tool; prewarm, refresh and instructions go to every part.
 */
import type { PrewarmReason, ToolCall, ToolDefinition, ToolOutcome, ToolProgress, ToolRenderView, ToolSet } from "./types.js";

export class CompositeToolSet implements ToolSet {
  private merged: { from: (readonly ToolDefinition[])[]; tools: ToolDefinition[]; owner: Map<string, ToolSet> } | undefined;

  constructor(readonly parts: readonly ToolSet[]) {}

  /** Every part's tools, sorted by name; the same array until a part's changes. */
  definitions(): readonly ToolDefinition[] {
    const from = this.parts.map((p) => p.definitions());
    if (this.merged && from.every((d, i) => d === this.merged!.from[i])) return this.merged.tools;
    const owner = new Map<string, ToolSet>();
    const tools: ToolDefinition[] = [];
    from.forEach((definitions, i) => {
      for (const tool of definitions) {
        if (owner.has(tool.name)) continue;
        owner.set(tool.name, this.parts[i]!);
        tools.push(tool);
      }
    });
    tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.merged = { from, tools, owner };
    return tools;
  }

  /** Every part hears it, but a call of a named tool only its owner: a `task` call starts no Lua worker's load. */
  prewarm(why?: PrewarmReason, tool?: string): Promise<void> {
    const owner = tool === undefined ? undefined : this.owner(tool);
    const parts = owner ? [owner] : this.parts;
    return Promise.all(parts.map((p) => p.prewarm?.(why, tool))).then(() => undefined);
  }

  /** Every part's instructions, the parts in their order. */
  instructions(): readonly string[] {
    return this.parts.flatMap((p) => p.instructions?.() ?? []);
  }

  async refresh(): Promise<void> {
    await Promise.all(this.parts.map((p) => p.refresh?.().catch(() => undefined)));
  }

  execute(call: ToolCall, signal: AbortSignal, onProgress?: (update: ToolProgress) => void): Promise<ToolOutcome> {
    const part = this.owner(call.name);
    if (!part) return Promise.resolve({ status: "result", content: `unknown tool "${call.name}"`, is_error: true });
    return part.execute(call, signal, onProgress);
  }

  async render(toolName: string, state: unknown, view: ToolRenderView): Promise<string | string[] | undefined> {
    return this.owner(toolName)?.render?.(toolName, state, view);
  }

  private owner(name: string): ToolSet | undefined {
    this.definitions();
    return this.merged!.owner.get(name);
  }
}
