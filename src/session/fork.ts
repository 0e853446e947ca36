/**
 * Forking a session (`/fork`, `awl -r ID --fork`, `--fork-session`): a new session holding a copy of the branch in
 * use (its messages, its compactions, what its tools left for the display), so both can go on apart.
 */
import type { CompactionChange } from "../model/compaction.js";
import { ok, type SessionResult } from "./errors.js";
import type { SessionEvent } from "./format.js";
import type { SessionStore } from "./store.js";

/** Copies the branch in use of session `idOrPrefix` into a new session; returns the new session's id. */
export function forkSession(store: SessionStore, idOrPrefix: string): SessionResult<string> {
  const loaded = store.load(idOrPrefix);
  if (!loaded.ok) return loaded;
  const session = loaded.value;
  const created = store.create({ cwd: session.header.cwd, provider: session.provider, model: session.model });
  if (!created.ok) return created;
  const writer = created.value;
  const steps: SessionResult<void>[] = [];
  for (const c of session.compactions) if (c.leaf === null) steps.push(writer.appendEvent(compactionEvent(c.change)));
  for (const message of session.transcript) {
    steps.push(writer.appendMessage(message));
    for (const block of message.content) {
      if (block.type !== "tool_use") continue;
      const shown = session.snapshots.get(block.id);
      if (shown) steps.push(writer.appendToolEvent(block.id, shown));
    }
    const id = session.ids.get(message);
    for (const c of session.compactions) if (c.leaf !== null && c.leaf === id) steps.push(writer.appendEvent(compactionEvent(c.change)));
  }
  const closed = writer.close();
  const failed = [...steps, closed].find((r) => !r.ok);
  if (failed && !failed.ok) {
    store.remove(writer.id);
    return failed;
  }
  return ok(writer.id);
}

function compactionEvent(change: CompactionChange): SessionEvent {
  return { type: "compaction", replaces: change.replaces, ...(change.summary !== undefined && { summary: change.summary }), ...(change.pruned && { pruned: [...change.pruned] }) };
}
