/**
 * The hooks at the agent/tool seam: a ToolSet around the permission layer that runs the `tool_call` / PreToolUse
 * hooks before a call (they see the rules' decision; they may block it, rewrite its input, which is then checked
 * against the tool's schema and decided by the permission rules again, or ask the user where the rules allow) and
 * the `tool_result` / PostToolUse hooks after it.
 */
import { parseToolInput } from "../model/blocks.js";
import { loadShellParser } from "../permissions/command-reading.js";
import type { PermissionToolSet } from "../permissions/tool-set.js";
import type { ToolCall, ToolDefinition, ToolOutcome, ToolProgress, ToolSet } from "../tools/types.js";
import { validateToolInput } from "../tools/validate-input.js";
import { ToolSetLayer } from "../tools/tool-set-layer.js";
import type { Hooks } from "./dispatcher.js";

export class HookToolSet extends ToolSetLayer {
  constructor(
    inner: ToolSet,
    private readonly hooks: Hooks,
    /** The permission layer `inner` is (or wraps), when the run has one. */
    private readonly permissions?: PermissionToolSet,
  ) {
    super(inner);
  }

  definitions(): readonly ToolDefinition[] {
    return this.inner.definitions();
  }

  async execute(call: ToolCall, signal: AbortSignal, onProgress?: (update: ToolProgress) => void): Promise<ToolOutcome> {
    const tool = this.inner.definitions().find((t) => t.name === call.name);
    if (!tool || !(this.hooks.has("tool_call") || this.hooks.has("PreToolUse") || this.hooks.has("tool_result") || this.hooks.has("PostToolUse"))) {
      return this.inner.execute(call, signal, onProgress);
    }
    const input = parseToolInput(call.input);
    // The hooks are told the decision the call would get: a command's is made with the shell parser loaded.
    if (this.permissions && typeof (input as { command?: unknown } | null)?.command === "string") await loadShellParser();
    const decision = this.permissions?.engine.decide(tool, input) ?? { action: "allow", reason: "no permission rules" };
    const verdict = await this.hooks.toolCall({ id: call.id, name: call.name, input }, decision, signal);
    if (signal.aborted) return { status: "cancelled" };
    if (verdict.kind === "block") return refusal(`blocked by a hook: ${verdict.reason}`);
    let run = call;
    let ran = input;
    if (verdict.input !== undefined) {
      const check = await validateToolInput(tool.name, tool.schema, verdict.input);
      if (!check.ok) return refusal(`a hook rewrote the input of this call and the new input was refused, so nothing ran: ${check.message}`);
      run = { ...call, input: JSON.stringify(verdict.input) };
      ran = verdict.input;
    }
    let outcome: ToolOutcome;
    if (verdict.ask === undefined) outcome = await this.inner.execute(run, signal, onProgress);
    else if (this.permissions) outcome = await this.permissions.executeAsking(run, `a hook asks: ${verdict.ask}`, signal, onProgress);
    else outcome = refusal(`a hook asks for approval of this call (${verdict.ask}) and awl has no way to ask`);
    return this.hooks.toolResult({ id: call.id, name: call.name, input: ran }, outcome, signal);
  }
}

function refusal(content: string): ToolOutcome {
  return { status: "result", content, is_error: true };
}
