/**
 * Folder trust over ACP (docs/acp.md, "Trust"): a session in a folder that is not trusted starts without what
 * the folder brings (its `.awl/extensions/`, widening settings); at the session's first prompt awl asks the
 * editor, through `session/request_permission`, whether to trust it, showing what it would load. "Trust this
 * folder" is remembered in the user config as the terminal's `y` is; "for this session" trusts it until the
 * session ends; a refusal or a request that fails leaves it untrusted; "cancelled" (the prompt was cancelled)
 * too, and the next prompt asks again.
 */
import type { AgentContext, PermissionOption, RequestPermissionRequest } from "@agentclientprotocol/sdk";

/** What the editor answered. */
export type TrustAnswer = "always" | "session" | "no" | "cancelled";

const OPTIONS: (PermissionOption & { answer: TrustAnswer })[] = [
  { optionId: "trust_always", name: "Trust this folder (remembered)", kind: "allow_always", answer: "always" },
  { optionId: "trust_session", name: "Trust it for this session", kind: "allow_once", answer: "session" },
  { optionId: "dont_trust", name: "Don't trust it", kind: "reject_once", answer: "no" },
];

/** The question about `folder`, which would load `parts` (in words) from `extensionsDir`. */
export function trustRequest(sessionId: string, folder: string, parts: readonly string[], extensionsDir: string | undefined): RequestPermissionRequest {
  const text =
    `This folder is not trusted, so awl has not loaded what it brings: ${parts.join(", ")}. ` +
    "Its extensions are code that runs as you, and its rules widen what tools may do. Trust it to load them.";
  return {
    sessionId,
    toolCall: {
      toolCallId: `awl-trust-${sessionId}`,
      title: `Trust the folder ${folder}?`,
      kind: "other",
      status: "pending",
      locations: [{ path: extensionsDir ?? folder }],
      rawInput: { folder, loads: parts },
      content: [{ type: "content", content: { type: "text", text } }],
    },
    options: OPTIONS.map(({ optionId, name, kind }) => ({ optionId, name, kind })),
  };
}

/** Asks the editor; never rejects (a failure is "no": fail closed; one once `signal` aborted is "cancelled"). */
export async function askClientTrust(client: AgentContext, request: RequestPermissionRequest, signal: AbortSignal): Promise<TrustAnswer> {
  try {
    const response = await client.request("session/request_permission", request, { cancellationSignal: signal, stopWaitingOnCancel: true });
    if (response.outcome.outcome === "cancelled") return "cancelled";
    const chosen = response.outcome.optionId;
    return OPTIONS.find((o) => o.optionId === chosen)?.answer ?? "no";
  } catch {
    return signal.aborted ? "cancelled" : "no";
  }
}
