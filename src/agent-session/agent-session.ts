/**
 * The library session API (SPEC §11): a conversation that takes prompts and yields each turn's events, saved
 * as it goes. `awl acp`, `--input-format stream-json` and embedders all drive awl through it.
 *
 * Turns run one after another: a prompt given while a turn runs starts when that one has ended.
 */
import type { Agent, TurnReceiver, TurnResult } from "../agent/agent.js";
import type { ContentBlock } from "../model/blocks.js";
import { Conversation } from "../model/conversation.js";
import type { Message } from "../model/message.js";
import { SessionRecorder } from "../session/recorder.js";
import type { SessionStore } from "../session/store.js";
import type { SessionError } from "../session/errors.js";
import type { SessionUsage } from "../usage/session-usage.js";
import { eventReceiver } from "./events.js";
import { Turn, type TurnEnd } from "./turn.js";
import type { BranchPrompt, RewindOutcome, RewindPoint, RewindRequest, SessionBranching } from "./branching.js";
import { resolve } from "node:path";
import { Checkpointer } from "../checkpoints/checkpointer.js";
import { DEFAULT_RETENTION_DAYS } from "../checkpoints/prune.js";
import { defaultCheckpointDir } from "../checkpoints/store.js";
import { TurnCheckpoints } from "../checkpoints/turn-checkpoints.js";
import { SavedSessionBranching } from "./saved-branching.js";

/** A prompt: text, or content blocks (text, and whatever else the model accepts). */
export type PromptContent = string | ContentBlock[];

/** How one turn differs from the session's others. */
export interface TurnOptions {
  /**
   * Run this turn on this model of the session's provider, then go back (a prompt command's `model`,
   * docs/commands.md). The CLI's runner switches; the runner `createAgentSession` makes runs every turn on its
   * agent's provider.
   */
  model?: string;
}

/**
 * What runs a session's turns. The CLI's runtime is one (it adds its hooks: sessions, `--record`, notes);
 * `createAgentSession` makes a plain one for embedders.
 */
export interface TurnRunner {
  readonly agent: Agent;
  readonly conversation: Conversation;
  /** The saved session, once there is one. */
  readonly sessionId: string | undefined;
  /** Where the session's cost and context figures are kept, if the runner keeps them (the CLI's runtime does). */
  readonly usage?: SessionUsage;
  /** Adds the prompt to the conversation and runs one agent turn; never throws. */
  runTurn(prompt: PromptContent, receiver: TurnReceiver, signal?: AbortSignal, options?: TurnOptions): Promise<{ prompt: Message; result: TurnResult }>;
  /** Rewind, branches and forks, when the runner saves its session (the CLI's runtime does). */
  readonly branching?: SessionBranching | undefined;
  close?(): void | Promise<void>;
}

export interface AgentSessionOptions {
  /** The provider and tools (and step limit) every turn uses. */
  agent: Agent;
  /** Where the session is saved (docs/sessions.md); unsaved without it. */
  store?: SessionStore;
  /** Recorded in the session header (what `awl -c` matches); default `process.cwd()`. */
  cwd?: string;
  /** Continue this saved session (an id or a unique prefix) from `store`. */
  resume?: string;
  /** Start from these messages (ignored with `resume`). */
  conversation?: Conversation;
  /** A write that failed (the conversation goes on; the writer keeps what it could not write). */
  onSaveError?(error: SessionError): void;
  /**
   * Record the workspace (`cwd`) in checkpoints as the turns run, so `rewind` can restore its files
   * (docs/checkpoints.md): `true` for awl's checkpoint store and limits, or the store's folder and limits. Needs
   * `store` (checkpoints belong to a saved session). While a checkpoint is recorded, the agent's tool calls that can
   * change files wait for it (the session wraps `agent.tools`). Without it, `rewind` restores only the conversation.
   */
  checkpoints?: boolean | CheckpointOptions;
}

/** Where a library session's checkpoints go, and what they leave out. */
export interface CheckpointOptions {
  /** The checkpoint store's folder (default `$XDG_DATA_HOME/awl/checkpoints`). */
  dir?: string;
  /** Files (not ignored) beyond which no checkpoint is taken (default 100 000). */
  maxFiles?: number;
  /** Files larger than this many bytes are not recorded (default 10 MB). */
  maxFileSize?: number;
  /** Checkpoints of sessions older than this many days are pruned (default 30). */
  retentionDays?: number;
  /** A checkpoint that is incomplete, or leaves files out, is said here (once each). */
  onWarning?(text: string): void;
}

