/**
 * Rewind, branches and forks of a saved session (branching.ts): the conversation through the session file (a rewind
 * or a switch is a `branch` entry, a fork a new session file), the files through the checkpoint store (the checkpoint
 * taken before the chosen prompt's turn). Every surface uses this: the terminal UI, stream-json control requests,
 * `awl acp` (the CLI's runtime is the host) and `createAgentSession` (its runner is).
 */
import type { BranchPrompt, RestoreChanges, RewindOutcome, RewindPoint, RewindRequest, SessionBranching } from "./branching.js";
import { isPrompt, promptNumber } from "../checkpoints/prompts.js";
import { planRestore, type RestorePlan } from "../checkpoints/restore.js";
import { baselineOf, checkpointBefore } from "../checkpoints/rewind.js";
import type { Message } from "../model/message.js";
import type { CheckpointRecord } from "../checkpoints/store.js";
import type { TurnCheckpoints } from "../checkpoints/turn-checkpoints.js";
import { forkSession } from "../session/fork.js";
import type { LoadedSession } from "../session/reader.js";
import type { SessionStore } from "../session/store.js";
import { branchTo, leavesOf, type TreeNode } from "../session/tree.js";

/** What branching needs of whoever writes the session. */
export interface BranchingHost {
  /** Where the session is saved. */
  readonly store: SessionStore;
  /** The id of the session file being written, once there is one. */
  readonly writing: string | undefined;
  /** The turns' checkpoints, when they are taken (restoring files needs them). */
  readonly checkpoints: TurnCheckpoints | undefined;
  /** Saves a `branch` entry (docs/sessions.md) and goes on from the file: the conversation becomes that branch. */
  switchBranch(leaf: string | null, reason: "rewind" | "switch"): { ok: true } | { ok: false; message: string };
  /** Goes on in saved session `id` (a fork) from now on. */
  continueIn(id: string): { ok: true } | { ok: false; message: string };
  /** The words of a prompt as the user wrote them (the default: its text blocks). */
  promptText?(message: Message): string;
}

/** A prompt's text blocks. */
function plainText(message: Message): string {
  return message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
}

export class SavedSessionBranching implements SessionBranching {
  private readonly promptText: (message: Message) => string;

  constructor(private readonly host: BranchingHost) {
    this.promptText = host.promptText ? (message) => host.promptText!(message) : plainText;
  }

  async rewindPoints(): Promise<RewindPoint[]> {
    const session = this.load();
    if (!session) return [];
    await this.host.checkpoints?.settled();
    const store = this.host.checkpoints?.store();
    const records = store ? store.records(session.header.id) : [];
    const root = this.host.checkpoints?.root;
    const newest = root === undefined ? undefined : baselineOf(records, root);
    const points: RewindPoint[] = [];
    for (const [i, prompt] of session.transcript.filter(isPrompt).entries()) {
      const id = session.ids.get(prompt);
      const node = id === undefined ? undefined : session.tree.get(id);
      const point: RewindPoint = { number: i + 1, text: this.promptText(prompt), time: node?.time ?? "", ...(id !== undefined && { id }) };
      if (!store || root === undefined) point.unavailable = "checkpoints are off";
      else {
        const target = checkpointBefore(records, i + 1, root, id);
        if (typeof target === "string") point.unavailable = target;
        else {
          point.checkpoint = target.id;
          try {
            // What changed since the prompt is the restore read backwards: what it deletes was added, and so on.
            const plan = newest?.tree ? planRestore(store.objects, target.tree!, newest.tree, undefined) : undefined;
            point.changes = plan ? { added: plan.deleted.length, modified: plan.modified.length, deleted: plan.added.length } : { added: 0, modified: 0, deleted: 0 };
          } catch (e) {
            point.unavailable = `the checkpoint is damaged (${e instanceof Error ? e.message : String(e)})`;
            delete point.checkpoint;
          }
        }
      }
      points.push(point);
    }
    return points;
  }

