/**
 * Checkpoints of the workspace for rewind (docs/checkpoints.md): the turn's start, recorded when its first tool
 * batch starts (or when a turn without tools ends; never while the answer streams); one before each later batch of
 * tools that can write or run commands; and one when a turn that ran tools ends (awl's view of the workspace,
 * against which later outside changes are found). They run in a worker thread. No call that can change files runs
 * before the checkpoints asked for are saved (write-barrier.ts, around the run's tools, sub-agents' calls included);
 * a call that only reads runs at once.
 */
import type { TurnReceiver, TurnResult } from "../agent/agent.js";
import type { Agent } from "../agent/agent.js";
import type { Checkpointer } from "./checkpointer.js";
import type { CheckpointRecord, CheckpointWhen } from "./store.js";
import { CheckpointStore } from "./store.js";
import type { RewindCodeOutcome, RewindCodeRequest } from "./rewind.js";
import type { ScanLimits } from "./scan.js";
import type { Conversation } from "../model/conversation.js";
import type { ToolUseBlock } from "../model/blocks.js";
import type { ToolSet } from "../tools/types.js";
import { canChangeFiles, WriteBarrierToolSet } from "./write-barrier.js";
import type { Message } from "../model/message.js";
import { promptNumber } from "./prompts.js";

/** What the checkpoints of a turn read of the session they belong to (the CLI's runtime, a library session's runner). */
export interface CheckpointedSession {
  /** The saved session's id (no checkpoint is taken without one). */
  readonly sessionId: string | undefined;
  readonly conversation: Conversation;
  readonly agent: Agent;
  /**
   * The process runs one turn, then exits (print mode): a checkpoint that no call able to change files waited for is
   * given up at exit instead of being waited for (a text-only turn exits as soon as it has answered).
   */
  readonly singleTurn?: boolean;
}

export class TurnCheckpoints {
  private pending: Promise<unknown> = Promise.resolve();
  private ranTools = false;
  /** The checkpoint of the turn's start was asked for. */
  private turnTaken = false;
  /** The checkpoint of the turn's start was saved complete. */
  private turnSaved = false;
  /** A call or batch that can change files waited for this turn's checkpoints (so they are needed). */
  private needed = false;
  /** The worker was stopped with checkpoints under way (their loss is not news). */
  private abandoned = false;
  /** The prompt of the turn under way. */
  private prompt: Message | undefined;
  private warned = new Set<string>();
  private mainStore: CheckpointStore | undefined;
  /** Called with each checkpoint saved. */
  onCheckpoint: ((record: CheckpointRecord) => void) | undefined;

  constructor(
    private readonly checkpointer: Checkpointer,
    /** The workspace recorded. */
    readonly root: string,
    /** The scan limits the checkpoints are taken with (a rewind records the present with the same). */
    readonly limits: Partial<ScanLimits>,
    private readonly warn: (text: string) => void,
    private readonly session: CheckpointedSession,
    /** The id the session saved a message with. */
    private readonly messageId: (message: Message) => string | undefined,
  ) {
    checkpointer.onNotice = (text) => this.warnOnce(`checkpoint: ${text}`);
  }

  /** A turn starts (its prompt is in the conversation). */
  onTurnStart(prompt: Message): void {
    this.ranTools = false;
    this.turnTaken = false;
    this.turnSaved = false;
    this.needed = false;
    this.prompt = prompt;
    // Nothing of awl changes a file before the turn's first tool batch: the checkpoint of the turn's start is taken
    // then, or when the turn ends, never while the answer streams (a text-only turn gives the CPU to it). Its worker
    // starts now, on another thread while the request is on its way, so the first tool batch does not wait for it
    // (every turn takes a checkpoint, so this only moves the start earlier). A single turn may need none: its worker
    // starts when the reply starts a tool call (guard), so a text-only answer exits without starting or stopping one.
    if (!this.session.singleTurn) this.checkpointer.prewarm();
  }