/**
 * A conversation with an agent, driven prompt by prompt.
 *
 * ```ts
 * const session = await createAgentSession({ agent: new Agent({ provider, tools }), store: new SessionStore() });
 * for await (const event of session.prompt("What is in notes.txt?")) {
 *   if (event.type === "text_delta") process.stdout.write(event.text);
 *   if (event.type === "turn_end") console.log("\n", event.result.stop_reason, event.session_id);
 * }
 * await session.close();
 * ```
 */
export class AgentSession {
  private running: Turn | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly runner: TurnRunner) {}

  /** The saved session's id (after the first turn of a new session), if it is saved. */
  get id(): string | undefined {
    return this.runner.sessionId;
  }

  get conversation(): Conversation {
    return this.runner.conversation;
  }

  get agent(): Agent {
    return this.runner.agent;
  }

  /** A turn is running. */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /**
   * Sends a prompt: the turn starts now, or when the turn before it ends. Read its events with `for await`,
   * or await `turn.done`.
   */
  prompt(content: PromptContent, options: TurnOptions = {}): Turn {
    const turn = new Turn();
    this.queue = this.queue.then(() => this.run(turn, content, options));
    return turn;
  }

  /** Cancels the running turn, if any (queued prompts still run). */
  cancel(): void {
    this.running?.cancel();
  }

  /** The prompts of the branch in use, each with the files changed since (counts) and its checkpoint; after the turns given so far. */
  rewindPoints(): Promise<RewindPoint[]> {
    return this.after((b) => b.rewindPoints());
  }

  /**
   * Restores the files (`code`), the conversation (a new branch from just before the prompt; nothing is deleted) or
   * both, as they were before prompt `to`; after the turns given so far. Files changed outside awl since its newest
   * checkpoint are named (`conflicts`) and nothing is restored unless `overwriteChanged`.
   */
  rewind(request: RewindRequest): Promise<RewindOutcome> {
    return this.after((b) => b.rewind(request));
  }

  /** Every prompt of every branch of the saved session, in tree order. */
  branches(): Promise<BranchPrompt[]> {
    return this.after((b) => b.branches());
  }

  /** Continues the branch ending at message `leaf` (`BranchPrompt.leaf`). */
  switchBranch(leaf: string): Promise<{ ok: true } | { ok: false; message: string }> {
    return this.after((b) => b.switchBranch(leaf));
  }

  /** Copies the branch in use into a new session and goes on in that one; the original stays as it is. */
  fork(): Promise<{ ok: true; id: string; from: string } | { ok: false; message: string }> {
    return this.after((b) => b.fork());
  }

  /** Runs `work` once the turns given so far have ended (rejects when the runner has no saved session to branch). */
  private after<T>(work: (branching: SessionBranching) => T | Promise<T>): Promise<T> {
    const done = this.queue.then(() => {
      const branching = this.runner.branching;
      if (!branching) throw new Error("this session is not saved (createAgentSession without `store`), so it cannot be rewound, branched or forked");
      return work(branching);
    });
    this.queue = done.catch(() => undefined);
    return done;
  }

  /** Waits for the turns given so far, then closes the session file and whatever the runner holds. */
  async close(): Promise<void> {
    await this.queue;
    await this.runner.close?.();
  }

  private async run(turn: Turn, content: PromptContent, options: TurnOptions): Promise<void> {
    this.running = turn;
    try {
      const { prompt, result } = await this.runner.runTurn(content, eventReceiver((event) => turn.push(event)), turn.signal, options);
      const end: TurnEnd = { prompt, result };
      const id = this.runner.sessionId;
      if (id !== undefined) end.session_id = id;
      // Taken now, before the next turn starts counting.
      const meter = this.runner.usage?.meter.snapshot();
      if (meter) end.meter = meter;
      turn.end(end);
    } finally {
      this.running = undefined;
    }
  }
}

/** A session of its own (no CLI): new, from messages, or resumed from `store`. Rejects when `resume` cannot be opened. */
export async function createAgentSession(options: AgentSessionOptions): Promise<AgentSession> {
  return new AgentSession(PlainRunner.open(options));
}

/**
 * Runs turns with the agent and saves them through a SessionRecorder (as the CLI saves them); with a store it offers
 * branches and forks, and with checkpoints rewinds of the files too.
 */
class PlainRunner implements TurnRunner {
  private recorder: SessionRecorder | undefined;
  readonly branching: SessionBranching | undefined;
  private readonly checkpoints: TurnCheckpoints | undefined;

