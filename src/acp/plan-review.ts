/**
 * Plan mode over ACP (docs/acp.md, "Plan mode"): the model's plan (`exit_plan`) becomes a
 * `session/request_permission` on that tool call, its text the content, with three options: yes and accept edits,
 * yes and ask before each edit, no and keep planning. A client that answers "cancelled" cancels the turn; a request
 * that fails is a reject (plan mode stays). No "edit" option: an ACP answer is only the chosen option's id, so an
 * edited plan cannot come back in it (docs/acp.md, "Plan mode").
 */
import type { AgentContext, PermissionOption, RequestPermissionRequest } from "@agentclientprotocol/sdk";
import type { PlanAnswer } from "../permissions/exit-plan.js";
import type { ToolCall } from "../tools/types.js";
import { showControls } from "../ui/safe-text.js";

const OPTIONS: (PermissionOption & { answer: PlanAnswer })[] = [
  { optionId: "plan_accept_edits", name: "Yes, and accept edits", kind: "allow_always", answer: { kind: "approve", mode: "accept-edits" } },
  { optionId: "plan_default", name: "Yes, ask before each edit", kind: "allow_once", answer: { kind: "approve", mode: "default" } },
  { optionId: "plan_reject", name: "No, keep planning", kind: "reject_once", answer: { kind: "reject" } },
];

/** Asks the client about a plan; never rejects. */
export async function reviewPlanWithClient(client: AgentContext, sessionId: string, plan: string, call: ToolCall, signal: AbortSignal): Promise<PlanAnswer> {
  const params: RequestPermissionRequest = {
    sessionId,
    toolCall: { toolCallId: call.id, title: "Ready to code? The plan", kind: "switch_mode", status: "pending", content: [{ type: "content", content: { type: "text", text: showControls(plan, "\n\t") } }] },
    options: OPTIONS.map(({ optionId, name, kind }) => ({ optionId, name, kind })),
  };
  try {
    const response = await client.request("session/request_permission", params, { cancellationSignal: signal, stopWaitingOnCancel: true });
    if (response.outcome.outcome === "cancelled") return { kind: "cancel" };
    const chosen = response.outcome.optionId;
    return OPTIONS.find((o) => o.optionId === chosen)?.answer ?? { kind: "reject", message: `the editor answered with an unknown option "${chosen}"` };
  } catch (e) {
    return signal.aborted ? { kind: "cancel" } : { kind: "reject", message: `the editor could not be asked: ${e instanceof Error ? e.message : String(e)}` };
  }
}