  /** The turn's receiver, taking the checkpoints as its tool batches start. */
  wrapReceiver(receiver: TurnReceiver): TurnReceiver {
    const before = async (calls: readonly ToolUseBlock[]): Promise<void> => {
      await receiver.onToolBatchStart?.(calls);
      this.ranTools = true;
      const canChange = this.canChange(calls);
      if (canChange) this.needed = true;
      if (!this.turnTaken) {
        // The turn's first batch, whatever it declares: the workspace is still as the turn found it. A batch that can
        // change files waits for the checkpoint; one that only reads (`ls`, a sub-agent's `task`) runs meanwhile, and
        // the barrier holds any call that can write until it is saved (a sub-agent's too).
        this.turnTaken = true;
        const taking = this.take("turn");
        if (canChange) await taking;
      } else if (canChange) await this.take("tools");
    };
    return new Proxy(receiver, {
      get(target, property) {
        if (property === "onToolBatchStart") return before;
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  /** The turn has ended. */
  onTurnEnd(_result?: TurnResult): void {
    // One turn then exit, and nothing that can change files ran: no checkpoint is needed. The session's list says so
    // (unless the one started for a reading batch is saved already); close gives that one up.
    if (this.session.singleTurn && !this.needed) {
      if (!this.turnSaved) this.noteNoChanges();
      return;
    }
    // A turn that ran nothing that can write: its workspace is as it found it (not awaited: the answer is out).
    // Nothing waits for these: one may be the periodic full scan of a watched workspace.
    if (!this.turnTaken) void this.take("turn", true);
    this.turnTaken = true;
    if (this.ranTools) void this.take("end", true);
  }

  /**
   * The run's tools behind the write barrier: a call that can change files waits for the checkpoints asked for so far
   * (every call waits when hooks around tool calls may run commands of their own).
   */
  guard(tools: ToolSet, hooksAroundCalls: () => boolean): ToolSet {
    return new WriteBarrierToolSet(
      tools,
      () => {
        this.needed = true;
        return this.pending;
      },
      hooksAroundCalls,
      () => this.checkpointer.prewarm(),
    );
  }

  /** The store on this thread, for rewinds (the checkpoints themselves are taken in the worker). */
  store(): CheckpointStore {
    this.mainStore ??= new CheckpointStore(this.checkpointer.dir, this.checkpointer.excluded);
    return this.mainStore;
  }

  /**
   * Waits for the checkpoints asked for, then ends the worker. A single turn that ran nothing able to change files
   * does not wait: its checkpoint (if one was started for a reading batch) is given up, the worker stopped where it
   * is (every file of the store is written aside and renamed into place, so it stays whole), and the session's list
   * notes that the turn changed nothing (docs/checkpoints.md, "When checkpoints are taken").
   */
  async close(): Promise<void> {
    if (this.session.singleTurn && !this.needed) {
      this.abandoned = true;
      await this.checkpointer.abandon();
      return;
    }
    await this.pending;
    await this.checkpointer.close();
  }

  /** Restores a checkpoint of the workspace (rewind.ts's rewindCode) in the worker, on its watched view, once the checkpoints asked for are saved. */
  async rewindCode(request: Omit<RewindCodeRequest, "root" | "limits">): Promise<RewindCodeOutcome> {
    await this.pending;
    return this.checkpointer.rewind({ ...request, root: this.root, limits: this.limits });
  }

  /** Waits for every checkpoint asked for so far (a rewind needs them saved). */
  settled(): Promise<unknown> {
    return this.pending;
  }

  /** Whether a batch has a call of a tool that declares `write` or `exec` (or declares nothing, which is `exec`). */
  private canChange(calls: readonly ToolUseBlock[]): boolean {
    const tools = this.session.agent.tools?.definitions() ?? [];
    return calls.some((call) => {
      const tool = tools.find((t) => t.name === call.name);
      return tool !== undefined && canChangeFiles(tool);
    });
  }

  private take(when: CheckpointWhen, idle = false): Promise<unknown> {
    const session = this.session.sessionId;
    if (session === undefined) return this.pending;
    const number = promptNumber(this.session.conversation.messages, this.prompt);
    const message = this.prompt && this.messageId(this.prompt);
    const request = { session, root: this.root, prompt: number, when, limits: this.limits, ...(message !== undefined && { message }), ...(idle && { idle }) };
    const taken = this.checkpointer.take(request).then((record) => {
      if (this.abandoned) return;
      if (when === "turn" && record.complete) this.turnSaved = true;
      this.report(record);
      this.onCheckpoint?.(record);
    });
    // Settles with nothing: `Promise.all`'s value (the previous value and this one) nested every checkpoint of the
    // run one level deeper.
    this.pending = Promise.all([this.pending, taken]).then(() => undefined);
    return taken;
  }

  /** The session's list gets the line that stands for the turn's checkpoint that was not needed. */
  private noteNoChanges(): void {
    const session = this.session.sessionId;
    if (session === undefined || this.prompt === undefined) return;
    const message = this.messageId(this.prompt);
    this.store().noteNoChanges({ session, root: this.root, prompt: promptNumber(this.session.conversation.messages, this.prompt), when: "turn", ...(message !== undefined && { message }) });
  }

  /** An incomplete checkpoint, or files left out of one, are said once each. */
  private report(record: CheckpointRecord): void {
    const lines: string[] = [];
    if (!record.complete) lines.push(`checkpoint: ${record.error ?? "incomplete"}`);
    for (const skipped of record.skipped ?? []) lines.push(`checkpoint: ${skipped.path} is not recorded: ${skipped.reason}`);
    for (const line of lines) this.warnOnce(line);
  }

  private warnOnce(line: string): void {
    if (this.warned.has(line)) return;
    this.warned.add(line);
    this.warn(line);
  }
}
