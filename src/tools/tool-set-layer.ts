/**
 * A ToolSet around another (the permission layer, the hooks, background jobs, the checkpoints' write barrier):
 * the inner set's optional methods (prewarm, refresh, instructions, render) are passed on as they are, and exist only where the inner set has
 * them. MCP servers start, and extension reloads apply, on the inner set's refresh: a layer must pass it on.
 */
import type { PrewarmReason, ToolCall, ToolDefinition, ToolOutcome, ToolProgress, ToolRenderView, ToolSet } from "./types.js";

export abstract class ToolSetLayer implements ToolSet {
  constructor(readonly inner: ToolSet) {
    if (inner.prewarm) this.prewarm = (why, tool) => inner.prewarm!(why, tool);
    if (inner.render) this.render = (name, state, view) => inner.render!(name, state, view);
    if (inner.refresh) this.refresh = () => inner.refresh!();
    if (inner.instructions) this.instructions = () => inner.instructions!();
  }

  prewarm?(why?: PrewarmReason, tool?: string): void | Promise<void>;
  refresh?(): Promise<void>;
  instructions?(): readonly string[];
  render?(toolName: string, state: unknown, view: ToolRenderView): Promise<string | string[] | undefined>;

  abstract definitions(): readonly ToolDefinition[];
  abstract execute(call: ToolCall, signal: AbortSignal, onProgress?: (update: ToolProgress) => void): Promise<ToolOutcome>;
}