  async rewind(request: RewindRequest): Promise<RewindOutcome> {
    const session = this.load();
    if (!session) return { status: "error", message: "this conversation is not saved yet, so there is nothing to rewind to" };
    const prompts = session.transcript.filter(isPrompt);
    const prompt = prompts[request.to - 1];
    if (!Number.isInteger(request.to) || !prompt) return { status: "error", message: `there is no prompt ${request.to} to rewind to (this branch has ${prompts.length})` };
    const text = this.promptText(prompt);
    const id = session.ids.get(prompt);
    const outcome: RewindOutcome & { status: "restored" | "planned" } = { status: request.dryRun ? "planned" : "restored", prompt: text };
    if (request.mode !== "conversation") {
      const checkpoints = this.host.checkpoints;
      if (!checkpoints) return { status: "error", message: "checkpoints are off (checkpoints.enabled in the config; `checkpoints` of createAgentSession), so the files cannot be restored" };
      const code = await checkpoints.rewindCode({
        session: session.header.id,
        prompt: request.to,
        ...(id !== undefined && { message: id }),
        current: promptNumber(session.transcript),
        overwriteChanged: request.overwriteChanged === true,
        dryRun: request.dryRun === true,
      });
      if (code.status === "error") return { status: "error", message: code.message };
      const files = changesOf(code.plan);
      if (code.status === "conflicts") return { status: "conflicts", prompt: text, conflicts: code.plan.conflicts, files };
      Object.assign(outcome, { checkpoint: code.checkpoint.id, files });
    }
    if (request.mode !== "code" && !request.dryRun) {
      const node = id === undefined ? undefined : session.tree.get(id);
      const switched = this.host.switchBranch(node?.parent ?? null, "rewind");
      if (!switched.ok) return { status: "error", message: switched.message };
    }
    return outcome;
  }

  branches(): BranchPrompt[] {
    const session = this.load();
    return session ? promptTree(session, this.promptText) : [];
  }

  switchBranch(leaf: string): { ok: true } | { ok: false; message: string } {
    const session = this.load();
    if (!session?.tree.has(leaf)) return { ok: false, message: `no message ${JSON.stringify(leaf)} in this session` };
    return this.host.switchBranch(leaf, "switch");
  }

  fork(): { ok: true; id: string; from: string } | { ok: false; message: string } {
    const from = this.host.writing;
    if (from === undefined) return { ok: false, message: "this conversation is not saved yet: send a prompt first" };
    const forked = forkSession(this.host.store, from);
    if (!forked.ok) return { ok: false, message: forked.error.message };
    const continued = this.host.continueIn(forked.value);
    return continued.ok ? { ok: true, id: forked.value, from } : continued;
  }

  onCheckpoint(listener: (record: CheckpointRecord) => void): void {
    if (this.host.checkpoints) this.host.checkpoints.onCheckpoint = listener;
  }

  async checkpointsSaved(): Promise<void> {
    await this.host.checkpoints?.settled();
  }

  /** The session as saved now (the file is the truth: the tree and the ids are read from it). */
  private load(): LoadedSession | undefined {
    const id = this.host.writing;
    if (id === undefined) return undefined;
    const loaded = this.host.store.load(id);
    return loaded.ok ? loaded.value : undefined;
  }
}

function changesOf(plan: RestorePlan): RestoreChanges {
  return { restore: [...plan.modified], create: [...plan.added], delete: [...plan.deleted] };
}

/**
 * The prompts of every branch in tree order: a prompt's follow-ups after it, a second branch from the same point
 * one level deeper. Each names the branch end it leads to (the one in use when it is on it, else its newest).
 */
export function promptTree(session: LoadedSession, promptText: (message: Message) => string = plainText): BranchPrompt[] {
  const nodes = session.tree;
  const inUse = new Set(branchTo(nodes, session.leaf).map((n) => n.id));
  // The nearest prompt above each message (null: none).
  const promptAbove = new Map<string, string | null>();
  const above = (node: TreeNode): string | null => {
    const parent = node.parent === null ? undefined : nodes.get(node.parent);
    if (!parent) return null;
    const known = promptAbove.get(parent.id);
    if (known !== undefined) return known;
    const found = isPrompt(parent.message) ? parent.id : above(parent);
    promptAbove.set(parent.id, found);
    return found;
  };
  const children = new Map<string | null, TreeNode[]>();
  for (const node of nodes.values()) {
    if (!isPrompt(node.message)) continue;
    const key = above(node);
    children.set(key, [...(children.get(key) ?? []), node]);
  }
  // The newest branch end below each message.
  const leafBelow = new Map<string, TreeNode>();
  for (const leaf of leavesOf(nodes)) {
    for (const node of branchTo(nodes, leaf.id)) {
      const had = leafBelow.get(node.id);
      if (!had || leaf.line > had.line) leafBelow.set(node.id, leaf);
    }
  }
  let lastInUse: string | undefined;
  for (const node of branchTo(nodes, session.leaf)) if (isPrompt(node.message)) lastInUse = node.id;
  const rows: BranchPrompt[] = [];
  const walk = (key: string | null, depth: number): void => {
    const list = children.get(key) ?? [];
    list.forEach((node, i) => {
      const level = depth + (i > 0 ? 1 : 0);
      rows.push({
        id: node.id,
        text: promptText(node.message),
        time: node.time,
        depth: level,
        branchStart: i > 0,
        leaf: (inUse.has(node.id) && session.leaf !== null ? session.leaf : leafBelow.get(node.id)?.id) ?? node.id,
        inUse: node.id === lastInUse,
        onBranchInUse: inUse.has(node.id),
      });
      walk(node.id, level);
    });
  };
  walk(null, 0);
  return rows;
}
