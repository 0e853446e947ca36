/**
 * Plan mode over ACP (docs/acp.md, "Plan mode"): the model's plan (`exit_plan`) becomes a
 * `session/request_permission` on that tool call, its text the content, with the options: yes and accept edits,
 * yes and ask before each edit, no and keep planning, and, when the client offers its file system
 * (`fs/read_text_file` and `fs/write_text_file`), edit the plan first: an ACP answer is only the chosen option's
 * id, so the plan is written to a file through the editor, asked about again, and read back (unsaved edits
 * included) when approved. A client that answers "cancelled" cancels the turn; a request that fails is a reject
 * (plan mode stays).
 */
import type { AgentContext, PermissionOption, RequestPermissionRequest } from "@agentclientprotocol/sdk";
import type { TextHost } from "../extensions/lua/types.js";
import type { PlanAnswer } from "../permissions/exit-plan.js";
import type { ToolCall } from "../tools/types.js";
import { showControls } from "../ui/safe-text.js";

const OPTIONS: (PermissionOption & { answer: PlanAnswer })[] = [
  { optionId: "plan_accept_edits", name: "Yes, and accept edits", kind: "allow_always", answer: { kind: "approve", mode: "accept-edits" } },
  { optionId: "plan_default", name: "Yes, ask before each edit", kind: "allow_once", answer: { kind: "approve", mode: "default" } },
  { optionId: "plan_reject", name: "No, keep planning", kind: "reject_once", answer: { kind: "reject" } },
];
const EDIT = "plan_edit";

/** Where a plan is edited: the client's file system and the file's absolute path. */
export interface PlanFile {
  files: TextHost;
  path: string;
}

/** Asks the client about a plan (with `file`: edit it there first is offered); never rejects. */
export async function reviewPlanWithClient(client: AgentContext, sessionId: string, plan: string, call: ToolCall, signal: AbortSignal, file?: PlanFile): Promise<PlanAnswer> {
  let editing = false;
  try {
    for (;;) {
      const text = editing && file ? `The plan is in ${file.path}: edit it there, then choose (what the file holds then is the plan).\n\n${plan}` : plan;
      const options = file && !editing ? [...OPTIONS, { optionId: EDIT, name: `No, edit the plan first (in ${file.path})`, kind: "reject_once" as const }] : OPTIONS;
      const params: RequestPermissionRequest = {
        sessionId,
        toolCall: {
          toolCallId: call.id,
          title: "Ready to code? The plan",
          kind: "switch_mode",
          status: "pending",
          content: [{ type: "content", content: { type: "text", text: showControls(text, "\n\t") } }],
          ...(editing && file && { locations: [{ path: file.path }] }),
        },
        options: options.map(({ optionId, name, kind }) => ({ optionId, name, kind })),
      };
      const response = await client.request("session/request_permission", params, { cancellationSignal: signal, stopWaitingOnCancel: true });
      if (response.outcome.outcome === "cancelled") return { kind: "cancel" };
      const chosen = response.outcome.optionId;
      if (chosen === EDIT && file && !editing) {
        await file.files.writeText(file.path, plan);
        editing = true;
        continue;
      }
      const answer = OPTIONS.find((o) => o.optionId === chosen)?.answer ?? { kind: "reject", message: `the editor answered with an unknown option "${chosen}"` };
      if (!editing || !file || answer.kind !== "approve") return answer;
      const edited = await file.files.readText(file.path);
      return edited.trim() === "" ? { kind: "reject", message: `the edited plan in ${file.path} is empty` } : { ...answer, plan: edited };
    }
  } catch (e) {
    return signal.aborted ? { kind: "cancel" } : { kind: "reject", message: `the editor could not be asked: ${e instanceof Error ? e.message : String(e)}` };
  }
}