  private constructor(
    readonly agent: Agent,
    public conversation: Conversation,
    private readonly options: AgentSessionOptions,
  ) {
    const store = options.store;
    if (!store) {
      if (options.checkpoints) throw new Error("checkpoints need the store the session is saved in (`store`)");
      return;
    }
    if (options.checkpoints) this.checkpoints = turnCheckpoints(this, store, options.checkpoints === true ? {} : options.checkpoints, options.cwd ?? process.cwd());
    const runner = this;
    this.branching = new SavedSessionBranching({
      store,
      get writing() {
        return runner.sessionId;
      },
      checkpoints: this.checkpoints,
      switchBranch: (leaf, reason) => {
        const id = this.sessionId;
        if (!this.recorder || id === undefined) return { ok: false, message: "this conversation is not saved yet: send a prompt first" };
        const saved = this.recorder.writer.appendBranch(leaf, reason);
        return saved.ok ? this.continueIn(id) : { ok: false, message: saved.error.message };
      },
      continueIn: (id) => this.continueIn(id),
    });
  }

  static open(options: AgentSessionOptions): PlainRunner {
    if (options.resume === undefined) return new PlainRunner(options.agent, options.conversation ?? new Conversation(), options);
    if (!options.store) throw new Error("resume needs the store the session is saved in");
    const opened = options.store.open(options.resume);
    if (!opened.ok) throw new Error(opened.error.message);
    const runner = new PlainRunner(options.agent, opened.value.session.conversation, options);
    runner.recorder = runner.record(opened.value.writer);
    return runner;
  }

  /** The id a message of the session was saved with. */
  messageId(message: Message): string | undefined {
    return this.recorder?.writer.idOf(message);
  }

  /** Goes on in saved session `id` (this one read again after a `branch` entry, or a fork). */
  private continueIn(id: string): { ok: true } | { ok: false; message: string } {
    const store = this.options.store!;
    if (id === this.sessionId) {
      // Its lock is ours: closed first rather than be refused.
      this.recorder?.close();
      this.recorder = undefined;
    }
    const opened = store.open(id);
    if (!opened.ok) return { ok: false, message: opened.error.message };
    this.recorder?.close();
    this.conversation = opened.value.session.conversation;
    this.recorder = this.record(opened.value.writer);
    return { ok: true };
  }

  get sessionId(): string | undefined {
    return this.recorder?.writer.id;
  }

  async runTurn(content: PromptContent, receiver: TurnReceiver, signal?: AbortSignal): Promise<{ prompt: Message; result: TurnResult }> {
    const prompt = this.conversation.addMessage({ role: "user", content: typeof content === "string" ? [{ type: "text", text: content }] : [...content] });
    this.startRecording()?.message(prompt);
    this.checkpoints?.onTurnStart(prompt);
    let wrapped = this.recorder ? this.recorder.wrap(receiver) : receiver;
    if (this.checkpoints) wrapped = this.checkpoints.wrapReceiver(wrapped);
    const result = await this.agent.runStep(this.conversation, wrapped, signal ? { signal } : {});
    this.recorder?.endTurn();
    this.checkpoints?.onTurnEnd(result);
    return { prompt, result };
  }

  async close(): Promise<void> {
    this.recorder?.close();
    await this.checkpoints?.close();
  }

  private startRecording(): SessionRecorder | undefined {
    const store = this.options.store;
    if (this.recorder || !store) return this.recorder;
    const created = store.create({ cwd: this.options.cwd ?? process.cwd(), provider: this.agent.provider.name, model: this.agent.provider.model });
    if (!created.ok) {
      this.options.onSaveError?.(created.error);
      return undefined;
    }
    this.recorder = this.record(created.value);
    return this.recorder;
  }

  private record(writer: SessionRecorder["writer"]): SessionRecorder {
    return new SessionRecorder(writer, (error) => this.options.onSaveError?.(error));
  }
}

/** The checkpoints of a library session's turns, in a worker thread, and the write barrier around its agent's tools. */
function turnCheckpoints(runner: PlainRunner, sessions: SessionStore, options: CheckpointOptions, cwd: string): TurnCheckpoints {
  const dir = resolve(options.dir ?? defaultCheckpointDir());
  const checkpointer = new Checkpointer(dir, [dir, resolve(sessions.dir)], { sessionDir: sessions.dir, days: options.retentionDays ?? DEFAULT_RETENTION_DAYS });
  const limits = { ...(options.maxFiles !== undefined && { maxFiles: options.maxFiles }), ...(options.maxFileSize !== undefined && { maxFileSize: options.maxFileSize }) };
  const checkpoints = new TurnCheckpoints(checkpointer, resolve(cwd), limits, (text) => options.onWarning?.(text), runner, (message) => runner.messageId(message));
  if (runner.agent.tools) runner.agent.tools = checkpoints.guard(runner.agent.tools, () => false);
  return checkpoints;
}
