/**
 * What a sub-agent's tools are: a view of its parent's ToolSet (the permission layer included, so every call is
 * decided by the parent's rules and mode, and an ask reaches the parent's prompt) limited to the tools its
 * definition names, with each call labelled with the sub-agent's name. The parent's `task` tool is left out
 * unless the depth limit allows another level, when the view offers its own (`nested`).
 */
import type { PrewarmReason, ToolCall, ToolDefinition, ToolOutcome, ToolProgress, ToolRenderView, ToolSet } from "../tools/types.js";

export class ChildToolSet implements ToolSet {
  private offered: { from: readonly ToolDefinition[]; nested: readonly ToolDefinition[]; tools: ToolDefinition[] } | undefined;

  constructor(
    private readonly parent: ToolSet,
    /** The sub-agent's name, set on each call (`ToolCall.agent`): the ask prompt shows it. */
    private readonly agent: string,
    /** Tool names it may use; undefined: all the parent's. */
    private readonly allowed: ReadonlySet<string> | undefined,
    /** The tool name the parent starts sub-agents with (never passed through). */
    private readonly taskName: string,
    /** The sub-agent's own `task` tool when it may start sub-agents itself. */
    private readonly nested?: ToolSet,
  ) {}

  definitions(): readonly ToolDefinition[] {
    const from = this.parent.definitions();
    const nested = this.nested?.definitions() ?? [];
    const o = this.offered;
    if (o && o.from === from && o.nested === nested) return o.tools;
    const tools = from.filter((t) => t.name !== this.taskName && (!this.allowed || this.allowed.has(t.name)));
    tools.push(...nested);
    tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.offered = { from, nested, tools };
    return tools;
  }

  /** Reads the nested `task` tool's definitions; never the parent's set's refresh (it runs inside a parent's call). */
  async refresh(): Promise<void> {
    await this.nested?.refresh?.();
  }

  prewarm(why?: PrewarmReason, tool?: string): void | Promise<void> {
    return this.parent.prewarm?.(why, tool);
  }

  instructions(): readonly string[] {
    return this.parent.instructions?.() ?? [];
  }

  execute(call: ToolCall, signal: AbortSignal, onProgress?: (update: ToolProgress) => void): Promise<ToolOutcome> {
    const labelled = { ...call, agent: this.agent };
    if (call.name === this.taskName && this.nested) return this.nested.execute(labelled, signal, onProgress);
    if (!this.definitions().some((t) => t.name === call.name)) {
      return Promise.resolve({ status: "result", content: `the tool "${call.name}" is not available to the sub-agent "${this.agent}"`, is_error: true });
    }
    return this.parent.execute(labelled, signal, onProgress);
  }

  render(toolName: string, state: unknown, view: ToolRenderView): Promise<string | string[] | undefined> {
    return this.parent.render?.(toolName, state, view) ?? Promise.resolve(undefined);
  }
}
