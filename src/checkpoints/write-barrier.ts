/**
 * The rule that keeps a checkpoint true (docs/checkpoints.md): nothing may change the workspace while it is recorded.
 * A checkpoint need not hold up what cannot write: a call of a tool that declares only `read` or `network` runs at
 * once, while the checkpoint is taken; every other call (a tool that declares `write` or `exec`, or declares nothing,
 * or that this set does not know) waits until the checkpoints asked for so far are saved. A ToolSet around the run's
 * tools, so the calls of sub-agents, which go through their parent's tools, wait too.
 */
import { ToolSetLayer } from "../tools/tool-set-layer.js";
import { untilAborted } from "../util/until-aborted.js";
import type { PrewarmReason, ToolCall, ToolDefinition, ToolOutcome, ToolProgress, ToolSet } from "../tools/types.js";

/** Whether a call of `tool` can change files (its kinds have `write` or `exec`; an unknown tool is assumed to). */
export function canChangeFiles(tool: ToolDefinition | undefined): boolean {
  return tool === undefined || tool.kinds.some((k) => k === "write" || k === "exec");
}

export class WriteBarrierToolSet extends ToolSetLayer {
  constructor(
    inner: ToolSet,
    /** Resolves when every checkpoint asked for so far is saved (never rejects). */
    private readonly checkpointsSaved: () => Promise<unknown>,
    /** Every call waits (e.g. hooks around tool calls run commands of their own). */
    private readonly holdAll: () => boolean = () => false,
    /** Told when the model's reply starts a tool call (the checkpoint's worker may start then). */
    onToolUse?: () => void,
  ) {
    super(inner);
    if (onToolUse) {
      const passOn = this.prewarm;
      this.prewarm = (why?: PrewarmReason, tool?: string) => {
        if (why === "tool_use") onToolUse();
        return passOn?.(why, tool);
      };
    }
  }

  definitions(): readonly ToolDefinition[] {
    return this.inner.definitions();
  }

  async execute(call: ToolCall, signal: AbortSignal, onProgress?: (update: ToolProgress) => void): Promise<ToolOutcome> {
    if (this.holdAll() || canChangeFiles(this.inner.definitions().find((t) => t.name === call.name))) {
      // The checkpoints' promise never rejects (a failed checkpoint is an incomplete one).
      await untilAborted(this.checkpointsSaved(), signal, undefined);
      if (signal.aborted) return { status: "cancelled" };
    }
    return this.inner.execute(call, signal, onProgress);
  }
}
