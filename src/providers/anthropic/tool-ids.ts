/**
 * Tool ids that Anthropic accepts (`^[a-zA-Z0-9_-]+$`, unique in a request) for a conversation that may
 * come from another provider (SPEC §3, issue 3 item 5): OpenAI-compatible servers send ids with dots or
 * colons (`functions.read:0`), empty ids, or the same id (`call_0`) in every turn.
 *
 * Ids are assigned in conversation order, so the same history always gives the same ids (the prompt
 * cache keeps hitting). A valid, unused id is kept as it is; Anthropic's own `toolu_...` ids never change.
 */
const VALID_ID = /^[a-zA-Z0-9_-]+$/;

export class ToolIdMap {
  private readonly used = new Set<string>();
  /** Original id → ids given to its tool_use blocks and not yet claimed by a tool_result, oldest first. */
  private readonly unanswered = new Map<string, string[]>();
  /** Original id → the id given to its latest tool_use. */
  private readonly latest = new Map<string, string>();

  /** The id to send for a tool_use block whose original id is `id`. */
  forToolUse(id: string): string {
    const base = sanitize(id);
    let candidate = base;
    for (let n = 2; this.used.has(candidate); n++) candidate = `${base}_${n}`;
    this.used.add(candidate);
    const queue = this.unanswered.get(id);
    if (queue) queue.push(candidate);
    else this.unanswered.set(id, [candidate]);
    this.latest.set(id, candidate);
    return candidate;
  }

  /** The id to send for a tool_result answering `id`: the oldest unanswered tool_use with that original id. */
  forToolResult(id: string): string {
    return this.unanswered.get(id)?.shift() ?? this.latest.get(id) ?? sanitize(id);
  }
}

function sanitize(id: string): string {
  if (VALID_ID.test(id)) return id;
  const cleaned = id.replace(/[^a-zA-Z0-9_-]/g, "_");
  return cleaned === "" ? "toolu_awl" : cleaned;
}
