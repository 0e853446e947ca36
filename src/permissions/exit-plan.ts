/**
 * Plan mode's way out (docs/permissions.md, "Plan mode"): the `exit_plan` tool, offered only while the mode is
 * `plan`. The model explores with the read tools, then calls it with its plan; the user approves it (awl switches
 * to the mode they pick, and the model goes on with the write tools and the plan in its tool result), edits it
 * first, or rejects it (plan mode stays; the model hears why). Only the user's answer changes the mode: with nobody
 * to ask (`awl -p`, the JSON modes) the plan is handed to the caller and the turn ends, still in plan mode.
 *
 * A host-side ToolSet beside the Lua tools, under the permission layer: it must reach the user's UI (as the
 * permission ask does), which a Lua tool cannot.
 */
import { parseToolInput } from "../model/blocks.js";
import type { ToolCall, ToolDefinition, ToolOutcome, ToolSet } from "../tools/types.js";
import type { PermissionEngine, PermissionMode } from "./engine.js";

/** The tool's name. */
export const EXIT_PLAN_TOOL = "exit_plan";

/** The modes a plan may be approved into, in the order the UIs offer them. */
export const APPROVED_MODES = ["accept-edits", "default"] as const satisfies readonly PermissionMode[];
export type ApprovedMode = (typeof APPROVED_MODES)[number];

/** The user's answer to a plan. */
export type PlanAnswer =
  /** Go ahead in `mode`; `plan`: the text as the user edited it (absent: as proposed). */
  | { kind: "approve"; mode: ApprovedMode; plan?: string }
  /** Keep planning; `message`: what the user wants changed. */
  | { kind: "reject"; message?: string }
  /** Esc: the turn stops (plan mode stays). */
  | { kind: "cancel" };

/**
 * How awl shows a plan to the user (the terminal's question, an ACP client's `session/request_permission`). Must
 * resolve; a rejection counts as a reject. `signal` aborts when the turn is cancelled meanwhile.
 */
export type PlanReview = (plan: string, signal: AbortSignal, call: ToolCall) => Promise<PlanAnswer>;

export interface PlanToolSetOptions {
  /** Told when an answer cancelled the turn (Esc). */
  onCancelTurn?: () => void;
  /** Told when the mode changed by an approval (ACP's `current_mode_update`). */
  onModeChange?: (mode: PermissionMode) => void;
}

const SCHEMA = JSON.stringify({
  type: "object",
  properties: { plan: { type: "string", minLength: 1, description: "The plan in Markdown: the steps, and the files each changes." } },
  required: ["plan"],
});

const DEFINITION: ToolDefinition = {
  name: EXIT_PLAN_TOOL,
  description:
    "Plan mode: once your read-only exploration is done, give the user your plan to approve. Approved, the write tools come back and you carry the plan out; rejected, you keep planning.",
  schema: SCHEMA,
  extension: "awl.plan",
  file: "built-in",
  parallel: false,
  timeout_ms: 0,
  kinds: ["read"],
};

/** A ToolSet offering `exit_plan` while `engine` is in plan mode, and nothing otherwise. */
export class PlanToolSet implements ToolSet {
  private review: PlanReview | undefined;
  private delivered: string | undefined;
  private static readonly none: readonly ToolDefinition[] = [];
  private static readonly offered: readonly ToolDefinition[] = [DEFINITION];

  constructor(
    private readonly engine: PermissionEngine,
    private options: PlanToolSetOptions = {},
  ) {}

  definitions(): readonly ToolDefinition[] {
    return this.engine.mode === "plan" ? PlanToolSet.offered : PlanToolSet.none;
  }

  /** Gives the layer its way to show a plan; until then (headless) a plan ends the turn and is kept for {@link takeDelivered}. */
  setReview(review: PlanReview, options: PlanToolSetOptions = {}): void {
    this.review = review;
    this.options = { ...this.options, ...options };
  }

  /** The plan a headless turn ended with, since the last take; then forgotten. */
  takeDelivered(): string | undefined {
    const plan = this.delivered;
    this.delivered = undefined;
    return plan;
  }

  async execute(call: ToolCall, signal: AbortSignal): Promise<ToolOutcome> {
    const plan = (parseToolInput(call.input) as { plan?: unknown } | undefined)?.plan;
    if (typeof plan !== "string" || plan.trim() === "") return result(`${EXIT_PLAN_TOOL} needs a "plan": your plan in Markdown`, true);
    // A call the model makes outside plan mode (a mode switched meanwhile) changes nothing.
    if (this.engine.mode !== "plan") return result(`not in plan mode (the mode is ${this.engine.mode}): go ahead with the tools you have`, true);
    if (!this.review) {
      this.delivered = plan;
      return { ...result("The plan is handed to the user (this run has nobody to approve it here); the turn ends, still in plan mode."), ends_turn: true };
    }
    let answer: PlanAnswer;
    try {
      answer = await this.review(plan, signal, call);
    } catch {
      answer = { kind: "reject", message: "the plan could not be shown" };
    }
    switch (answer.kind) {
      case "approve": {
        this.engine.mode = answer.mode;
        this.options.onModeChange?.(answer.mode);
        const edited = answer.plan !== undefined && answer.plan !== plan;
        const writes = answer.mode === "accept-edits" ? "edits inside the project run without asking" : "edits and commands ask the user";
        return result(`The user approved ${edited ? "the plan as they edited it" : "the plan"}. Plan mode is over (mode ${answer.mode}: ${writes}); the write tools are yours again. Carry out this plan now:\n\n${edited ? answer.plan : plan}`);
      }
      case "reject":
        return result(`The user rejected the plan${answer.message ? ` and said: ${answer.message}` : ""}. You are still in plan mode (read tools only): revise the plan and call ${EXIT_PLAN_TOOL} again.`, true);
      case "cancel":
        this.options.onCancelTurn?.();
        return { status: "cancelled" };
    }
  }
}

function result(content: string, is_error = false): Extract<ToolOutcome, { status: "result" }> {
  return { status: "result", content, is_error };
}
