/**
 * Permissions over ACP (docs/acp.md, "Permissions"): a call that asks becomes `session/request_permission`, and
 * the editor answers (awl never reads a terminal under `awl acp`); the permission modes are the session's ACP
 * modes (`session/set_mode`). Options: allow once, allow for this session, always allow (saved in the project's
 * or your config), deny. A client that answers "cancelled" (the prompt was cancelled) cancels the turn; a
 * request that fails is a deny (fail closed). The permission layer sends the asks one at a time.
 */
import type { AgentContext, PermissionOption, RequestPermissionRequest, SessionModeState } from "@agentclientprotocol/sdk";
import { PERMISSION_MODES, type PermissionMode } from "../permissions/engine.js";
import type { AskAnswer, AskRequest } from "../permissions/tool-set.js";
import { describeCall } from "./tool-calls.js";
import { showControls } from "../ui/safe-text.js";

const OPTIONS: (PermissionOption & { answer: AskAnswer })[] = [
  { optionId: "allow_once", name: "Allow once", kind: "allow_once", answer: { kind: "allow_once" } },
  { optionId: "allow_session", name: "Allow for this session", kind: "allow_always", answer: { kind: "allow_session" } },
  { optionId: "allow_always_project", name: "Always allow (saved in .awl/config.json)", kind: "allow_always", answer: { kind: "allow_always", scope: "project" } },
  { optionId: "allow_always_user", name: "Always allow (saved in your config)", kind: "allow_always", answer: { kind: "allow_always", scope: "user" } },
  { optionId: "deny", name: "Deny", kind: "reject_once", answer: { kind: "deny" } },
];

/** The options for this call: saving in the project's config only where its rules count (a trusted folder). */
function offered(request: AskRequest): typeof OPTIONS {
  return request.projectRulesCount ? OPTIONS : OPTIONS.filter((o) => o.optionId !== "allow_always_project");
}

/** Asks the client about one call; never rejects. */
export async function askClient(client: AgentContext, sessionId: string, request: AskRequest, cwd: string, signal: AbortSignal): Promise<AskAnswer> {
  const view = describeCall(request.call, request.tool, cwd);
  const rules = request.rules.length > 0 ? ` (allowing adds ${request.rules.map((r) => JSON.stringify(r)).join(", ")})` : "";
  const params: RequestPermissionRequest = {
    sessionId,
    toolCall: {
      toolCallId: request.call.id,
      // Every model-derived string shown is sanitised as the terminal's question is (ESC, CR shown escaped).
      title: showControls(request.call.agent === undefined ? view.title : `${view.title} (sub-agent ${request.call.agent})`),
      kind: view.kind,
      status: "pending",
      locations: view.locations,
      rawInput: view.rawInput,
      content: [{ type: "content", content: { type: "text", text: showControls(`awl asks because ${request.decision.reason}${rules}.`) } }],
    },
    options: offered(request).map(({ optionId, name, kind }) => ({ optionId, name, kind })),
  };
  try {
    const response = await client.request("session/request_permission", params, { cancellationSignal: signal, stopWaitingOnCancel: true });
    if (response.outcome.outcome === "cancelled") return { kind: "cancel" };
    const chosen = response.outcome.optionId;
    return offered(request).find((o) => o.optionId === chosen)?.answer ?? { kind: "deny", message: `the editor answered with an unknown option "${chosen}"` };
  } catch (e) {
    return signal.aborted ? { kind: "cancel" } : { kind: "deny", message: `the editor could not be asked: ${e instanceof Error ? e.message : String(e)}` };
  }
}

const MODE_TEXT: Record<PermissionMode, { name: string; description: string }> = {
  default: { name: "Default", description: "reads inside the folder run; writes, commands and network ask" },
  "accept-edits": { name: "Accept edits", description: "writes inside the folder run too; commands and network ask" },
  plan: { name: "Plan", description: "read tools only: nothing is changed" },
  bypass: { name: "Bypass permissions", description: "nothing asks: every call runs, only deny rules hold" },
};

/** The session's modes as ACP shows them: awl's permission modes. */
export function sessionModes(current: PermissionMode): SessionModeState {
  return { currentModeId: current, availableModes: PERMISSION_MODES.map((id) => ({ id, ...MODE_TEXT[id] })) };
}
