/**
 * Rewind, branches and forks of the session a runtime writes: agent-session/saved-branching.ts with the CLI's session
 * hook as its host (a switch resumes the file into the runtime).
 */
import { SavedSessionBranching } from "../agent-session/saved-branching.js";
import type { TurnCheckpoints } from "../checkpoints/turn-checkpoints.js";
import type { Message } from "../model/message.js";
import type { Runtime } from "./runtime.js";
import type { SessionHook } from "./session-hook.js";
import { isUnansweredNote } from "./unanswered-note.js";

/** The text a user wrote in a prompt (without awl's note about an unanswered turn). */
export function promptText(message: Message): string {
  return message.content.flatMap((b) => (b.type === "text" && !isUnansweredNote(b.text) ? [b.text] : [])).join("\n");
}

export function runtimeBranching(runtime: Runtime, sessions: SessionHook, checkpoints: TurnCheckpoints | undefined): SavedSessionBranching {
  // After a rewind or a fork nothing is drawn again (the prompt goes back to the user); a switch shows the branch.
  const resumed = (result: { ok: true } | { ok: false; error: { message: string } }, redraw: boolean): { ok: true } | { ok: false; message: string } => {
    if (!result.ok) return { ok: false, message: result.error.message };
    if (!redraw) sessions.resumed = undefined;
    return { ok: true };
  };
  return new SavedSessionBranching({
    store: sessions.store,
    get writing() {
      return sessions.id;
    },
    checkpoints,
    switchBranch: (leaf, reason) => resumed(sessions.switchBranch(leaf, reason, runtime), reason === "switch"),
    continueIn: (id) => resumed(sessions.resume(id, runtime), false),
    promptText,
  });
}
